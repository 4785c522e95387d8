package server

// messageState builds one Messages API answer: the message object and,
// when streaming, Anthropic's event sequence:
//
//	message_start,
//	per content block: content_block_start, content_block_delta…
//	  (a thinking block ends with an empty signature_delta, as
//	  llama-server sends it), content_block_stop,
//	message_delta (stop_reason, stop_sequence, usage), message_stop.
//
// A <think> block is a "thinking" content block before the "text" one.
// stop_reason is end_turn (end of generation), stop_sequence (a stop
// string, named in stop_sequence; llama-server says end_turn) or
// max_tokens (max_tokens or the context).
type messageState struct {
	j       *job
	started bool
	blocks  int    // content blocks started
	cur     string // the open block's type: "thinking", "text" or ""
}

// stopReason maps the finish event onto Anthropic's stop_reason and
// stop_sequence.
func stopReason(ev event) (string, any) {
	switch {
	case ev.stopType == "word":
		return "stop_sequence", ev.stopWord
	case ev.finish == "length":
		return "max_tokens", nil
	}
	return "end_turn", nil
}

// usage is Anthropic's usage object: input_tokens excludes the tokens
// read from the prompt cache (cache_read_input_tokens).
func (ms *messageState) usage(last []event) map[string]any {
	u, tm := ms.j.totals(last)
	return map[string]any{"input_tokens": u.PromptTokens - tm.CacheN, "cache_read_input_tokens": tm.CacheN,
		"cache_creation_input_tokens": 0, "output_tokens": u.CompletionTokens}
}

// message is the whole answer (non-streaming).
func (ms *messageState) message(content, reasoning string, last event) map[string]any {
	blocks := []map[string]any{}
	if reasoning != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": reasoning, "signature": ""})
	}
	if content != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": content})
	}
	reason, seq := stopReason(last)
	return map[string]any{"id": ms.j.id, "type": "message", "role": "assistant", "model": ms.j.model,
		"content": blocks, "stop_reason": reason, "stop_sequence": seq, "usage": ms.usage([]event{last})}
}

// emit turns the task's events into Messages events.
func (ms *messageState) emit(p *splitter) func(*sse, event) {
	return func(out *sse, ev event) {
		if !ms.started {
			ms.started = true
			n := len(ms.j.prompts[0])
			out.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
				"id": ms.j.id, "type": "message", "role": "assistant", "model": ms.j.model, "content": []any{},
				"stop_reason": nil, "stop_sequence": nil,
				"usage": map[string]int{"input_tokens": n, "cache_read_input_tokens": 0, "output_tokens": 0},
			}})
		}
		content, reasoning := p.Add(ev.text)
		if ev.done {
			c2, r2 := p.Flush()
			content, reasoning = content+c2, reasoning+r2
		}
		ms.delta(out, "thinking", reasoning)
		ms.delta(out, "text", content)
	}
}

// delta streams text into a block of kind, starting it first (and
// stopping the other kind's).
func (ms *messageState) delta(out *sse, kind, text string) {
	if text == "" {
		return
	}
	if ms.cur != kind {
		ms.stopBlock(out)
		ms.cur = kind
		ms.blocks++
		block := map[string]any{"type": "text", "text": ""}
		if kind == "thinking" {
			block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		}
		out.event("content_block_start", map[string]any{"type": "content_block_start", "index": ms.blocks - 1, "content_block": block})
	}
	d := map[string]any{"type": "text_delta", "text": text}
	if kind == "thinking" {
		d = map[string]any{"type": "thinking_delta", "thinking": text}
	}
	out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": ms.blocks - 1, "delta": d})
}

// stopBlock ends the open block.
func (ms *messageState) stopBlock(out *sse) {
	if ms.cur == "" {
		return
	}
	i := ms.blocks - 1
	if ms.cur == "thinking" {
		out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "signature_delta", "signature": ""}})
	}
	out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	ms.cur = ""
}

// finish stops the last block and sends message_delta and message_stop.
func (ms *messageState) finish(out *sse, last []event) {
	ms.stopBlock(out)
	reason, seq := stopReason(last[0])
	out.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": seq}, "usage": ms.usage(last)})
	out.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicStreamError is Anthropic's error event.
func anthropicStreamError(out *sse, e *apiError) {
	typ := "api_error"
	if e.Status == 504 {
		typ = "timeout_error"
	}
	out.event("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.Message}})
}
