package server

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fasthttp"
)

// The Anthropic Messages API (POST /v1/messages and
// /v1/messages/count_tokens), mapped onto chat as llama-server does
// (server_chat_convert_anthropic_to_oai): system (a string or text
// blocks) becomes a system message; content blocks map to chat content
// (text), reasoning_content (thinking), tool_calls (tool_use) and tool
// messages (tool_result); stop_sequences becomes stop; tool_choice (auto,
// any, tool, none) becomes chat's; max_tokens
// defaults to 4096 when absent; tools become function tools; thinking
// sets the request's reasoning budget (disabled: no thinking). The other
// sampling fields (temperature, top_p, top_k, seed, …) are read as for
// chat. Images and documents are refused: the models read text only.

// messagesFields are the Messages API's own fields; the others are read
// as chat fields.
type messagesFields struct {
	System        json.RawMessage `json:"system"`
	Messages      json.RawMessage `json:"messages"`
	StopSequences json.RawMessage `json:"stop_sequences"`
	Tools         json.RawMessage `json:"tools"`
	ToolChoice    *struct {
		Type                   string `json:"type"`
		Name                   string `json:"name"`
		DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
	} `json:"tool_choice"`
	// Thinking is extended thinking: enabled with a token budget (the
	// reasoning budget of this request) or disabled (no thinking).
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens *int   `json:"budget_tokens"`
	} `json:"thinking"`
}

// toolChoice sets chat's tool_choice and parallel_tool_calls from
// Anthropic's tool_choice (auto, any, tool with a name, none).
func (f *messagesFields) toolChoice(r *rawRequest) *apiError {
	tc := f.ToolChoice
	if tc == nil {
		return nil
	}
	var v any
	switch tc.Type {
	case "auto", "none":
		v = tc.Type
	case "any":
		v = "required"
	case "tool":
		v = map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}
	default:
		return badRequest("tool_choice", "tool_choice.type must be auto, any, tool or none, got %q", tc.Type)
	}
	r.ToolChoice, _ = json.Marshal(v)
	if tc.DisableParallelToolUse {
		no := false
		r.ParallelToolCalls = &no
	}
	return nil
}

// thinkingBudget is the request's reasoning budget: -1 unlimited, 0 no
// thinking, N tokens; ok is false when the request does not say.
func (f *messagesFields) thinkingBudget() (budget int, ok bool, e *apiError) {
	switch {
	case f.Thinking == nil:
		return 0, false, nil
	case f.Thinking.Type == "disabled":
		return 0, true, nil
	case f.Thinking.Type != "enabled":
		return 0, false, badRequest("thinking", "thinking.type must be enabled or disabled, got %q", f.Thinking.Type)
	case f.Thinking.BudgetTokens == nil:
		return -1, true, nil
	case *f.Thinking.BudgetTokens < 1:
		return 0, false, badRequest("thinking", "thinking.budget_tokens must be positive")
	}
	return *f.Thinking.BudgetTokens, true, nil
}

// anthMessage is one Anthropic message.
type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthBlock is one content block; which fields matter depends on Type.
type anthBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// defaultAnthropicMaxTokens is llama-server's max_tokens when a Messages
// request has none (the API requires it; llama-server is permissive).
const defaultAnthropicMaxTokens = 4096

// messagesRequest reads a Messages body as a chat request; budget is
// the reasoning budget the request asks for (hasBudget false: the
// server's).
func messagesRequest(body []byte) (r *rawRequest, budget int, hasBudget bool, e *apiError) {
	var f messagesFields
	r = &rawRequest{}
	if e := decodeSplit(body, &f, r); e != nil {
		return nil, 0, false, e
	}
	switch {
	case r.N != nil && *r.N != 1:
		return nil, 0, false, badRequest("n", "the Messages API makes one message per request")
	case r.Stop != nil:
		return nil, 0, false, badRequest("stop", "the Messages API takes stop_sequences, not stop")
	}
	if e = f.toolChoice(r); e != nil {
		return nil, 0, false, e
	}
	if budget, hasBudget, e = f.thinkingBudget(); e != nil {
		return nil, 0, false, e
	}
	msgs, e := anthropicMessages(f)
	if e != nil {
		return nil, 0, false, e
	}
	r.Messages, r.Prompt, r.Stop = msgs, nil, f.StopSequences
	if r.MaxTokens == nil {
		n := defaultAnthropicMaxTokens
		r.MaxTokens = &n
	}
	if hasBudget && budget == 0 {
		if r.ChatTemplateKwargs == nil {
			r.ChatTemplateKwargs = map[string]any{}
		}
		r.ChatTemplateKwargs["enable_thinking"] = false
	}
	if r.Tools, e = anthropicTools(f.Tools); e != nil {
		return nil, 0, false, e
	}
	return r, budget, hasBudget, nil
}

// anthropicMessages converts system and messages.
func anthropicMessages(f messagesFields) ([]rawMessage, *apiError) {
	var out []rawMessage
	if sys := strings.TrimSpace(string(f.System)); sys != "" && sys != "null" {
		text, e := systemText(f.System)
		if e != nil {
			return nil, e
		}
		out = append(out, textMessage("system", text))
	}
	var msgs []anthMessage
	if err := json.Unmarshal(f.Messages, &msgs); err != nil || len(msgs) == 0 {
		return nil, badRequest("messages", "messages must be a non-empty list of {role, content}")
	}
	for i, m := range msgs {
		converted, e := anthropicMessage(m, i)
		if e != nil {
			return nil, e
		}
		out = append(out, converted...)
	}
	return out, nil
}

// systemText joins a system prompt given as a string or text blocks.
func systemText(raw json.RawMessage) (string, *apiError) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return normalizeBillingHeader(s), nil
	}
	var blocks []anthBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", badRequest("system", "system must be a string or a list of text blocks")
	}
	var b strings.Builder
	for i, bl := range blocks {
		if bl.Type != "text" || bl.Text == nil {
			return "", badRequest("system", "system[%d]: only text blocks are supported, got %q", i, bl.Type)
		}
		b.WriteString(normalizeBillingHeader(*bl.Text))
	}
	return b.String(), nil
}

// anthropicMessage converts message i: its text, thinking and tool_use
// blocks become one chat message, its tool_result blocks tool messages
// after it.
func anthropicMessage(m anthMessage, i int) ([]rawMessage, *apiError) {
	c := strings.TrimSpace(string(m.Content))
	switch {
	case c == "" || c == "null":
		if m.Role == "assistant" {
			return nil, nil
		}
		return nil, badRequest("messages", "messages[%d] has no content", i)
	case c[0] == '"':
		return []rawMessage{{Role: m.Role, Content: m.Content}}, nil
	}
	var blocks []anthBlock
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, badRequest("messages", "messages[%d].content must be a string or a list of content blocks", i)
	}
	var conv anthConverted
	for k, b := range blocks {
		if e := conv.add(b, i, k); e != nil {
			return nil, e
		}
	}
	return conv.messages(m.Role), nil
}

// anthConverted collects the chat side of one message's blocks.
type anthConverted struct {
	texts     []string
	reasoning string
	calls     []map[string]any
	results   []rawMessage // tool messages, after the message
}

// add converts block k of message i.
func (c *anthConverted) add(b anthBlock, i, k int) *apiError {
	switch b.Type {
	case "text":
		if b.Text == nil {
			return badRequest("messages", "messages[%d].content[%d]: a text block needs text", i, k)
		}
		c.texts = append(c.texts, *b.Text)
	case "thinking":
		c.reasoning += b.Thinking
	case "redacted_thinking": // encrypted reasoning of another model: nothing to read
	case "tool_use":
		args := "{}"
		if in := strings.TrimSpace(string(b.Input)); in != "" && in != "null" {
			args = in
		}
		c.calls = append(c.calls, map[string]any{"id": b.ID, "type": "function",
			"function": map[string]any{"name": b.Name, "arguments": args}})
	case "tool_result":
		text, e := toolResultText(b.Content, i, k)
		if e != nil {
			return e
		}
		tm := textMessage("tool", text)
		tm.ToolCallID = b.ToolUseID
		c.results = append(c.results, tm)
	case "image", "document":
		return badRequest("messages", "messages[%d].content[%d]: %s blocks are not supported: the model reads text only", i, k, b.Type)
	default:
		return badRequest("messages", "messages[%d].content[%d]: unsupported block type %q (supported: text, thinking, tool_use, tool_result)", i, k, b.Type)
	}
	return nil
}

// messages is the chat message (when it has text, calls or reasoning)
// followed by the tool messages.
func (c *anthConverted) messages(role string) []rawMessage {
	var out []rawMessage
	if len(c.texts) > 0 || len(c.calls) > 0 || c.reasoning != "" {
		msg := rawMessage{Role: role, ReasoningContent: c.reasoning}
		msg.Content = textMessage("", strings.Join(c.texts, "\n")).Content
		if len(c.calls) > 0 {
			msg.ToolCalls, _ = json.Marshal(c.calls)
		}
		out = append(out, msg)
	}
	return append(out, c.results...)
}

// toolResultText is a tool_result's content: a string or text blocks.
func toolResultText(raw json.RawMessage, i, k int) (string, *apiError) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anthBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", badRequest("messages", "messages[%d].content[%d]: tool_result content must be a string or text blocks", i, k)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" && bl.Text != nil {
			b.WriteString(*bl.Text)
		}
	}
	return b.String(), nil
}

// anthropicTools turns {name, description, input_schema} tools into chat
// function tools.
func anthropicTools(raw json.RawMessage) (json.RawMessage, *apiError) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return nil, nil
	}
	var tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, badRequest("tools", "tools must be a list of {name, description, input_schema}")
	}
	out := make([]map[string]any, len(tools))
	for i, t := range tools {
		params := json.RawMessage("{}")
		if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
			params = t.InputSchema
		}
		out[i] = map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": params}}
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// normalizeBillingHeader blanks the per-request "cch=" stamp of a Claude
// Code system prompt ("x-anthropic-billing-header: …; cch=a5145; …"),
// which changes on every request and would defeat prompt caching, as
// llama-server does.
func normalizeBillingHeader(s string) string {
	const prefix = "x-anthropic-billing-header:"
	if !strings.HasPrefix(s, prefix) {
		return s
	}
	i := strings.Index(s[len(prefix):], "cch=")
	if i < 0 {
		return s
	}
	at := len(prefix) + i + len("cch=")
	if at+5 < len(s) && s[at+5] == ';' {
		return s[:at] + "fffff" + s[at+5:]
	}
	return s
}

func (s *Server) handleMessages(ctx *fasthttp.RequestCtx) {
	r, budget, hasBudget, e := messagesRequest(ctx.PostBody())
	if e != nil {
		writeError(ctx, e)
		return
	}
	var tune func(*task)
	if hasBudget {
		tune = func(t *task) { t.thinkBudget = budget }
	}
	run, e := s.chatJob(r, "msg_", tune)
	if e != nil {
		writeError(ctx, e)
		return
	}
	j, sp := run.j, run.splitterOf(0)
	ms := &messageState{j: j}
	if j.stream {
		j.onStreamError = anthropicStreamError
		s.streamJob(ctx, j, ms.emit(sp), ms.finish)
		return
	}
	cs, e := j.collect()
	if e != nil {
		writeError(ctx, e)
		return
	}
	content, reasoning, calls := sp.all(string(cs[0].text))
	s.writeJSON(ctx, ms.message(content, reasoning, calls, cs[0].last))
}

// handleCountTokens renders the request as handleMessages would and
// counts the prompt's tokens.
func (s *Server) handleCountTokens(ctx *fasthttp.RequestCtx) {
	r, _, _, e := messagesRequest(ctx.PostBody())
	if e != nil {
		writeError(ctx, e)
		return
	}
	prompt, _, _, e := s.chatPrompt(r)
	if e != nil {
		writeError(ctx, e)
		return
	}
	s.writeJSON(ctx, map[string]int{"input_tokens": len(prompt)})
}
