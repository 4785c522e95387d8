package server

import (
	"encoding/json"

	"github.com/waggle-llm/waggle/engine/chat"
)

// messageState builds one Messages API answer: the message object and,
// when streaming, Anthropic's event sequence:
//
//	message_start,
//	per content block: content_block_start, content_block_delta…
//	  (a thinking block ends with an empty signature_delta, as
//	  llama-server sends it), content_block_stop,
//	message_delta (stop_reason, stop_sequence, usage), message_stop.
//
// A <think> block is a "thinking" content block before the "text" one;
// tool calls follow as "tool_use" blocks (input_json_delta). stop_reason
// is end_turn (end of generation), tool_use (the answer called a tool),
// stop_sequence (a stop string, named in stop_sequence; llama-server says
// end_turn) or max_tokens (max_tokens or the context).
type messageState struct {
	j       *job
	started bool
	blocks  int    // content blocks started
	cur     string // the open block's type: "thinking", "text" or ""
	calls   int    // tool_use blocks sent
}

// stopReason maps the finish event onto Anthropic's stop_reason and
// stop_sequence: tool_use when the answer called a tool and ended by
// itself.
func stopReason(ev event, calls int) (string, any) {
	switch {
	case ev.finish == "length":
		return "max_tokens", nil
	case calls > 0:
		return "tool_use", nil
	case ev.stopType == "word":
		return "stop_sequence", ev.stopWord
	}
	return "end_turn", nil
}

// toolUseBlock is a tool call as a tool_use block; its input is the
// arguments object ({} when they are not one).
func toolUseBlock(c chat.ToolCall) map[string]any {
	var input map[string]any
	if json.Unmarshal([]byte(c.Arguments), &input) != nil || input == nil {
		input = map[string]any{}
	}
	return map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input}
}

// usage is Anthropic's usage object: input_tokens excludes the tokens
// read from the prompt cache (cache_read_input_tokens).
func (ms *messageState) usage(last []event) map[string]any {
	u, tm := ms.j.totals(last)
	return map[string]any{"input_tokens": u.PromptTokens - tm.CacheN, "cache_read_input_tokens": tm.CacheN,
		"cache_creation_input_tokens": 0, "output_tokens": u.CompletionTokens}
}

// message is the whole answer (non-streaming).
func (ms *messageState) message(content, reasoning string, calls []chat.ToolCall, last event) map[string]any {
	blocks := []map[string]any{}
	if reasoning != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": reasoning, "signature": ""})
	}
	if content != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": content})
	}
	for _, c := range calls {
		blocks = append(blocks, toolUseBlock(c))
	}
	reason, seq := stopReason(last, len(calls))
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
		content, reasoning, calls := p.Add(ev.text)
		if ev.done {
			c2, r2, k2 := p.Flush()
			content, reasoning, calls = content+c2, reasoning+r2, append(calls, k2...)
		}
		ms.delta(out, "thinking", reasoning)
		ms.delta(out, "text", content)
		for _, c := range calls {
			ms.toolUse(out, c)
		}
	}
}

// toolUse streams a parsed tool call as a tool_use block: its start, the
// arguments in one input_json_delta, its stop.
func (ms *messageState) toolUse(out *sse, c chat.ToolCall) {
	ms.stopBlock(out)
	ms.blocks++
	ms.calls++
	i := ms.blocks - 1
	block := toolUseBlock(c)
	block["input"] = map[string]any{}
	out.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
	out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": c.Arguments}})
	out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
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
	reason, seq := stopReason(last[0], ms.calls)
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
