package server

import (
	"strings"

	"github.com/valyala/fasthttp"
)

// handleNative is llama.cpp's own POST /completion (also /completions):
// fields content, tokens (filled with return_tokens), id_slot, stop,
// model, tokens_predicted, tokens_evaluated, tokens_cached,
// generation_settings, prompt, has_new_line, truncated, stop_type
// (none, eos, word, limit), stopping_word and timings; streamed as data:
// events whose last has stop:true and the timings, with no [DONE].
func (s *Server) handleNative(ctx *fasthttp.RequestCtx) {
	var r rawRequest
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	prompts, e := s.completionPrompts(r.Prompt)
	if e != nil {
		writeError(ctx, e)
		return
	}
	j, e := s.newJob(&r, prompts, "", false)
	if e == nil {
		e = s.submit(j)
	}
	if e != nil {
		writeError(ctx, e)
		return
	}
	if j.stream {
		emit := func(out *sse, ev event) {
			if ev.text != "" || len(ev.tokens) > 0 {
				out.data(s.nativePartial(j, ev))
			}
			if ev.done {
				out.data(s.nativeFinal(j, ev, ""))
			}
		}
		s.streamJob(ctx, j, emit, func(*sse, []event) {})
		return
	}
	cs, e := j.collect()
	if e != nil {
		writeError(ctx, e)
		return
	}
	res := make([]map[string]any, len(cs))
	for i, c := range cs {
		res[i] = s.nativeFinal(j, c.last, string(c.text))
		res[i]["tokens"] = j.tokensOut(c.tokens)
		if j.logprobs {
			res[i]["completion_probabilities"] = nativeProbs(true, c.probs)
		}
	}
	if len(res) == 1 {
		s.writeJSON(ctx, res[0])
		return
	}
	s.writeJSON(ctx, res)
}

// tokensOut is the "tokens" field: the ids with return_tokens, else [].
func (j *job) tokensOut(ids []int32) []int32 {
	if !j.returnTokens || ids == nil {
		return []int32{}
	}
	return ids
}

// nativePartial is one streamed /completion chunk.
func (s *Server) nativePartial(j *job, ev event) map[string]any {
	m := map[string]any{"index": ev.index, "content": ev.text, "tokens": j.tokensOut(ev.tokens), "stop": false,
		"id_slot": ev.slot, "tokens_predicted": ev.predictedN, "tokens_evaluated": ev.promptN + ev.cachedN}
	if j.logprobs && len(ev.probs) > 0 {
		m["completion_probabilities"] = nativeProbs(true, ev.probs)
	}
	return m
}

// nativeFinal is the last /completion object of a choice; content is the
// whole text (non-streamed) or the rest (streamed: "").
func (s *Server) nativeFinal(j *job, ev event, content string) map[string]any {
	_, tm := j.totals([]event{ev})
	stopType := ev.stopType
	if stopType == "" {
		stopType = "none"
	}
	t := j.tasks[ev.index]
	return map[string]any{
		"index": ev.index, "content": content, "tokens": []int32{}, "id_slot": ev.slot, "stop": true, "model": j.model,
		"tokens_predicted": ev.predictedN, "tokens_evaluated": ev.promptN + ev.cachedN,
		"tokens_cached": ev.cachedN, "stop_type": stopType, "stopping_word": ev.stopWord,
		"truncated": ev.truncated, "has_new_line": strings.Contains(content, "\n"), "timings": tm,
		"prompt":              s.detokenize(t.prompt),
		"generation_settings": s.generationSettings(j, t),
	}
}

// detokenize renders ids with special tokens as text.
func (s *Server) detokenize(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(s.cfg.Tokenizer.Piece(id, true))
	}
	return b.String()
}

// generationSettings is llama-server's generation_settings object: every
// sampling and generation parameter of the task, with llama.cpp's neutral
// values for the samplers this server does not run (they can only be
// neutral: request_fields.go refuses requests that set them).
func (s *Server) generationSettings(j *job, t *task) map[string]any {
	p, r := t.sampling, j.req
	seed := int64(p.Seed)
	if p.Seed == 0xFFFFFFFF {
		seed = -1
	}
	stops := t.stops
	if stops == nil {
		stops = []string{}
	}
	format := firstNonEmpty(r.ReasoningFormat, s.cfg.ReasoningFormat)
	if format == "" {
		format = "auto"
	}
	specTypes := "none"
	if s.speculates() && !t.specOpts.Off {
		specTypes = s.specNames()
		if len(t.specOpts.Types) > 0 {
			specTypes = strings.Join(t.specOpts.Types, ",")
		}
	}
	return map[string]any{
		"n_ctx": s.NCtx(), "model": j.model,
		"seed": seed, "temperature": p.Temp, "dynatemp_range": 0.0, "dynatemp_exponent": 1.0,
		"top_k": p.TopK, "top_p": p.TopP, "min_p": p.MinP, "top_n_sigma": -1.0,
		"xtc_probability": 0.0, "xtc_threshold": 0.1, "typical_p": p.TypicalP,
		"repeat_last_n": p.RepeatLastN, "repeat_penalty": p.RepeatPenalty,
		"presence_penalty": p.PresencePenalty, "frequency_penalty": p.FrequencyPenalty,
		"dry_multiplier": 0.0, "dry_base": 1.75, "dry_allowed_length": 2, "dry_penalty_last_n": -1,
		"dry_sequence_breakers": []string{"\n", ":", "\"", "*"},
		"mirostat":              0, "mirostat_tau": 5.0, "mirostat_eta": 0.1,
		"stop": stops, "max_tokens": t.nPredict, "n_predict": t.nPredict,
		"n_keep": t.nKeep, "n_discard": t.nDiscard, "ignore_eos": false, "stream": j.stream,
		"logit_bias": []any{}, "n_probs": t.nProbs, "min_keep": 0,
		"grammar": "", "grammar_lazy": false, "grammar_triggers": []any{}, "preserved_tokens": []any{},
		"chat_format": "Content-only", "reasoning_format": format, "reasoning_in_content": format == "none",
		"samplers":          []string{"penalties", "top_k", "typ_p", "top_p", "min_p", "temperature"},
		"speculative.n_max": t.specOpts.NMax, "speculative.n_min": t.specOpts.NMin, "speculative.type": specTypes,
		"timings_per_token": false, "post_sampling_probs": false, "lora": []any{},
		"cache_prompt": t.cachePrompt, "return_tokens": j.returnTokens,
	}
}

// nativeProbs is llama.cpp's completion_probabilities shape.
func nativeProbs(want bool, ps []tokenLogprobs) any {
	if !want {
		return nil
	}
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		top := make([]map[string]any, len(p.Top))
		for k, t := range p.Top {
			top[k] = map[string]any{"id": t.ID, "token": t.Text, "logprob": t.Logprob, "bytes": byteList(t.Text)}
		}
		out[i] = map[string]any{"id": p.ID, "token": p.Text, "logprob": p.Logprob, "bytes": byteList(p.Text), "top_logprobs": top}
	}
	return out
}
