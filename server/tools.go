package server

import (
	"crypto/rand"

	"github.com/waggle-llm/waggle/engine/chat"
	"github.com/waggle-llm/waggle/engine/grammar"
)

// toolPlan is a chat request's tool setup: the family the template writes
// calls in, the offered tools and the choice.
type toolPlan struct {
	format   chat.ToolFormat
	tools    []chat.Tool
	choice   chat.ToolChoice
	parallel bool
}

// planTools reads tools, tool_choice and parallel_tool_calls, rejects
// combinations llama-server rejects, and compiles the tool-call grammar
// into the request (the grammar that "grammar" would otherwise give). It
// returns nil when the request offers no tools or chose none.
func (s *Server) planTools(r *rawRequest) (*toolPlan, *apiError) {
	tools, err := chat.ParseTools(r.Tools)
	if err != nil {
		return nil, badRequest("tools", "%v", err)
	}
	g := &r.grammarRequest
	choice, err := chat.ParseToolChoice(g.ToolChoice, tools)
	if err != nil {
		return nil, badRequest("tool_choice", "%v", err)
	}
	if len(tools) > 0 {
		r.Tools = chat.ToolsJSON(tools) // what the template sees, as llama.cpp normalises it
	}
	if len(tools) == 0 {
		if choice.Forced() {
			return nil, badRequest("tool_choice", "tool_choice %q needs tools", choice.Mode)
		}
		return nil, nil
	}
	if choice.Mode == "none" {
		return nil, nil
	}
	if g.Grammar != nil && *g.Grammar != "" {
		return nil, badRequest("grammar", "cannot specify a grammar with tools (use tool_choice \"none\")")
	}
	if schema, e := r.schemaField(); e != nil || schema != nil {
		if e != nil {
			return nil, e
		}
		return nil, badRequest("response_format", "response_format and json_schema cannot be combined with tools (use tool_choice \"none\")")
	}
	p := &toolPlan{format: chat.DetectToolFormat(s.tmpl.Source()), tools: tools, choice: choice,
		parallel: g.ParallelToolCalls == nil || *g.ParallelToolCalls}
	tg, err := p.format.Grammar(tools, choice, p.parallel)
	if err != nil {
		return nil, schemaError(err)
	}
	parsed, err := grammar.Parse(tg.Source, nil)
	if err != nil {
		return nil, badRequest("tools", "the tool-call grammar does not parse: %v", err)
	}
	g.cons, g.compiled = &constraint{g: parsed, triggers: tg.Triggers, output: true}, true
	return p, nil
}

// withToolSystem adds the generic format's instruction to the system
// message (llama.cpp's add_system).
func (p *toolPlan) withToolSystem(msgs []chat.Message) []chat.Message {
	if p == nil || p.format != chat.ToolsGeneric {
		return msgs
	}
	if len(msgs) > 0 && msgs[0].Role == "system" {
		out := append([]chat.Message(nil), msgs...)
		out[0].Content += "\n" + chat.GenericSystemPrompt
		return out
	}
	return append([]chat.Message{{Role: "system", Content: chat.GenericSystemPrompt}}, msgs...)
}

// preserved returns the ids of the single tokens spelling the request's
// preserved_tokens and its tool family's markers, which the output shows
// even when they are special tokens (llama.cpp's preserved_tokens; a text
// that is not one token is ignored, as there).
func (s *Server) preserved(r *rawRequest) map[int32]bool {
	texts := r.PreservedTokens
	if r.tools != nil {
		texts = append(texts, r.tools.format.PreservedTokens()...)
	}
	if len(texts) == 0 {
		return nil
	}
	out := map[int32]bool{}
	for _, m := range texts {
		if ids := s.cfg.Tokenizer.Encode(m, false, true); len(ids) == 1 {
			out[ids[0]] = true
		}
	}
	return out
}

// pieceOf is the text a generated token adds to the output: special tokens
// are hidden except the task's preserved markers.
func (s *scheduler) pieceOf(t *task, tok int32) string {
	return s.tok.Piece(tok, t.preserved[tok])
}

// answer post-processes one choice's content: tool calls out of it, or
// the JSON value out of a response_format answer.
type answer struct {
	tools *chat.ToolParser
	json  *chat.JSONAnswer
}

// newAnswers returns one answer parser per choice (nil when the content
// stays as generated).
func (r *rawRequest) newAnswers(n int) []*answer {
	p := r.tools
	if p == nil && !r.jsonAnswer {
		return nil
	}
	out := make([]*answer, n)
	for i := range out {
		out[i] = &answer{}
		if p != nil {
			out[i].tools = chat.NewToolParser(p.format, p.tools, newCallID)
		} else {
			out[i].json = &chat.JSONAnswer{}
		}
	}
	return out
}

// add passes streamed content through; done flushes.
func (a *answer) add(content string, done bool) (string, []chat.ToolCall) {
	if a.json != nil {
		s := a.json.Add(content)
		if done {
			s += a.json.Flush()
		}
		return s, nil
	}
	text, calls := a.tools.Add(content)
	if done {
		t2, k2 := a.tools.Flush()
		text, calls = text+t2, append(calls, k2...)
	}
	return text, calls
}

func (a *answer) calls() int {
	if a.tools == nil {
		return 0
	}
	return a.tools.Calls()
}

// newCallID makes a tool call id as llama.cpp does: 32 random letters
// and digits.
func newCallID() string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b [32]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b[:])
}

// toolCallsJSON shapes calls for message.tool_calls, or, with index set,
// for delta.tool_calls starting at index first.
func toolCallsJSON(calls []chat.ToolCall, first int, delta bool) []map[string]any {
	out := make([]map[string]any, len(calls))
	for i, c := range calls {
		m := map[string]any{"id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		if delta {
			m["index"] = first + i
		}
		out[i] = m
	}
	return out
}

// addToolCalls puts the answer's content and calls into msg and returns
// the finish reason: "tool_calls" when the answer called a tool and ended
// by itself (llama.cpp: an end-of-generation token or a stop word).
func addToolCalls(msg map[string]any, a *answer, content, finish string) string {
	text, calls := a.add(content, true)
	msg["content"] = text
	if len(calls) == 0 {
		return finish
	}
	msg["tool_calls"] = toolCallsJSON(calls, 0, false)
	if finish == "stop" {
		return "tool_calls"
	}
	return finish
}

// streamToolCalls passes a streamed content piece through the choice's
// answer parser, puts completed calls into delta.tool_calls and returns
// the content left and the finish reason.
func streamToolCalls(a *answer, ev event, content string, delta map[string]any) (string, string) {
	text, calls := a.add(content, ev.done)
	if len(calls) > 0 {
		delta["tool_calls"] = toolCallsJSON(calls, a.calls()-len(calls), true)
	}
	finish := ev.finish
	if ev.done && a.calls() > 0 && finish == "stop" {
		finish = "tool_calls"
	}
	return text, finish
}
