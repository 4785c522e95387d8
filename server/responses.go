package server

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
)

// The OpenAI Responses API (POST /v1/responses), mapped onto chat as
// llama-server does (server_chat_convert_responses_to_chatcmpl): the
// instructions become a system message, the input a string (one user
// message) or a list of items (messages, function calls and their
// outputs, reasoning), max_output_tokens becomes max_tokens, and every
// other field is read as a chat completion field (temperature, top_p,
// seed, stop, …). Responses are not stored: previous_response_id is
// refused, as by llama-server.

// responsesFields are the Responses API's own fields; the others are
// read as chat fields.
type responsesFields struct {
	Input              json.RawMessage `json:"input"`
	Instructions       *string         `json:"instructions"`
	PreviousResponseID string          `json:"previous_response_id"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Tools              json.RawMessage `json:"tools"`
	// Text is the output format: only {"format": {"type": "text"}}.
	Text *struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"text"`
	Truncation string   `json:"truncation"` // "disabled" (the only behaviour)
	Background bool     `json:"background"`
	Include    []string `json:"include"`
}

// check refuses the Responses features this server does not have.
func (f *responsesFields) check() *apiError {
	switch {
	case f.PreviousResponseID != "":
		return badRequest("previous_response_id", "previous_response_id is not supported: responses are not stored; send the whole conversation as input")
	case f.Text != nil && f.Text.Format != nil && f.Text.Format.Type != "text":
		return badRequest("text", "text.format %q is not supported: only plain text output", f.Text.Format.Type)
	case f.Truncation != "" && f.Truncation != "disabled":
		return badRequest("truncation", "truncation %q is not supported: a conversation longer than the context is an error", f.Truncation)
	case f.Background:
		return badRequest("background", "background responses are not supported")
	case len(f.Include) > 0:
		return badRequest("include", "include is not supported")
	}
	return nil
}

// respItem is one input item; which fields matter depends on its type.
type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    *string         `json:"call_id"`
	Name      *string         `json:"name"`
	Arguments *string         `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   json.RawMessage `json:"summary"`
}

// respPart is one content part of an input item.
type respPart struct {
	Type    string  `json:"type"`
	Text    *string `json:"text"`
	Refusal *string `json:"refusal"`
}

// responsesRequest reads a Responses body as a chat request.
func responsesRequest(body []byte) (*rawRequest, *responsesFields, *apiError) {
	var r rawRequest
	var f responsesFields
	if e := decodeSplit(body, &f, &r); e != nil {
		return nil, nil, e
	}
	if e := f.check(); e != nil {
		return nil, nil, e
	}
	switch {
	case r.N != nil && *r.N != 1:
		return nil, nil, badRequest("n", "the Responses API makes one response per request")
	case r.Prompt != nil:
		return nil, nil, badRequest("prompt", "prompt templates are not supported; send the text as input")
	case r.Messages != nil:
		return nil, nil, badRequest("messages", "the Responses API takes input, not messages")
	}
	msgs, e := responsesMessages(f)
	if e != nil {
		return nil, nil, e
	}
	r.Messages, r.Prompt = msgs, nil
	if f.MaxOutputTokens != nil {
		r.MaxTokens, r.MaxCompletionTokens = f.MaxOutputTokens, nil
	}
	if r.Tools, e = responsesTools(f.Tools); e != nil {
		return nil, nil, e
	}
	if r.ToolChoice, e = responsesToolChoice(r.ToolChoice); e != nil {
		return nil, nil, e
	}
	return &r, &f, nil
}

// responsesToolChoice turns the Responses form of a named tool choice
// ({"type": "function", "name": …}) into chat's; the modes (auto, none,
// required) are the same.
func responsesToolChoice(raw json.RawMessage) (json.RawMessage, *apiError) {
	var named struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if t := strings.TrimSpace(string(raw)); t == "" || t[0] != '{' {
		return raw, nil
	}
	if json.Unmarshal(raw, &named) != nil || named.Type != "function" || named.Name == "" {
		return nil, badRequest("tool_choice", `tool_choice must be "auto", "none", "required" or {"type": "function", "name": …}`)
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": named.Name}})
	return b, nil
}

// responsesMessages builds the chat messages: the instructions as a
// system message, then the input.
func responsesMessages(f responsesFields) ([]rawMessage, *apiError) {
	var out []rawMessage
	if f.Instructions != nil {
		out = append(out, textMessage("system", *f.Instructions))
	}
	in := strings.TrimSpace(string(f.Input))
	switch {
	case in == "" || in == "null":
		return nil, badRequest("input", "input is required")
	case in[0] == '"':
		var s string
		if err := json.Unmarshal(f.Input, &s); err != nil {
			return nil, badRequest("input", "input: %v", err)
		}
		return append(out, textMessage("user", s)), nil
	case in[0] != '[':
		return nil, badRequest("input", "input must be a string or a list of items")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(f.Input, &items); err != nil {
		return nil, badRequest("input", "input must be a string or a list of items")
	}
	for i, raw := range items {
		var it respItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, badRequest("input", "input[%d] must be an object: %v", i, err)
		}
		var e *apiError
		if out, e = addItem(out, it, i); e != nil {
			return nil, e
		}
	}
	return out, nil
}

// addItem appends input item i to the messages. Consecutive assistant
// items (text, function calls, reasoning) merge into one message, as in
// llama-server.
func addItem(msgs []rawMessage, it respItem, i int) ([]rawMessage, *apiError) {
	var prev *rawMessage
	if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" {
		prev = &msgs[n-1]
	}
	switch {
	case it.Role == "user" || it.Role == "system" || it.Role == "developer":
		if it.Type != "" && it.Type != "message" {
			return nil, badRequest("input", "input[%d]: a %s message has type %q, want \"message\"", i, it.Role, it.Type)
		}
		text, e := itemText(it.Content, i, "input_text")
		if e != nil {
			return nil, e
		}
		return append(msgs, textMessage(it.Role, text)), nil
	case it.Role == "assistant" && (it.Type == "" || it.Type == "message"):
		text, e := itemText(it.Content, i, "output_text", "input_text", "refusal")
		if e != nil {
			return nil, e
		}
		return mergeAssistant(msgs, prev, func(m *rawMessage) { m.Content = appendText(m.Content, text) }), nil
	case it.Type == "function_call":
		return addFunctionCall(msgs, prev, it, i)
	case it.Type == "function_call_output":
		return addFunctionOutput(msgs, it, i)
	case it.Type == "reasoning":
		text, e := reasoningText(it, i)
		if e != nil {
			return nil, e
		}
		return mergeAssistant(msgs, prev, func(m *rawMessage) { m.ReasoningContent = text }), nil
	}
	return nil, badRequest("input", "input[%d]: cannot tell what the item is (role %q, type %q)", i, it.Role, it.Type)
}

// mergeAssistant applies set to the previous assistant message, or to a
// new one.
func mergeAssistant(msgs []rawMessage, prev *rawMessage, set func(*rawMessage)) []rawMessage {
	if prev == nil {
		msgs = append(msgs, rawMessage{Role: "assistant"})
		prev = &msgs[len(msgs)-1]
	}
	set(prev)
	return msgs
}

// itemText joins the text of an item's content: a string, or parts of the
// allowed types.
func itemText(raw json.RawMessage, i int, allowed ...string) (string, *apiError) {
	c := strings.TrimSpace(string(raw))
	if c == "" || c == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("input", "input[%d].content: %v", i, err)
		}
		return s, nil
	}
	var parts []respPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest("input", "input[%d].content must be a string or a list of content parts", i)
	}
	texts := make([]string, 0, len(parts))
	for k, p := range parts {
		switch {
		case p.Type == "input_image" || p.Type == "input_file" || p.Type == "input_audio":
			return "", badRequest("input", "input[%d].content[%d]: %s is not supported: the model reads text only", i, k, p.Type)
		case !slices.Contains(allowed, p.Type):
			return "", badRequest("input", "input[%d].content[%d]: type %q, want one of %s", i, k, p.Type, strings.Join(allowed, ", "))
		case p.Type == "refusal" && p.Refusal != nil:
			texts = append(texts, *p.Refusal)
		case p.Text == nil:
			return "", badRequest("input", "input[%d].content[%d]: %s needs text", i, k, p.Type)
		default:
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

func addFunctionCall(msgs []rawMessage, prev *rawMessage, it respItem, i int) ([]rawMessage, *apiError) {
	if it.CallID == nil || it.Name == nil || it.Arguments == nil {
		return nil, badRequest("input", "input[%d]: a function_call needs call_id, name and arguments", i)
	}
	call := map[string]any{"id": *it.CallID, "type": "function",
		"function": map[string]any{"name": *it.Name, "arguments": *it.Arguments}}
	return mergeAssistant(msgs, prev, func(m *rawMessage) {
		var calls []any
		_ = json.Unmarshal(m.ToolCalls, &calls)
		m.ToolCalls, _ = json.Marshal(append(calls, call))
	}), nil
}

func addFunctionOutput(msgs []rawMessage, it respItem, i int) ([]rawMessage, *apiError) {
	if it.CallID == nil {
		return nil, badRequest("input", "input[%d]: a function_call_output needs call_id", i)
	}
	text, e := itemText(it.Output, i, "input_text")
	if e != nil {
		return nil, e
	}
	m := textMessage("tool", text)
	m.ToolCallID = *it.CallID
	return append(msgs, m), nil
}

// reasoningText is the first content text of a reasoning item.
func reasoningText(it respItem, i int) (string, *apiError) {
	var parts []respPart
	if err := json.Unmarshal(it.Content, &parts); err != nil || len(parts) == 0 || parts[0].Text == nil {
		return "", badRequest("input", "input[%d]: a reasoning item needs content [{\"type\":\"reasoning_text\",\"text\":…}]", i)
	}
	return *parts[0].Text, nil
}

// responsesTools turns Responses function tools ({type, name,
// description, parameters, strict}) into chat tools.
func responsesTools(raw json.RawMessage) (json.RawMessage, *apiError) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return nil, nil
	}
	var tools []map[string]any
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, badRequest("tools", "tools must be a list of objects")
	}
	out := make([]map[string]any, len(tools))
	for i, t := range tools {
		if t["type"] != "function" {
			return nil, badRequest("tools", "tools[%d]: only function tools are supported, got type %v", i, t["type"])
		}
		fn := map[string]any{}
		for k, v := range t {
			if k != "type" {
				fn[k] = v
			}
		}
		if _, ok := fn["strict"]; !ok {
			fn["strict"] = true
		}
		out[i] = map[string]any{"type": "function", "function": fn}
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// textMessage is a chat message with string content.
func textMessage(role, text string) rawMessage {
	b, _ := json.Marshal(text)
	return rawMessage{Role: role, Content: b}
}

// appendText adds text to a message's string content, on a new line.
func appendText(content json.RawMessage, text string) json.RawMessage {
	var cur string
	_ = json.Unmarshal(content, &cur)
	if cur != "" && text != "" {
		cur += "\n"
	}
	b, _ := json.Marshal(cur + text)
	return b
}

func (s *Server) handleResponses(ctx *fasthttp.RequestCtx) {
	r, f, e := responsesRequest(ctx.PostBody())
	if e != nil {
		writeError(ctx, e)
		return
	}
	run, e := s.chatJob(r, "resp_", nil)
	if e != nil {
		writeError(ctx, e)
		return
	}
	j, sp := run.j, run.splitterOf(0)
	rs := &responseState{j: j, instructions: f.Instructions, maxOutput: f.MaxOutputTokens}
	if j.stream {
		s.streamJob(ctx, j, rs.emit(sp), rs.finish)
		return
	}
	cs, e := j.collect()
	if e != nil {
		writeError(ctx, e)
		return
	}
	content, reasoning, calls := sp.all(string(cs[0].text))
	status := itemStatus(cs[0].last)
	if content != "" {
		rs.addItem("reasoning", reasoning, "completed")
		rs.addItem("message", content, status)
	} else {
		rs.addItem("reasoning", reasoning, status)
	}
	for _, c := range calls {
		rs.items = append(rs.items, callItemJSON(c, "fc_"+randomID(), c.Arguments, "completed"))
	}
	s.writeJSON(ctx, rs.response(lastEvents(cs)))
}
