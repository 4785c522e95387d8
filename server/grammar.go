package server

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/waggle-llm/waggle/engine/chat"
	"github.com/waggle-llm/waggle/engine/grammar"
	"github.com/waggle-llm/waggle/engine/sample"
)

// grammarRequest holds a request's structured-output fields, named as in
// llama-server. cons is what they compile to, shared by the request's
// tasks (each gets its own Matcher over it).
type grammarRequest struct {
	Grammar           *string         `json:"grammar"`
	JSONSchema        json.RawMessage `json:"json_schema"`
	ResponseFormat    json.RawMessage `json:"response_format"`
	GrammarLazy       *bool           `json:"grammar_lazy"`
	GrammarTriggers   json.RawMessage `json:"grammar_triggers"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	PreservedTokens   []string        `json:"preserved_tokens"`

	cons     *constraint
	compiled bool
	inThink  bool      // the chat prompt opened a think block
	tools    *toolPlan // chat: the tools offered, nil for none
	// jsonAnswer: a chat answer constrained by a schema, whose content is
	// the JSON value without the blanks and fence the grammar allows.
	jsonAnswer bool
}

// constraint is a compiled grammar and how it applies.
type constraint struct {
	g        *grammar.Grammar
	triggers []grammar.Trigger // non-empty: lazy
	// output marks a grammar Waggle derived (json_schema, response_format,
	// tools): it applies to the answer, after any think block, as
	// llama.cpp applies output-format and tool grammars only outside
	// reasoning. A user's "grammar" applies from the first token.
	output bool
}

// grammarState is the server's vocabulary index, built on first use.
type grammarState struct {
	once sync.Once
	ix   *grammar.Index
}

func (s *Server) grammarIndex() *grammar.Index {
	s.gram.once.Do(func() { s.gram.ix = grammar.NewIndex(s.cfg.Tokenizer) })
	return s.gram.ix
}

// constrainable is implemented by samplers that take a grammar
// (*sample.Sampler).
type constrainable interface {
	SetConstraint(c sample.Constraint)
}

// grammarFor compiles the request's grammar once: "grammar" (or the
// server's --grammar default), "json_schema", or "response_format".
// Tools set r.cons themselves before this runs.
func (s *Server) grammarFor(r *rawRequest) (*constraint, *apiError) {
	g := &r.grammarRequest
	if g.compiled {
		return g.cons, nil
	}
	g.compiled = true
	src, output, e := r.grammarSource(s.cfg.Grammar, len(r.Messages) > 0)
	if e != nil {
		return nil, e
	}
	if src == "" {
		return g.cons, nil
	}
	param := "grammar"
	if output {
		param = "json_schema"
	}
	parsed, err := grammar.Parse(src, func(text string) []int32 { return s.cfg.Tokenizer.Encode(text, false, true) })
	if err != nil {
		return nil, badRequest(param, "%v", err)
	}
	c := &constraint{g: parsed, output: output}
	if c.triggers, e = r.triggers(s); e != nil {
		return nil, e
	}
	g.cons = c
	return c, nil
}

// grammarSource resolves the grammar text: at most one of grammar,
// json_schema and a schema-bearing response_format.
func (r *rawRequest) grammarSource(def string, chatRoute bool) (src string, output bool, e *apiError) {
	g := &r.grammarRequest
	schema, e := r.schemaField()
	if e != nil {
		return "", false, e
	}
	if g.Grammar != nil && *g.Grammar != "" {
		if schema != nil {
			return "", false, badRequest("grammar", `either "json_schema" (or response_format) or "grammar" can be given, not both`)
		}
		return *g.Grammar, false, nil
	}
	if schema == nil {
		return def, false, nil
	}
	var text string
	var err error
	if chatRoute {
		text, err = chatSchemaGrammar(schema)
	} else {
		text, err = grammar.SchemaToGrammar(schema)
	}
	if err != nil {
		return "", false, schemaError(err)
	}
	r.jsonAnswer = chatRoute
	return text, true, nil
}

// schemaField reads json_schema or response_format (json_object with an
// optional schema, or json_schema with json_schema.schema); nil when
// neither asks for structured output.
func (r *rawRequest) schemaField() (*grammar.Value, *apiError) {
	g := &r.grammarRequest
	if raw := strings.TrimSpace(string(g.JSONSchema)); raw != "" && raw != "null" {
		v, err := grammar.ParseJSON(g.JSONSchema)
		if err != nil {
			return nil, badRequest("json_schema", "json_schema is not valid JSON: %v", err)
		}
		return v, nil
	}
	raw := strings.TrimSpace(string(g.ResponseFormat))
	if raw == "" || raw == "null" {
		return nil, nil
	}
	rf, err := grammar.ParseJSON(g.ResponseFormat)
	if err != nil || rf.Kind != grammar.Object {
		return nil, badRequest("response_format", "response_format must be an object")
	}
	typ := ""
	if t := rf.Get("type"); t != nil && t.Kind == grammar.String {
		typ = t.Str
	}
	switch typ {
	case "", "text":
		return nil, nil
	case "json_object":
		if s := rf.Get("schema"); s != nil {
			return s, nil
		}
		return &grammar.Value{Kind: grammar.Object}, nil
	case "json_schema":
		w := rf.Get("json_schema")
		if w == nil || w.Kind != grammar.Object {
			return nil, badRequest("response_format", "response_format.json_schema must be an object with a schema")
		}
		if s := w.Get("schema"); s != nil {
			return s, nil
		}
		return &grammar.Value{Kind: grammar.Object}, nil
	}
	return nil, badRequest("response_format", `response_format type must be one of "text", "json_object" or "json_schema", got %q`, typ)
}

func schemaError(err error) *apiError {
	var se *grammar.SchemaError
	if errors.As(err, &se) {
		return badRequest("json_schema", "%s (unsupported construct: %s)", err.Error(), se.Construct)
	}
	return badRequest("json_schema", "%v", err)
}

// triggers reads grammar_lazy and grammar_triggers (llama-server's raw
// fields: {"type": "word"|"pattern"|"pattern_full"|"token", "value": …}).
func (r *rawRequest) triggers(s *Server) ([]grammar.Trigger, *apiError) {
	g := &r.grammarRequest
	if g.GrammarLazy == nil || !*g.GrammarLazy {
		return nil, nil
	}
	var raw []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
		Token *int32          `json:"token"`
	}
	if err := json.Unmarshal(g.GrammarTriggers, &raw); err != nil || len(raw) == 0 {
		return nil, badRequest("grammar_triggers", "a lazy grammar needs grammar_triggers: a non-empty list of {type, value}")
	}
	var out []grammar.Trigger
	for i, t := range raw {
		var v string
		_ = json.Unmarshal(t.Value, &v)
		switch t.Type {
		case "word":
			out = append(out, grammar.Trigger{Word: v})
		case "pattern":
			out = append(out, grammar.Trigger{Pattern: v})
		case "pattern_full":
			out = append(out, grammar.Trigger{Pattern: anchorPattern(v)})
		case "token":
			id := int32(-1)
			if t.Token != nil {
				id = *t.Token
			} else if ids := s.cfg.Tokenizer.Encode(v, false, true); len(ids) == 1 {
				id = ids[0]
			}
			if id < 0 || int(id) >= s.cfg.Tokenizer.NVocab() {
				return nil, badRequest("grammar_triggers", "grammar_triggers[%d]: %q is not one token", i, v)
			}
			out = append(out, grammar.Trigger{Token: id, IsToken: true})
		default:
			return nil, badRequest("grammar_triggers", "grammar_triggers[%d].type must be word, pattern, pattern_full or token, got %q", i, t.Type)
		}
		if t.Type != "token" && v == "" && t.Type != "pattern_full" {
			return nil, badRequest("grammar_triggers", "grammar_triggers[%d] has no value", i)
		}
	}
	return out, nil
}

// anchorPattern anchors a full-match trigger pattern as llama.cpp does.
func anchorPattern(p string) string {
	if p == "" {
		return "^$"
	}
	if !strings.HasPrefix(p, "^") {
		p = "^" + p
	}
	if !strings.HasSuffix(p, "$") {
		p += "$"
	}
	return p
}

// attachConstraint gives task t its own Matcher over the request's
// grammar and sets it on the task's sampler. A derived grammar on a prompt
// that opened a think block waits behind a thinkGate.
func (s *Server) attachConstraint(r *rawRequest, t *task) *apiError {
	t.preserved = s.preserved(r)
	c, e := s.grammarFor(r)
	if e != nil || c == nil {
		return e
	}
	smp, ok := t.smp.(constrainable)
	if !ok {
		return newError(500, "server_error", "this server's sampler cannot apply grammars")
	}
	ix := s.grammarIndex()
	if len(c.triggers) > 0 {
		m, err := grammar.NewLazyMatcher(c.g, ix, c.triggers)
		if err != nil {
			return badRequest("grammar_triggers", "%v", err)
		}
		t.gram = m
	} else {
		t.gram = grammar.NewMatcher(c.g, ix)
	}
	if err := t.gram.Err(); err != nil {
		return badRequest("grammar", "%v", err)
	}
	if c.output && r.inThink {
		smp.SetConstraint(&thinkGate{m: t.gram, waiting: true, piece: s.cfg.Tokenizer.Piece})
	} else {
		smp.SetConstraint(t.gram)
	}
	return nil
}

// grammarFailed ends the slot's task when its grammar can no longer be
// followed (a grammar too ambiguous to track, or a vocabulary that cannot
// spell what it requires), and reports whether it did.
func (s *scheduler) grammarFailed(sl *slot) bool {
	if t := sl.t; t != nil && t.gram != nil {
		if err := t.gram.Err(); err != nil {
			t.send(event{done: true, err: err}) // the KV cache is intact: release as finish does
			s.release(sl)
			return true
		}
	}
	return false
}

// thinkGate holds a derived grammar back while the model thinks: every
// token is allowed until the generated text closes the think block, then
// the grammar constrains the rest (llama.cpp applies output-format and
// tool grammars only outside reasoning).
type thinkGate struct {
	m       *grammar.Matcher
	waiting bool
	tail    string
	piece   func(id int32, special bool) string
}

func (g *thinkGate) Allowed(tok int32) bool { return g.waiting || g.m.Allowed(tok) }

func (g *thinkGate) Filter(c []sample.Candidate) {
	if !g.waiting {
		g.m.Filter(c)
	}
}

func (g *thinkGate) Accept(tok int32) {
	if !g.waiting {
		g.m.Accept(tok)
		return
	}
	g.tail += g.piece(tok, true)
	if strings.Contains(g.tail, chat.ThinkClose) {
		g.waiting, g.tail = false, ""
		return
	}
	if len(g.tail) > 64 {
		g.tail = g.tail[len(g.tail)-len(chat.ThinkClose):]
	}
}

// CloneConstraint copies the gate and its grammar state.
func (g *thinkGate) CloneConstraint() sample.Constraint {
	c := *g
	c.m = g.m.Clone()
	return &c
}

// chatSchemaGrammar is the grammar llama.cpp's chat path builds for a
// response format (without the generation prompt it prefills): the
// schema's value, after blanks, bare or in a ```json fence.
func chatSchemaGrammar(schema *grammar.Value) (string, error) {
	c := grammar.NewConverter()
	s := schema.Copy()
	c.ResolveRefs(s)
	c.AddRule("response-format", c.Visit(s, "response-format-schema"))
	c.AddRule("root", "space space (\"```json\" space response-format space \"```\" | response-format)")
	return c.Grammar()
}
