package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine/grammar"
)

// A grammar, a JSON schema and response_format constrain the output on
// every generation route, streamed or not.
func TestGrammarConstrainsOutput(t *testing.T) {
	ts := newTestServer(t, nil)
	digits := regexp.MustCompile(`^[0-9]{3,8}$`)
	cases := []struct {
		path, body string
		ok         func(string) bool
	}{
		{"/completion", `{"prompt": "once upon", "n_predict": 12, "temperature": 0, "grammar": "root ::= [0-9]{3,8}"}`, digits.MatchString},
		{"/v1/completions", `{"prompt": "once upon", "max_tokens": 12, "temperature": 0.9, "seed": 3, "grammar": "root ::= [0-9]{3,8}"}`, digits.MatchString},
		{"/v1/chat/completions", `{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 40, "temperature": 0,
			"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema":
			{"type": "object", "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}}, "required": ["n", "ok"]}}}}`, validObject("n", "ok")},
		{"/v1/chat/completions", `{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 40, "temperature": 0,
			"json_schema": {"enum": ["red", "green"]}}`, func(s string) bool { return s == `"red"` || s == `"green"` }},
	}
	for _, c := range cases {
		code, m := ts.post(t, c.path, c.body)
		if code != 200 {
			t.Fatalf("%s: status %d: %v", c.path, code, m)
		}
		text := completionText(t, m)
		if !c.ok(strings.TrimSpace(text)) {
			t.Errorf("%s %s: output %q does not match the grammar", c.path, c.body, text)
		}
	}
}

func validObject(keys ...string) func(string) bool {
	return func(s string) bool {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) != nil {
			return false
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				return false
			}
		}
		return true
	}
}

func completionText(t *testing.T, m map[string]any) string {
	t.Helper()
	if c, ok := m["content"].(string); ok {
		return c
	}
	ch := m["choices"].([]any)[0].(map[string]any)
	if txt, ok := ch["text"].(string); ok {
		return txt
	}
	return ch["message"].(map[string]any)["content"].(string)
}

// Bad structured-output fields are 400s that name the field.
func TestGrammarBadRequests(t *testing.T) {
	ts := newTestServer(t, nil)
	cases := []struct{ body, param, msg string }{
		{`{"prompt": "a", "grammar": "root ::= x"}`, "grammar", `undefined rule "x"`},
		{`{"prompt": "a", "grammar": "root ::= root \"a\""}`, "grammar", "left-recursive"},
		{`{"prompt": "a", "grammar": "root ::= \"a\"", "json_schema": {"type": "string"}}`, "grammar", "not both"},
		{`{"prompt": "a", "json_schema": {"type": "frobnicate"}}`, "json_schema", "unsupported construct: type"},
		{`{"prompt": "a", "json_schema": {"$ref": "https://example.com/s.json"}}`, "json_schema", "unsupported construct: $ref"},
		{`{"prompt": "a", "json_schema": {"type": "string", "pattern": "^(?=a)b$"}}`, "json_schema", "unsupported construct: pattern"},
		{`{"prompt": "a", "response_format": {"type": "yaml"}}`, "response_format", "must be one of"},
		{`{"prompt": "a", "grammar": "root ::= \"a\"", "grammar_lazy": true}`, "grammar_triggers", "needs grammar_triggers"},
	}
	for _, c := range cases {
		code, m := ts.post(t, "/completion", c.body)
		if code != 400 {
			t.Errorf("%s: status %d, want 400", c.body, code)
			continue
		}
		e := errorOf(t, m)
		if e["param"] != c.param || !strings.Contains(e["message"].(string), c.msg) {
			t.Errorf("%s: error %v, want param %q and a message containing %q", c.body, e, c.param, c.msg)
		}
	}
}

// --grammar is the default for requests that bring none.
func TestGrammarServerDefault(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Grammar = `root ::= "yes" | "no"` })
	code, m := ts.post(t, "/completion", `{"prompt": "once", "n_predict": 8, "temperature": 0}`)
	if got := completionText(t, m); code != 200 || got != "yes" && got != "no" {
		t.Fatalf("status %d, output %q", code, got)
	}
	code, m = ts.post(t, "/completion", `{"prompt": "once", "n_predict": 8, "temperature": 0, "grammar": "root ::= \"maybe\""}`)
	if got := completionText(t, m); code != 200 || got != "maybe" {
		t.Fatalf("a request's grammar must replace the default: status %d, output %q", code, got)
	}
}

// Under a grammar, a speculating server answers exactly what a plain one
// answers (drafts the grammar rejects are cut before verification).
func TestGrammarWithSpeculation(t *testing.T) {
	plain := newTestServer(t, func(c *Config) { c.Parallel, c.CtxSize = 3, 768 })
	specd := newTestServer(t, withSpec(false))
	extra := `, "grammar": "root ::= [^eE]{10,40}"`
	drafted := 0
	for _, p := range specPrompts {
		want, _ := greedy(t, plain, p, extra)
		got, tm := greedy(t, specd, p, extra)
		if got != want {
			t.Fatalf("prompt %s: speculative %q, plain %q", p, got, want)
		}
		if strings.ContainsAny(got, "eE") {
			t.Fatalf("output %q breaks the grammar", got)
		}
		drafted += num(tm, "draft_n")
	}
	if drafted == 0 {
		t.Fatal("nothing was drafted; the test needs drafts")
	}
}

// preserved_tokens shows special tokens in the output (a grammar forces
// <unk> here, which is otherwise hidden).
func TestPreservedTokens(t *testing.T) {
	ts := newTestServer(t, nil)
	body := `{"prompt": "x", "n_predict": 4, "temperature": 0, "grammar": "root ::= \"a\" <[0]> \"b\""%s}`
	_, m := ts.post(t, "/completion", jsonf(body, ""))
	if got := completionText(t, m); got != "ab" {
		t.Fatalf("without preserved_tokens: %q", got)
	}
	_, m = ts.post(t, "/completion", jsonf(body, `, "preserved_tokens": ["<unk>"]`))
	if got := completionText(t, m); got != "a<unk>b" {
		t.Fatalf("with preserved_tokens: %q", got)
	}
}

// A derived grammar waits while the model thinks: everything is allowed
// until the output closes the think block, then the grammar applies.
func TestThinkGate(t *testing.T) {
	ts := newTestServer(t, nil)
	tk := ts.cfg.Tokenizer
	g, err := grammar.Parse(`root ::= " "? "yes"`, nil) // SPM pieces may start with a space
	if err != nil {
		t.Fatal(err)
	}
	gate := &thinkGate{m: grammar.NewMatcher(g, ts.grammarIndex()), waiting: true, piece: tk.Piece}
	byPiece := func(p string) int32 {
		for id := range int32(tk.NVocab()) {
			if tk.Piece(id, true) == p {
				return id
			}
		}
		t.Fatalf("no token %q", p)
		return -1
	}
	z := byPiece("z")
	if !gate.Allowed(z) {
		t.Fatal("a waiting gate must allow everything")
	}
	for _, tok := range tk.Encode("hmm </think>", false, true) {
		gate.Accept(tok)
	}
	y := byPiece("y")
	if gate.waiting || gate.Allowed(z) || !gate.Allowed(y) {
		t.Fatalf("after </think> the grammar must apply (waiting %v)", gate.waiting)
	}
	c := gate.CloneConstraint().(*thinkGate)
	c.Accept(y)
	if gate.m.Done() || !gate.Allowed(y) {
		t.Fatal("the clone's progress leaked into the original")
	}
}
