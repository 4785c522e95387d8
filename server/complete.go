package server

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fasthttp"
)

// completionPrompts reads "prompt": a string, a list of token ids, or a
// list of strings / token lists (one choice set each).
func (s *Server) completionPrompts(raw json.RawMessage) ([][]int32, *apiError) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return nil, badRequest("prompt", "prompt is required")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return [][]int32{s.cfg.Tokenizer.Encode(one, true, true)}, nil
	}
	var ids []int32
	if json.Unmarshal(raw, &ids) == nil {
		return [][]int32{ids}, nil
	}
	var many []json.RawMessage
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, badRequest("prompt", "prompt must be a string, a list of token ids, or a list of those")
	}
	if len(many) > maxPrompts {
		return nil, badRequest("prompt", "at most %d prompts per request", maxPrompts)
	}
	var out [][]int32
	for _, m := range many {
		if json.Unmarshal(m, &one) == nil {
			out = append(out, s.cfg.Tokenizer.Encode(one, true, true))
		} else if json.Unmarshal(m, &ids) == nil {
			out = append(out, ids)
		} else {
			return nil, badRequest("prompt", "each prompt must be a string or a list of token ids")
		}
	}
	return out, nil
}

func (s *Server) handleCompletions(ctx *fasthttp.RequestCtx) {
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
	j, e := s.newJob(&r, prompts, "cmpl-", false)
	if e == nil {
		e = s.submit(j)
	}
	if e != nil {
		writeError(ctx, e)
		return
	}
	if j.stream {
		s.streamCompletions(ctx, j)
		return
	}
	cs, e := j.collect()
	if e != nil {
		writeError(ctx, e)
		return
	}
	choices := make([]map[string]any, len(cs))
	for i, c := range cs {
		choices[i] = map[string]any{"index": i, "text": string(c.text), "finish_reason": c.last.finish,
			"logprobs": completionLogprobs(j.logprobs, c.probs, 0)}
	}
	u, tm := j.totals(lastEvents(cs))
	s.writeJSON(ctx, map[string]any{"id": j.id, "object": "text_completion", "created": j.created,
		"model": j.model, "system_fingerprint": fingerprint, "choices": choices, "usage": u, "timings": tm})
}

func (s *Server) streamCompletions(ctx *fasthttp.RequestCtx, j *job) {
	chunk := func(choices []map[string]any) map[string]any {
		return map[string]any{"id": j.id, "object": "text_completion", "created": j.created,
			"model": j.model, "system_fingerprint": fingerprint, "choices": choices}
	}
	offsets := make([]int, len(j.tasks))
	emit := func(out *sse, ev event) {
		var fin any
		if ev.done {
			fin = ev.finish
		}
		if ev.text == "" && !ev.done && !j.logprobs {
			return
		}
		c := chunk([]map[string]any{{"index": ev.index, "text": ev.text, "finish_reason": fin,
			"logprobs": completionLogprobs(j.logprobs, ev.probs, offsets[ev.index])}})
		if ev.done && !j.usage {
			_, c["timings"] = j.totals([]event{ev}) // the last chunk carries the timings
		}
		out.data(c)
		offsets[ev.index] += len(ev.text)
	}
	finish := func(out *sse, last []event) {
		if j.usage {
			u, tm := j.totals(last)
			c := chunk([]map[string]any{})
			c["usage"], c["timings"] = u, tm
			out.data(c)
		}
		out.raw([]byte("[DONE]"))
	}
	s.streamJob(ctx, j, emit, finish)
}

// completionLogprobs is the legacy completions shape: parallel lists of
// tokens, their logprobs, the top alternatives as maps, and text offsets.
func completionLogprobs(want bool, ps []tokenLogprobs, offset int) any {
	if !want {
		return nil
	}
	lp := map[string]any{"tokens": []string{}, "token_logprobs": []float32{}, "top_logprobs": []map[string]float32{}, "text_offset": []int{}}
	var toks []string
	var vals []float32
	var tops []map[string]float32
	var offs []int
	for _, p := range ps {
		toks, vals, offs = append(toks, p.Text), append(vals, p.Logprob), append(offs, offset)
		offset += len(p.Text)
		m := map[string]float32{}
		for _, t := range p.Top {
			m[t.Text] = t.Logprob
		}
		tops = append(tops, m)
	}
	if len(ps) > 0 {
		lp["tokens"], lp["token_logprobs"], lp["top_logprobs"], lp["text_offset"] = toks, vals, tops, offs
	}
	return lp
}
