package grammar

import (
	"slices"
	"testing"
)

func tokIDs(t *testing.T, v *testVocab, pieces ...string) []int32 {
	t.Helper()
	var out []int32
	for _, p := range pieces {
		i := slices.Index(v.pieces, p)
		if i < 0 {
			t.Fatalf("no token %q", p)
		}
		out = append(out, int32(i))
	}
	return out
}

// Until the trigger word appears everything is allowed; from the word on
// (even when it starts inside a token) the grammar constrains the rest.
func TestLazyWordTrigger(t *testing.T) {
	v := toyVocab()
	v.pieces = append(v.pieces, "x<thi", "nk>q")
	ix := NewIndex(v)
	g := mustParse(t, `root ::= "<think>" [a-z]+ "!"`)
	m, err := NewLazyMatcher(g, ix, []Trigger{{Word: "<think>"}})
	if err != nil {
		t.Fatal(err)
	}
	toks := tokIDs(t, v, "1", "x<thi", "nk>q", "!", "?")
	if !m.Allowed(toks[4]) || !m.Allowed(0) {
		t.Fatal("a waiting grammar must allow everything")
	}
	m.Accept(toks[0])
	m.Accept(toks[1])
	if !m.Waiting() {
		t.Fatal("triggered before the word was complete")
	}
	m.Accept(toks[2]) // "<think>q" replayed from the trigger on
	if m.Waiting() || m.Err() != nil {
		t.Fatalf("not triggered: waiting %v, err %v", m.Waiting(), m.Err())
	}
	if m.Allowed(toks[4]) || m.Allowed(0) || !m.Allowed(toks[3]) {
		t.Fatal("after the trigger the grammar must constrain")
	}
}

// A pattern starts the grammar at its first non-empty capture group; a
// token trigger starts it with that token.
func TestLazyPatternAndTokenTriggers(t *testing.T) {
	v := toyVocab()
	ix := NewIndex(v)
	g := mustParse(t, `root ::= "ab" [0-9]+`)
	m, err := NewLazyMatcher(g, ix, []Trigger{{Pattern: `[\s\S]*?(ab)[\s\S]*`}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range tokIDs(t, v, "x", "y", "ab") {
		m.Accept(id)
	}
	if m.Waiting() || m.Allowed(tokIDs(t, v, "a")[0]) || !m.Allowed(tokIDs(t, v, "1")[0]) {
		t.Fatalf("pattern trigger: waiting %v", m.Waiting())
	}
	g2 := mustParse(t, `root ::= <[5]> "a"`)
	m2, err := NewLazyMatcher(g2, ix, []Trigger{{Token: 5, IsToken: true}})
	if err != nil {
		t.Fatal(err)
	}
	m2.Accept(7)
	m2.Accept(5)
	if m2.Waiting() || !m2.Allowed(tokIDs(t, v, "a")[0]) || m2.Allowed(5) {
		t.Fatal("token trigger did not start the grammar with the token")
	}
	if _, err := NewLazyMatcher(g2, ix, []Trigger{{Pattern: `(?<=a)b`}}); err == nil {
		t.Fatal("an invalid pattern must be an error")
	}
}
