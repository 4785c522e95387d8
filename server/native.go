package server

import (
	"github.com/valyala/fasthttp"
)

// handleNative is llama.cpp's own POST /completion: fields content, stop,
// stop_type (eos, word, limit), stopping_word, tokens_predicted,
// tokens_evaluated, tokens_cached, timings; streamed as data: events
// ending with stop:true and no [DONE].
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
				out.data(map[string]any{"index": ev.index, "content": ev.text, "tokens": ev.tokens, "stop": false,
					"id_slot": -1, "completion_probabilities": nativeProbs(j.logprobs, ev.probs)})
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
		res[i]["tokens"] = c.tokens
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

func (s *Server) nativeFinal(j *job, ev event, content string) map[string]any {
	_, tm := j.totals([]event{ev})
	m := map[string]any{
		"index": ev.index, "content": content, "id_slot": ev.slot, "stop": true, "model": j.model,
		"tokens_predicted": ev.predictedN, "tokens_evaluated": ev.promptN + ev.cachedN,
		"tokens_cached": ev.cachedN, "stop_type": ev.stopType, "stop_detail": ev.stopDetail,
		"stopping_word": ev.stopWord, "truncated": ev.truncated, "timings": tm,
		"generation_settings": s.taskSettings(j, j.tasks[ev.index]),
	}
	if ev.loop != nil {
		m["loop_guard"] = ev.loop.json()
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
