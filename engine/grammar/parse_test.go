package grammar

import (
	"errors"
	"strings"
	"testing"
)

// The rule dumps follow llama_grammar_parser::print: generated rule names
// and numbering, repetition rewrites, classes element by element.
func TestParsePrints(t *testing.T) {
	cases := []struct{ src, want string }{
		{`root ::= "a" [b-c] | x*
x ::= [^\n] .`, `root ::= [a] [b-c] | root_2 
x ::= [^<U+000A>.] 
root_2 ::= x root_2 | 
`},
		{`root ::= ("ab" | [x-z]){2,4} "q"?`, `root ::= root_1 root_1 root_3 root_4 
root_1 ::= [a] [b] | [x-z] 
root_2 ::= root_1 | 
root_3 ::= root_1 root_2 | 
root_4 ::= [q] | 
`},
		{"root ::= [a-zA]{2} # comment\n  # more\n", "root ::= [a-zA] [a-zA] \n"},
		{`root ::= "\x41\u00e9\U0001F600\t\"\\"`, "root ::= [A] [<U+00E9>] [<U+1F600>] [<U+0009>] [\"] [\\] \n"},
		{"root ::= <[42]> !<[7]> x\nx ::= \"é\"+", "root ::= <[42]> !<[7]> x \nx ::= [<U+00E9>] x_2 \nx_2 ::= [<U+00E9>] x_2 | \n"},
		{"root ::= (\n  \"a\"\n  | \"b\"\n)", "root ::= root_1 \nroot_1 ::= [a] | [b] \n"},
	}
	for _, c := range cases {
		g, err := Parse(c.src, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := g.String(); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`root ::= root "a"`, `rule "root" is left-recursive`},
		{"root ::= a\na ::= b | \"x\"\nb ::= \"\" a", `is left-recursive`},
		{`root ::= x`, `undefined rule "x"`},
		{`a ::= "x"`, `no "root" rule`},
		{``, `no rules`},
		{`root ::= "abc`, `line 1, column 14: unterminated string literal`},
		{"root ::= \"a\"\n  | \"b\"", `line 2, column 3: expecting a name`},
		{`root ::= [a-`, `unexpected end of input`},
		{`root ::= "\q"`, `line 1, column 11: unknown escape`},
		{`root ::= "\x4"`, `expecting 2 hex digits`},
		{`root ::= "a"{3,1}`, `maximum below its minimum`},
		{`root ::= "a"{2001}`, `above 2000`},
		{`root ::= ("a"{1,50}){50}`, `reach 2000`},
		{`root ::= *`, `expecting an item before`},
		{`root ::= ("a"`, `unclosed '('`},
		{`root = "a"`, `line 1, column 6: expecting ::=`},
		{`root ::= "a" )`, `expecting newline or end`},
		{`root ::= <think>`, `needs a vocabulary`},
		{`root ::= <[99999999999]>`, `out of range`},
		{"root ::= \"a\x00\"", `NUL byte`},
		{`root ::= "a"{1,`, `expecting '}'`},
		{`root ::= "a"{x}`, `expecting an integer`},
		{"root ::= " + strings.Repeat("(", MaxNesting+1), `nest deeper`},
	}
	for _, c := range cases {
		_, err := Parse(c.src, nil)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

func TestParseTokenNames(t *testing.T) {
	tok := func(s string) []int32 {
		if s == "<think>" {
			return []int32{9}
		}
		return []int32{1, 2}
	}
	g, err := Parse(`root ::= <think> "x" !<think>`, tok)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.String(); got != "root ::= <[9]> [x] !<[9]> \n" {
		t.Fatalf("got %q", got)
	}
	if _, err := Parse(`root ::= <two>`, tok); err == nil || !strings.Contains(err.Error(), "exactly one token") {
		t.Fatalf("a reference to two tokens: %v", err)
	}
}

// The element limit stops expansions that stay under the repetition
// limits but multiply a long item.
func TestParseElementLimit(t *testing.T) {
	long := `"` + strings.Repeat("a", 5000) + `"`
	src := "root ::= x x x x x x x x x x\nx ::= " + long + "{1999}"
	if _, err := Parse(src, nil); err == nil || !strings.Contains(err.Error(), "elements") {
		t.Fatalf("got %v", err)
	}
}
