package server

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/waggle-llm/waggle/engine/chat"
)

// chatPrompt normalises the messages, renders the template and tokenizes
// the result. It also reports whether the prompt opened a <think> block.
func (s *Server) chatPrompt(r *rawRequest) ([]int32, string, bool, *apiError) {
	if len(r.Messages) == 0 {
		return nil, "", false, badRequest("messages", "messages must be a non-empty array")
	}
	msgs := make([]chat.Message, len(r.Messages))
	for i, m := range r.Messages {
		cm, e := normaliseMessage(m, i)
		if e != nil {
			return nil, "", false, e
		}
		msgs[i] = cm
	}
	kwargs := map[string]any{}
	for k, v := range s.cfg.ChatTemplateKwargs {
		kwargs[k] = v
	}
	if s.cfg.ReasoningBudget == 0 {
		kwargs["enable_thinking"] = false
	}
	for k, v := range r.ChatTemplateKwargs {
		kwargs[k] = v
	}
	if v, ok := kwargs["enable_thinking"]; ok {
		if _, isBool := v.(bool); !isBool {
			return nil, "", false, badRequest("chat_template_kwargs", "enable_thinking must be a boolean")
		}
	}
	msgs = r.tools.withToolSystem(msgs)
	addGen := r.AddGenerationPrompt == nil || *r.AddGenerationPrompt
	text, err := s.tmpl.Render(chat.Inputs{
		Messages: msgs, Tools: r.Tools, AddGenerationPrompt: addGen, Kwargs: kwargs,
		BOS: s.tokenText(s.cfg.Tokenizer.BOS()), EOS: s.tokenText(s.cfg.Tokenizer.EOS()),
	})
	if errors.Is(err, chat.ErrBudget) {
		return nil, "", false, newError(500, "server_error", "the model's chat template failed: %v", err)
	}
	if err != nil {
		return nil, "", false, badRequest("messages", "%v", err)
	}
	if bos := s.tokenText(s.cfg.Tokenizer.BOS()); s.cfg.Tokenizer.AddBOS() && bos != "" {
		text = strings.TrimPrefix(text, bos) // the tokenizer adds it
	}
	inThink := strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), chat.ThinkOpen)
	return s.cfg.Tokenizer.Encode(text, true, true), text, inThink, nil
}

func (s *Server) tokenText(id int32) string { return tokenText(s.cfg.Tokenizer, id) }

// tokenText is token id's text, or "" for an id outside the vocabulary.
func tokenText(tk Tokenizer, id int32) string {
	if id < 0 || int(id) >= tk.NVocab() {
		return ""
	}
	return tk.Token(id)
}

var roles = map[string]string{"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool"}

// normaliseMessage accepts content as a string, null, or a list of text
// parts (joined with newlines, as llama.cpp does for string templates).
func normaliseMessage(m rawMessage, i int) (chat.Message, *apiError) {
	role, ok := roles[m.Role]
	if !ok {
		return chat.Message{}, badRequest("messages", "messages[%d].role must be system, user, assistant or tool, got %q", i, m.Role)
	}
	out := chat.Message{Role: role, ReasoningContent: m.ReasoningContent, Name: m.Name, ToolCallID: m.ToolCallID, ToolCalls: m.ToolCalls}
	raw := strings.TrimSpace(string(m.Content))
	switch {
	case raw == "" || raw == "null":
		if role != "assistant" {
			return out, badRequest("messages", "messages[%d] has no content", i)
		}
	case raw[0] == '"':
		if err := json.Unmarshal(m.Content, &out.Content); err != nil {
			return out, badRequest("messages", "messages[%d].content: %v", i, err)
		}
	case raw[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return out, badRequest("messages", "messages[%d].content must be a string or a list of parts", i)
		}
		var texts []string
		for k, p := range parts {
			if p.Type != "text" {
				return out, badRequest("messages", "messages[%d].content[%d]: only text parts are supported, got %q", i, k, p.Type)
			}
			texts = append(texts, p.Text)
		}
		out.Content = strings.Join(texts, "\n")
	default:
		return out, badRequest("messages", "messages[%d].content must be a string or a list of parts", i)
	}
	return out, nil
}

func (s *Server) handleChat(ctx *fasthttp.RequestCtx) {
	var r rawRequest
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	if r.Prompt != nil && len(r.Messages) == 0 {
		writeError(ctx, badRequest("messages", "chat completions take messages, not prompt"))
		return
	}
	run, e := s.chatJob(&r, "chatcmpl-", nil)
	if e != nil {
		writeError(ctx, e)
		return
	}
	j, parsers, prefill, tps := run.j, run.parsers, run.prefill, run.answers
	if j.stream {
		s.streamChat(ctx, j, parsers, prefill, tps)
		return
	}
	cs, e := j.collect()
	if e != nil {
		writeError(ctx, e)
		return
	}
	s.writeJSON(ctx, s.chatResponse(j, cs, parsers, prefill, tps))
}

// chatRun is a queued chat job with, per choice, its reasoning parser,
// the text reasoning_format none puts first (thinkPrefill) and its answer
// parser (tool calls or a JSON answer; nil slice when the content stays
// as generated).
type chatRun struct {
	j       *job
	parsers []*chat.Reasoning
	prefill []string
	answers []*answer
}

// chatJob plans r's tools, renders its messages and queues the job
// (tune, when set, adjusts each task first). The chat-shaped routes
// (/v1/responses, /v1/messages) share it after converting their requests.
func (s *Server) chatJob(r *rawRequest, prefix string, tune func(*task)) (*chatRun, *apiError) {
	format, err := chat.ParseReasoningFormat(firstNonEmpty(r.ReasoningFormat, s.cfg.ReasoningFormat))
	if err != nil {
		return nil, badRequest("reasoning_format", "%v", err)
	}
	var e *apiError
	if r.tools, e = s.planTools(r); e != nil {
		return nil, e
	}
	prompt, text, inThink, e := s.chatPrompt(r)
	if e != nil {
		return nil, e
	}
	r.inThink = inThink
	j, e := s.newJob(r, [][]int32{prompt}, prefix, true)
	if e != nil {
		return nil, e
	}
	for _, t := range j.tasks {
		t.inThink, t.closeThink = inThink, s.closeThink()
		if tune != nil {
			tune(t)
		}
	}
	if e := s.submit(j); e != nil {
		return nil, e
	}
	run := &chatRun{j: j, parsers: make([]*chat.Reasoning, len(j.tasks)), prefill: make([]string, len(j.tasks)),
		answers: r.newAnswers(len(j.tasks))}
	for i := range run.parsers {
		run.parsers[i] = chat.NewReasoning(format, inThink)
		run.prefill[i] = thinkPrefill(format, inThink, text)
	}
	return run, nil
}

// thinkPrefill is what reasoning_format "none" puts before the model's
// text when the prompt itself opened the thought (a template ending its
// generation prompt with "<think>\n"): the prompt's text from that last
// <think> on, so the content reads "<think>\n…</think>…" as llama-server
// returns it. Other formats move the thought to reasoning_content.
func thinkPrefill(format string, inThink bool, prompt string) string {
	if format != "none" || !inThink {
		return ""
	}
	return prompt[strings.LastIndex(prompt, chat.ThinkOpen):]
}

// closeThink is the text forced when the reasoning budget runs out.
func (s *Server) closeThink() []int32 {
	return s.cfg.Tokenizer.Encode("\n"+chat.ThinkClose+"\n\n", false, true)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *Server) chatResponse(j *job, cs []*choice, parsers []*chat.Reasoning, prefill []string, tps []*answer) map[string]any {
	choices := make([]map[string]any, len(cs))
	for i, c := range cs {
		p := parsers[i]
		c1, r1 := p.Add(string(c.text))
		c2, r2 := p.Flush()
		msg := map[string]any{"role": "assistant", "content": prefill[i] + c1 + c2}
		finish := c.last.finish
		if tps != nil {
			finish = addToolCalls(msg, tps[i], c1+c2, finish)
		}
		if r1+r2 != "" {
			msg["reasoning_content"] = r1 + r2
		}
		ch := map[string]any{"index": i, "message": msg, "finish_reason": finish, "logprobs": nil}
		if j.logprobs {
			ch["logprobs"] = map[string]any{"content": chatLogprobs(c.probs)}
		}
		choices[i] = ch
	}
	u, tm := j.totals(lastEvents(cs))
	return map[string]any{
		"id": j.id, "object": "chat.completion", "created": j.created, "model": j.model,
		"system_fingerprint": fingerprint, "choices": choices, "usage": u, "timings": tm,
	}
}

// fingerprint stands in for llama-server's build fingerprint.
const fingerprint = "waggle"

// streamChat streams chat.completion.chunk events: a role delta, content
// and reasoning deltas (or tool-call deltas when the request has tools), a
// finish chunk per choice, then (include_usage) a usage chunk, and [DONE].
// The last chunk before [DONE] carries the timings, as llama-server's does.
func (s *Server) streamChat(ctx *fasthttp.RequestCtx, j *job, parsers []*chat.Reasoning, prefill []string, tps []*answer) {
	chunk := func(choices []map[string]any) map[string]any {
		return map[string]any{"id": j.id, "object": "chat.completion.chunk", "created": j.created,
			"model": j.model, "system_fingerprint": fingerprint, "choices": choices}
	}
	started := make([]bool, len(j.tasks))
	emit := func(out *sse, ev event) {
		if !started[ev.index] {
			started[ev.index] = true
			out.data(chunk([]map[string]any{{"index": ev.index, "finish_reason": nil,
				"delta": map[string]any{"role": "assistant", "content": nil}}}))
		}
		content, reasoning := parsers[ev.index].Add(ev.text)
		if ev.done {
			c2, r2 := parsers[ev.index].Flush()
			content, reasoning = content+c2, reasoning+r2
		}
		if content != "" || ev.done {
			content, prefill[ev.index] = prefill[ev.index]+content, ""
		}
		delta := map[string]any{}
		finish := ev.finish
		if tps != nil {
			content, finish = streamToolCalls(tps[ev.index], ev, content, delta)
		}
		if content != "" {
			delta["content"] = content
		}
		if reasoning != "" {
			delta["reasoning_content"] = reasoning
		}
		if len(delta) > 0 || (j.logprobs && len(ev.probs) > 0) {
			ch := map[string]any{"index": ev.index, "finish_reason": nil, "delta": delta}
			if j.logprobs {
				ch["logprobs"] = map[string]any{"content": chatLogprobs(ev.probs)}
			}
			out.data(chunk([]map[string]any{ch}))
		}
		if ev.done {
			c := chunk([]map[string]any{{"index": ev.index, "finish_reason": finish, "delta": map[string]any{}}})
			if !j.usage {
				_, c["timings"] = j.totals([]event{ev})
			}
			out.data(c)
		}
	}
	finish := func(out *sse, last []event) {
		u, tm := j.totals(last)
		if j.usage {
			c := chunk([]map[string]any{})
			c["usage"], c["timings"] = u, tm
			out.data(c)
		}
		out.raw([]byte("[DONE]"))
	}
	s.streamJob(ctx, j, emit, finish)
}

// chatLogprobs shapes OpenAI's chat logprobs content entries.
func chatLogprobs(ps []tokenLogprobs) []map[string]any {
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

// byteList gives the bytes as a JSON array of numbers (not base64).
func byteList(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

func (s *Server) writeJSON(ctx *fasthttp.RequestCtx, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(ctx, newError(500, "server_error", "encoding the response: %v", err))
		return
	}
	ctx.SetContentType("application/json; charset=utf-8")
	ctx.SetBody(b)
}
