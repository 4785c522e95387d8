package grammar

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine/sample"
)

// toyVocab has single characters, multi-character pieces that cross
// grammar boundaries, UTF-8 split across tokens, an invalid byte, an empty
// piece and an end-of-generation token (id 0).
func toyVocab() *testVocab {
	pieces := []string{"</s>", ""}
	for c := ' '; c <= '~'; c++ {
		pieces = append(pieces, string(c))
	}
	pieces = append(pieces, "\n", "ab", "abc", "{\"", "\":", "\"a", "12", "true", "false", "null", ", ",
		"é", "日本", "\xe6", "\x97\xa5", "\x97", "\xa5", "\x80", "a\x00b", "<think>", "ba", "aaa", " {", "}\n", "\xc3")
	return &testVocab{pieces: pieces, eog: map[int32]bool{0: true}}
}

var testGrammars = []string{
	`root ::= "a" [b-c]* "d"? | x+
x ::= [^\n] "."`,
	`root ::= "{" ws "\"" [a-z]+ "\"" ws ":" ws value ws "}"
value ::= "true" | "false" | "null" | [0-9]+ | "\"" [^"]* "\""
ws ::= [ \t\n]*`,
	`root ::= ("ab" | "a" "b" "c"){1,3} .`,
	`root ::= "日本" [^a-z]* "é"`,
	`root ::= <[5]> "a" !<[7]> [0-9]{2,4}`,
	`root ::= expr
expr ::= term (("+" | "-") term)*
term ::= [0-9]+ | "(" expr ")"`,
	`root ::= [a-c] root | ""`,
	`root ::= .* "z"`,
}

func mustParse(t testing.TB, src string) *Grammar {
	t.Helper()
	g, err := Parse(src, nil)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return g
}

// matcherAllowed lists the tokens Filter leaves finite, checking that
// Allowed agrees token by token.
func matcherAllowed(t *testing.T, m *Matcher, n int) []int32 {
	t.Helper()
	c := make([]sample.Candidate, n)
	for i := range c {
		c[i] = sample.Candidate{ID: int32(i)}
	}
	m.Filter(c)
	var out []int32
	for _, x := range c {
		ok := !math.IsInf(float64(x.Logit), -1)
		if ok {
			out = append(out, x.ID)
		}
		if m.Allowed(x.ID) != ok {
			t.Fatalf("token %d: Allowed %v, Filter %v", x.ID, !ok, ok)
		}
	}
	return out
}

// The Matcher's allowed sets equal the reference transcription of
// llama.cpp along random walks through every test grammar.
func TestMatcherMatchesReference(t *testing.T) {
	v := toyVocab()
	ix := NewIndex(v)
	for gi, src := range testGrammars {
		g := mustParse(t, src)
		for seed := range 20 {
			r := rand.New(rand.NewPCG(uint64(gi), uint64(seed)))
			m := NewMatcher(g, ix)
			ref := newRef(g, v)
			for step := 0; step < 40; step++ {
				got := matcherAllowed(t, m, len(v.pieces))
				want := ref.allowed()
				if !slices.Equal(got, want) {
					t.Fatalf("grammar %d seed %d step %d: allowed %v, reference %v", gi, seed, step, got, want)
				}
				if len(want) == 0 {
					break
				}
				tok := want[r.IntN(len(want))]
				if v.eog[tok] {
					break
				}
				m.Accept(tok)
				if !ref.accept(tok) {
					if m.Err() == nil {
						t.Fatalf("grammar %d: reference died on %q, matcher did not", gi, v.pieces[tok])
					}
					break
				}
				if err := m.Err(); err != nil {
					t.Fatalf("grammar %d step %d: %v", gi, step, err)
				}
			}
		}
	}
}

func TestMatcherRejectedAcceptFails(t *testing.T) {
	v := toyVocab()
	m := NewMatcher(mustParse(t, `root ::= "a"`), NewIndex(v))
	b := int32(slices.Index(v.pieces, "b"))
	if m.Allowed(b) {
		t.Fatal("b allowed")
	}
	m.Accept(b)
	if m.Err() == nil {
		t.Fatal("accepting a rejected token must fail the matcher")
	}
	if !m.Allowed(0) || m.Allowed(int32(slices.Index(v.pieces, "a"))) {
		t.Fatal("a failed matcher allows end of generation only")
	}
}

func TestMatcherEOGOnlyWhenComplete(t *testing.T) {
	v := toyVocab()
	m := NewMatcher(mustParse(t, `root ::= "ab"`), NewIndex(v))
	if m.Allowed(0) {
		t.Fatal("EOG allowed before the grammar is complete")
	}
	m.Accept(int32(slices.Index(v.pieces, "ab")))
	if !m.Allowed(0) || !m.Done() {
		t.Fatal("EOG not allowed after the grammar completed")
	}
}

func TestClonesAreIndependent(t *testing.T) {
	v := toyVocab()
	m := NewMatcher(mustParse(t, `root ::= [ab]+ "c"`), NewIndex(v))
	a, c := int32(slices.Index(v.pieces, "a")), int32(slices.Index(v.pieces, "c"))
	cl := m.Clone()
	cl.Accept(a)
	cl.Accept(c)
	if !cl.Done() || m.Done() {
		t.Fatal("the clone's progress leaked into the original")
	}
	if n := m.AllowedPrefix([]int32{a, a, c, a}); n != 3 {
		t.Fatalf("AllowedPrefix = %d, want 3", n)
	}
	if !m.Allowed(a) || m.Allowed(c) {
		t.Fatal("AllowedPrefix moved the matcher")
	}
}
