package grammar

import (
	"slices"
	"strings"
	"testing"
)

var hostileGrammars = []string{
	"root ::= a\na ::= \"x\" a \"y\" | \"x\" a \"z\" | \"\"",
	"root ::= (\"a\" | \"a\" \"a\")*",
	"root ::= " + strings.Repeat("(", 40) + "\"a\"" + strings.Repeat(")*", 40),
	"root ::= x{2000}\nx ::= \"ab\"",
	"root ::= [\\U0010FFFF-\\U00000000]",
	"root ::= \"\xff\xfe\"",
	"root ::= .{0,1999}",
}

// FuzzParse: any text parses or fails with a SyntaxError; a grammar that
// parses prints without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range append(slices.Clone(testGrammars), hostileGrammars...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := Parse(src, func(string) []int32 { return []int32{3} })
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		_ = g.String()
	})
}

// FuzzMatcher drives a Matcher with a fuzzed grammar along fuzzed token
// choices and compares every allowed set with the reference transcription
// of llama.cpp while the parse stays small enough for the reference.
func FuzzMatcher(f *testing.F) {
	for i, s := range append(slices.Clone(testGrammars), hostileGrammars...) {
		f.Add(s, []byte{byte(i), 3, 1, 4, 1, 5, 9, 2, 6})
	}
	v := toyVocab()
	ix := NewIndex(v)
	f.Fuzz(func(t *testing.T, src string, choices []byte) {
		if len(src) > 512 || len(choices) > 24 {
			return
		}
		g, err := Parse(src, nil)
		if err != nil || len(g.elems) > 4096 {
			return
		}
		m := NewMatcher(g, ix)
		ref := (*refGrammar)(nil)
		if m.Err() == nil && len(m.stacks) <= 64 {
			ref = newRef(g, v)
		}
		for _, ch := range choices {
			if m.Err() != nil || len(m.stacks) > 64 {
				ref = nil
			}
			got := allowedList(m, len(v.pieces))
			if ref != nil {
				if want := ref.allowed(); !slices.Equal(got, want) {
					t.Fatalf("allowed %v, reference %v", got, want)
				}
			}
			if len(got) == 0 {
				return
			}
			tok := got[int(ch)%len(got)]
			if v.eog[tok] {
				return
			}
			m.Accept(tok)
			if ref != nil && !ref.accept(tok) {
				return
			}
		}
	})
}

func allowedList(m *Matcher, n int) []int32 {
	var out []int32
	for id := range int32(n) {
		if m.Allowed(id) {
			out = append(out, id)
		}
	}
	return out
}

// FuzzSchemaToGrammar: any JSON converts to a grammar or an error, without
// panics, hangs or unbounded output.
func FuzzSchemaToGrammar(f *testing.F) {
	for _, s := range []string{`{}`, `{"type": "object", "properties": {"a": {"type": "string", "pattern": "^a(b|c){2,3}$"}}}`,
		`{"type": "integer", "minimum": -12, "maximum": 345}`, `{"anyOf": [{"$ref": "#/$defs/x"}], "$defs": {"x": {"enum": [1, "a"]}}}`,
		`{"allOf": [{"properties": {"a": {}}}, {"anyOf": [{"properties": {"b": {}}}]}]}`, `{"type": "array", "items": {"type": "number"}, "minItems": 3}`,
		`{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		v, err := ParseJSON([]byte(s))
		if err != nil {
			return
		}
		g, err := SchemaToGrammar(v)
		if err == nil && len(g) > 1<<20 {
			t.Fatalf("a %d-byte schema gave a %d-byte grammar", len(s), len(g))
		}
	})
}
