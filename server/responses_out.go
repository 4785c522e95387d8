package server

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/engine/chat"
)

// responseState builds one Responses API answer: the response object
// and, when streaming, OpenAI's event sequence. Every event carries its
// type and sequence_number; text flows as
//
//	response.created, response.in_progress,
//	per output item: response.output_item.added, response.content_part.added,
//	  response.output_text.delta… (response.reasoning_text.delta… for
//	  reasoning), response.output_text.done, response.content_part.done,
//	  response.output_item.done,
//	response.completed (response.incomplete when max_output_tokens or the
//	  context cut the answer, as OpenAI does; llama-server says completed).
//
// Reasoning (a <think> block) is a "reasoning" item before the
// "message" item, with reasoning_text content as llama-server sends it;
// tool calls follow as "function_call" items (output_item.added,
// function_call_arguments.delta and .done, output_item.done).
type responseState struct {
	j            *job
	instructions *string // echoed in the response object
	maxOutput    *int
	seq          int
	started      bool
	items        []map[string]any // finished output items
	cur          *respOut         // the item being streamed
}

// respOut is an output item being streamed.
type respOut struct {
	kind  string // "reasoning" or "message"
	id    string
	index int
	text  strings.Builder
}

// respItemJSON returns an output item of kind, with its one content
// part when parts is set.
func respItemJSON(kind, id, text, status string, parts bool) map[string]any {
	content := []any{}
	if parts {
		content = append(content, respPartJSON(kind, text))
	}
	if kind == "reasoning" {
		return map[string]any{"id": id, "type": "reasoning", "status": status, "summary": []any{}, "content": content}
	}
	return map[string]any{"id": id, "type": "message", "status": status, "role": "assistant", "content": content}
}

// callItemJSON is a function_call output item (call_id is the call's id,
// as chat's tool_calls give it).
func callItemJSON(c chat.ToolCall, id, args, status string) map[string]any {
	return map[string]any{"id": id, "type": "function_call", "status": status, "call_id": c.ID,
		"name": c.Name, "arguments": args}
}

func respPartJSON(kind, text string) map[string]any {
	if kind == "reasoning" {
		return map[string]any{"type": "reasoning_text", "text": text}
	}
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

func respItemID(kind string) string {
	if kind == "reasoning" {
		return "rs_" + randomID()
	}
	return "msg_" + randomID()
}

// addItem records a finished item (non-streaming); empty text adds none.
func (rs *responseState) addItem(kind, text, status string) {
	if text != "" {
		rs.items = append(rs.items, respItemJSON(kind, respItemID(kind), text, status, true))
	}
}

// itemStatus is the status of the last output item: incomplete when
// max_output_tokens or the context cut the answer, as OpenAI sends it.
func itemStatus(last event) string {
	if last.finish == "length" {
		return "incomplete"
	}
	return "completed"
}

// object is the response object in its current state; last (nil while
// in progress) holds the finished choice.
func (rs *responseState) object(last []event) map[string]any {
	j := rs.j
	o := map[string]any{
		"id": j.id, "object": "response", "created_at": j.created, "status": "in_progress",
		"model": j.model, "output": append([]map[string]any{}, rs.items...), "error": nil,
		"incomplete_details": nil, "instructions": rs.instructions, "max_output_tokens": rs.maxOutput,
		"parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}, "usage": nil,
	}
	if last == nil {
		return o
	}
	u, tm := j.totals(last)
	o["status"], o["completed_at"] = "completed", time.Now().Unix()
	if last[0].finish == "length" {
		o["status"], o["incomplete_details"] = "incomplete", map[string]string{"reason": "max_output_tokens"}
	}
	o["usage"] = map[string]any{
		"input_tokens": u.PromptTokens, "input_tokens_details": map[string]int{"cached_tokens": tm.CacheN},
		"output_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens,
	}
	return o
}

// response is the finished response object.
func (rs *responseState) response(last []event) map[string]any { return rs.object(last) }

// send writes one event with its type and sequence number.
func (rs *responseState) send(out *sse, typ string, fields map[string]any) {
	fields["type"], fields["sequence_number"] = typ, rs.seq
	rs.seq++
	out.event(typ, fields)
}

// emit turns the task's events into Responses events.
func (rs *responseState) emit(p *splitter) func(*sse, event) {
	return func(out *sse, ev event) {
		if !rs.started {
			rs.started = true
			rs.send(out, "response.created", map[string]any{"response": rs.object(nil)})
			rs.send(out, "response.in_progress", map[string]any{"response": rs.object(nil)})
		}
		content, reasoning, calls := p.Add(ev.text)
		if ev.done {
			c2, r2, k2 := p.Flush()
			content, reasoning, calls = content+c2, reasoning+r2, append(calls, k2...)
		}
		rs.delta(out, "reasoning", reasoning)
		rs.delta(out, "message", content)
		for _, c := range calls {
			rs.call(out, c)
		}
	}
}

// call streams a parsed tool call as a function_call item: added, its
// arguments in one delta, done.
func (rs *responseState) call(out *sse, c chat.ToolCall) {
	rs.closeItem(out, "completed")
	id, index := "fc_"+randomID(), len(rs.items)
	at := map[string]any{"item_id": id, "output_index": index}
	rs.send(out, "response.output_item.added", map[string]any{"output_index": index,
		"item": callItemJSON(c, id, "", "in_progress")})
	rs.send(out, "response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": c.Arguments})
	at["arguments"] = c.Arguments
	rs.send(out, "response.function_call_arguments.done", at)
	item := callItemJSON(c, id, c.Arguments, "completed")
	rs.send(out, "response.output_item.done", map[string]any{"output_index": index, "item": item})
	rs.items = append(rs.items, item)
}

// delta streams text of kind, opening its item first (and closing the
// other kind's).
func (rs *responseState) delta(out *sse, kind, text string) {
	if text == "" {
		return
	}
	if rs.cur == nil || rs.cur.kind != kind {
		rs.closeItem(out, "completed")
		rs.cur = &respOut{kind: kind, id: respItemID(kind), index: len(rs.items)}
		rs.send(out, "response.output_item.added", map[string]any{"output_index": rs.cur.index,
			"item": respItemJSON(kind, rs.cur.id, "", "in_progress", false)})
		rs.send(out, "response.content_part.added", rs.at(map[string]any{"part": respPartJSON(kind, "")}))
	}
	rs.cur.text.WriteString(text)
	typ := "response.output_text.delta"
	f := map[string]any{"delta": text}
	if kind == "reasoning" {
		typ = "response.reasoning_text.delta"
	} else {
		f["logprobs"] = []any{}
	}
	rs.send(out, typ, rs.at(f))
}

// at adds the current item's coordinates to an event's fields.
func (rs *responseState) at(f map[string]any) map[string]any {
	f["item_id"], f["output_index"], f["content_index"] = rs.cur.id, rs.cur.index, 0
	return f
}

// closeItem ends the item being streamed with its done events.
func (rs *responseState) closeItem(out *sse, status string) {
	c := rs.cur
	if c == nil {
		return
	}
	text := c.text.String()
	if c.kind == "reasoning" {
		rs.send(out, "response.reasoning_text.done", rs.at(map[string]any{"text": text}))
	} else {
		rs.send(out, "response.output_text.done", rs.at(map[string]any{"text": text, "logprobs": []any{}}))
	}
	rs.send(out, "response.content_part.done", rs.at(map[string]any{"part": respPartJSON(c.kind, text)}))
	item := respItemJSON(c.kind, c.id, text, status, true)
	rs.send(out, "response.output_item.done", map[string]any{"output_index": c.index, "item": item})
	rs.items = append(rs.items, item)
	rs.cur = nil
}

// finish closes the last item and sends response.completed (or
// response.incomplete) with the whole response.
func (rs *responseState) finish(out *sse, last []event) {
	rs.closeItem(out, itemStatus(last[0]))
	resp := rs.response(last)
	rs.send(out, "response."+resp["status"].(string), map[string]any{"response": resp})
}

// event writes a named Server-Sent Event.
func (s *sse) event(name string, v any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	s.w.WriteString("event: ")
	s.w.WriteString(name)
	s.w.WriteString("\n")
	s.raw(b)
}
