package grammar

import (
	"slices"
	"testing"
)

// decode_utf8's results for pieces that split, break or continue UTF-8.
func TestDecodePiece(t *testing.T) {
	cases := []struct {
		piece string
		start partial
		cps   []uint32
		tail  partial
	}{
		{"aé", partial{}, []uint32{'a', 0xE9}, partial{0xE9, 0}},
		{"a\xc3", partial{}, []uint32{'a'}, partial{3, 1}},
		{"\xa9b", partial{3, 1}, []uint32{0xE9, 'b'}, partial{'b', 0}},
		{"\xe6\x97", partial{}, nil, partial{0x6<<6 | 0x17, 1}},
		{"x\x80y", partial{}, nil, partial{0, -1}},            // stray continuation: the whole piece is dropped
		{"b", partial{3, 1}, nil, partial{0, -1}},             // broken continuation
		{"a\x00b", partial{}, []uint32{'a'}, partial{'a', 0}}, // C string: ends at NUL
		{"", partial{5, 2}, nil, partial{5, 2}},
	}
	for _, c := range cases {
		cps, tail := decodePiece(nil, c.piece, c.start)
		if !slices.Equal(cps, c.cps) || tail != c.tail {
			t.Errorf("%q from %+v: %v %+v, want %v %+v", c.piece, c.start, cps, tail, c.cps, c.tail)
		}
	}
}

// llama_grammar_match_partial_char: the range a partial sequence can still
// complete to, with overlong two-byte starts rejected and three- and
// four-byte starts of value 0 lifted to the first code point they encode.
func TestMatchPartial(t *testing.T) {
	cases := []struct {
		class string
		pt    partial
		want  bool
	}{
		{`[a-z]`, partial{3, 1}, false}, // U+00C0..U+00FF
		{`[\u00e0-\u00ff]`, partial{3, 1}, true},
		{`[^a-z]`, partial{3, 1}, true},
		{`.`, partial{0, 1}, false}, // overlong
		{`.`, partial{1, 1}, false},
		{`.`, partial{2, 1}, true},
		{`[\x00-\u07ff]`, partial{0, 2}, false}, // E0 starts at U+0800
		{`[\u0800]`, partial{0, 2}, true},
		{`[\u4e00-\u9fa5]`, partial{6, 2}, true}, // E6: U+6000..U+6FFF
		{`[\u4e00-\u5fff]`, partial{6, 2}, false},
		{`"\u6000"`, partial{6, 2}, true},
		{`.`, partial{0, -1}, false},
	}
	for _, c := range cases {
		g := mustParse(t, "root ::= "+c.class)
		if got := g.matchPartial(g.start[g.root], c.pt); got != c.want {
			t.Errorf("%s with %+v: %v, want %v", c.class, c.pt, got, c.want)
		}
	}
}
