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
	m := map[string]any{
		"index": ev.index, "content": content, "tokens": []int32{}, "id_slot": ev.slot, "stop": true, "model": j.model,
		"tokens_predicted": ev.predictedN, "tokens_evaluated": ev.promptN + ev.cachedN,
		"tokens_cached": ev.cachedN, "stop_type": stopType, "stop_detail": ev.stopDetail,
		"stopping_word": ev.stopWord, "truncated": ev.truncated, "timings": tm,
		"has_new_line": strings.Contains(content, "\n"), "prompt": s.detokenize(t.prompt),
		"generation_settings": s.generationSettings(j, t),
	}
	if ev.loop != nil {
		m["loop_guard"] = ev.loop.json()
	}
	return m
}

// detokenize renders ids with special tokens as text.
func (s *Server) detokenize(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(s.cfg.Tokenizer.Piece(id, true))
	}
	return b.String()
}

// generationSettings is llama-server's generation_settings object: the
// task's sampling and generation settings (taskSettings) plus the fields
// of features this server has not got, at llama.cpp's neutral values
// (request_fields.go refuses requests that set them), and the request's
// reasoning, speculation and caching choices.
func (s *Server) generationSettings(j *job, t *task) map[string]any {
	m := s.taskSettings(j, t)
	format := firstNonEmpty(j.req.ReasoningFormat, s.cfg.ReasoningFormat)
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
	for k, v := range map[string]any{
		"grammar": "", "grammar_lazy": false, "grammar_triggers": []any{}, "preserved_tokens": []any{},
		"chat_format": "Content-only", "reasoning_format": format, "reasoning_in_content": format == "none",
		"speculative.n_max": t.specOpts.NMax, "speculative.n_min": t.specOpts.NMin, "speculative.type": specTypes,
		"timings_per_token": false, "post_sampling_probs": false, "lora": []any{},
		"cache_prompt": t.cachePrompt, "return_tokens": j.returnTokens,
	} {
		if _, set := m[k]; !set {
			m[k] = v
		}
	}
	return m
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
