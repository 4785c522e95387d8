package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSPMPiecewiseEqualsWhole: cutting the text where no token can join two
// characters gives the same ids as merging the whole text as one piece, as
// llama.cpp does, on random mixes of the characters the vocabulary knows.
func TestSPMPiecewiseEqualsWhole(t *testing.T) {
	for _, name := range []string{"llama-spm", "phi-3", "baichuan"} {
		tk := loadVocab(t, name)
		m := tk.spm
		var alphabet []string
		for tok := range tk.textToID {
			if len(tok) <= 8 && !isSpecialLike(tok) {
				alphabet = append(alphabet, tok)
			}
		}
		slices.Sort(alphabet)
		r := rand.New(rand.NewPCG(1, 2))
		s := &session{}
		for range 300 {
			var text []byte
			for range 1 + r.IntN(60) {
				text = append(text, alphabet[r.IntN(len(alphabet))]...)
			}
			got := m.encode(tk, s, text, nil)
			want := m.encodePiece(tk, s, text, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %q: piecewise %v, whole %v", name, text, got, want)
			}
		}
	}
}

func isSpecialLike(s string) bool { return len(s) > 2 && s[0] == '<' && s[len(s)-1] == '>' }
