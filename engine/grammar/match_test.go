package grammar

import "testing"

// llama_grammar_match_char over the class forms GBNF has.
func TestMatchChar(t *testing.T) {
	cases := []struct {
		class string
		yes   []rune
		no    []rune
	}{
		{`.`, []rune{'a', '\n', 0, 0x10FFFF, 'é'}, nil},
		{`[a-cx]`, []rune{'a', 'b', 'c', 'x'}, []rune{'d', 'w', 'A'}},
		{`[^a-cx]`, []rune{'d', '\n', 'é'}, []rune{'a', 'c', 'x'}},
		{`[a-zA-Z0-9_]`, []rune{'q', 'Q', '5', '_'}, []rune{'-', ' '}},
		{`"é"`, []rune{'é'}, []rune{'e'}},
		{`[\u3041-\u3093]`, []rune{'ぁ', 'か', 'ん'}, []rune{'ア', 'a'}},
	}
	for _, c := range cases {
		g := mustParse(t, "root ::= "+c.class)
		pos := g.start[g.root]
		for _, r := range c.yes {
			if !g.matchChar(pos, uint32(r)) {
				t.Errorf("%s must match %q", c.class, r)
			}
		}
		for _, r := range c.no {
			if g.matchChar(pos, uint32(r)) {
				t.Errorf("%s must not match %q", c.class, r)
			}
		}
	}
}
