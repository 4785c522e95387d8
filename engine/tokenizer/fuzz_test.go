package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"", " ", "Hello world", "  leading\tand\ttrailing  \n\n", "I'm sure they'll've it's",
	"3333333 + 1.5e10 = ?", "func main() { fmt.Println(\"hi\") }\n", "naïve café Ωμέγα Привет",
	"你好，世界！ 日本語 한국어", "emoji 🙂👍🏽🇩🇪", "<|endoftext|><s></s><|im_end|>[CLS]",
	"\xff\xfe invalid \xc3\x28 \xe2\x82 \xf0\x9f\x98", "\u2581\u2581x", "\x00\x01\x7f\u0085\u3000",
}

// FuzzEncode: no input, valid or not, makes any tokenizer panic, hang or
// return an id outside its vocabulary; decoding the result never panics.
func FuzzEncode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true, true)
	}
	tks := make([]*Tokenizer, 0, len(vocabFiles))
	for _, name := range vocabFiles {
		tks = append(tks, loadVocab(f, name))
	}
	f.Fuzz(func(t *testing.T, s string, addSpecial, parseSpecial bool) {
		for _, tk := range tks {
			ids := tk.Encode(s, addSpecial, parseSpecial)
			for _, id := range ids {
				if id < 0 || int(id) >= tk.NVocab() {
					t.Fatalf("%s/%s: id %d out of range for %q", tk.Model(), tk.Pre(), id, s)
				}
			}
			_ = tk.Decode(ids, addSpecial, parseSpecial)
		}
	})
}

// FuzzRoundTripBPE: byte-level BPE loses nothing; the pieces of the tokens
// of valid UTF-8 are the text again. (Decode additionally applies the
// vocab's clean_up_tokenization_spaces, which is not an identity.)
func FuzzRoundTripBPE(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	tk := loadVocab(f, "gpt-2")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		ids := tk.Encode(s, false, false)
		var sb strings.Builder
		for _, id := range ids {
			sb.WriteString(tk.Piece(id, true))
		}
		if sb.String() != s {
			t.Fatalf("round trip of %q: %q (%v)", s, sb.String(), ids)
		}
	})
}

// FuzzRoundTripSPM: with byte fallback, SPM loses nothing either; Decode
// removes the space prefix it added. U+2581 in the input cannot survive
// (it is the escaped space), so such inputs are skipped.
func FuzzRoundTripSPM(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	tk := loadVocab(f, "llama-spm")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.Contains(s, "\u2581") {
			t.Skip()
		}
		ids := tk.Encode(s, false, false)
		if got := tk.Decode(ids, false, true); got != s {
			t.Fatalf("round trip of %q: %q (%v)", s, got, ids)
		}
	})
}

// FuzzStream: whatever the token sequence, the stream's chunks concatenate
// to the pieces, and a chunk is only invalid UTF-8 when the pieces are.
func FuzzStream(f *testing.F) {
	f.Add([]byte("héllo 世界 🙂"), false)
	f.Add([]byte{0xF0, 0x9F, 0x99, 0x82, 0xE4, 0xB8}, true)
	tk := loadVocab(f, "llama-spm")
	f.Fuzz(func(t *testing.T, data []byte, special bool) {
		var ids []int32
		for i, b := range data {
			if i%5 == 4 {
				ids = append(ids, int32(b)*97%int32(tk.NVocab()))
			} else {
				ids = append(ids, tk.spm.byteTok[b])
			}
		}
		d := tk.NewStreamDecoder(special)
		var all, pieces strings.Builder
		for _, id := range ids {
			all.WriteString(d.Add(id))
			pieces.WriteString(tk.Piece(id, special))
		}
		all.WriteString(d.Flush())
		if all.String() != pieces.String() {
			t.Fatalf("stream %q != pieces %q", all.String(), pieces.String())
		}
		if utf8.ValidString(pieces.String()) {
			d = tk.NewStreamDecoder(special)
			for _, id := range ids {
				if c := d.Add(id); !utf8.ValidString(c) {
					t.Fatalf("chunk %q invalid in valid text %q", c, pieces.String())
				}
			}
		}
	})
}
