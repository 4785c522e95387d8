package tokenizer

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUnknownNamesRefused(t *testing.T) {
	if _, err := NewVocab("sentencepiece-xl", ""); err == nil || !strings.Contains(err.Error(), `"sentencepiece-xl"`) {
		t.Errorf("unknown model: err = %v", err)
	}
	if _, err := NewVocab("gpt2", "llama5-bpe"); err == nil || !strings.Contains(err.Error(), `"llama5-bpe"`) {
		t.Errorf("unknown pre: err = %v", err)
	}
	v := &Vocab{Model: "gpt2", Pre: "mystery", Tokens: []string{"a"}}
	if _, err := New(v); err == nil || !strings.Contains(err.Error(), `"mystery"`) {
		t.Errorf("New with unknown pre: err = %v", err)
	}
	m := mapMeta{"tokenizer.ggml.model": "t9", "tokenizer.ggml.tokens": []string{"a"}}
	if _, err := vocabFromMeta(m); err == nil || !strings.Contains(err.Error(), `"t9"`) {
		t.Errorf("metadata with unknown model: err = %v", err)
	}
	m = mapMeta{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "zzz",
		"tokenizer.ggml.tokens": []string{"a"}, "tokenizer.ggml.merges": []string{}}
	if _, err := vocabFromMeta(m); err == nil || !strings.Contains(err.Error(), `"zzz"`) {
		t.Errorf("metadata with unknown pre: err = %v", err)
	}
}

func TestBadVocabRefused(t *testing.T) {
	cases := map[string]*Vocab{
		"empty":     {Model: "llama"},
		"duplicate": {Model: "llama", Tokens: []string{"a", "b", "a"}},
		"scores":    {Model: "llama", Tokens: []string{"a", "b"}, Scores: []float32{0}},
		"types":     {Model: "llama", Tokens: []string{"a", "b"}, Types: []int32{1}},
	}
	for name, v := range cases {
		if _, err := New(v); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := vocabFromMeta(mapMeta{}); err == nil {
		t.Error("metadata without a model accepted")
	}
}

// mapMeta is a metadata source backed by a map, for load tests.
type mapMeta map[string]any

func (m mapMeta) String(k string) (string, bool)      { v, ok := m[k].(string); return v, ok }
func (m mapMeta) Uint(k string) (uint64, bool)        { v, ok := m[k].(uint64); return v, ok }
func (m mapMeta) Int(k string) (int64, bool)          { v, ok := m[k].(int64); return v, ok }
func (m mapMeta) Bool(k string) (bool, bool)          { v, ok := m[k].(bool); return v, ok }
func (m mapMeta) Strings(k string) ([]string, bool)   { v, ok := m[k].([]string); return v, ok }
func (m mapMeta) Float32s(k string) ([]float32, bool) { v, ok := m[k].([]float32); return v, ok }
func (m mapMeta) Int32s(k string) ([]int32, bool)     { v, ok := m[k].([]int32); return v, ok }

func TestMetadataDefaults(t *testing.T) {
	toks := make([]string, 200)
	for i := range toks {
		toks[i] = string(rune('A' + i))
	}
	v, err := vocabFromMeta(mapMeta{"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": toks,
		"tokenizer.ggml.eos_token_id": uint64(7), "tokenizer.ggml.bos_token_id": uint64(5000),
		"tokenizer.ggml.add_bos_token": false})
	if err != nil {
		t.Fatal(err)
	}
	if v.BOS != 1 || v.EOS != 7 || v.UNK != 0 || v.AddBOS || !v.AddSpacePrefix {
		t.Errorf("SPM defaults: bos %d eos %d unk %d add_bos %v space %v", v.BOS, v.EOS, v.UNK, v.AddBOS, v.AddSpacePrefix)
	}
	v, _ = NewVocab("gpt2", "llama-bpe")
	if !v.AddBOS || v.AddSpacePrefix {
		t.Errorf("llama-bpe defaults: add_bos %v space %v", v.AddBOS, v.AddSpacePrefix)
	}
	v, _ = NewVocab("bert", "")
	if v.BOS != 101 || v.SEP != 102 || v.UNK != 100 || !v.AddBOS {
		t.Errorf("bert defaults: %+v", v)
	}
}

func TestSpecialTokens(t *testing.T) {
	l3 := loadVocab(t, "llama-bpe")
	for _, id := range []int32{128001, 128008, 128009} {
		if !l3.IsEOG(id) {
			t.Errorf("llama-bpe: %d (%s) not EOG", id, l3.Token(id))
		}
	}
	if l3.IsEOG(128000) || l3.IsEOG(1000) {
		t.Error("llama-bpe: BOS or a word is EOG")
	}
	text := "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
	got := l3.Encode(text, true, true)
	want := []int32{128000, 128006, 882, 128007, 271, 13347, 128009}
	if !slices.Equal(got, want) {
		t.Errorf("parse_special: got %v want %v", got, want)
	}
	if plain := l3.Encode(text, false, false); slices.Contains(plain, 128009) {
		t.Errorf("control token parsed without parse_special: %v", plain)
	}
	if got := l3.Decode(want, false, true); got != "<|begin_of_text|>"+text {
		t.Errorf("Decode(unparse) = %q", got)
	}
	if got := l3.Decode(want, true, false); got != "user\n\nHi" {
		t.Errorf("Decode(remove, hide) = %q", got)
	}
	q := loadVocab(t, "qwen2")
	for _, s := range []string{"<|endoftext|>", "<|im_end|>"} {
		if id := q.textToID[s]; !q.IsEOG(id) {
			t.Errorf("qwen2: %s not EOG", s)
		}
	}
	if q.AddBOS() || q.Piece(151700, true) != "" {
		t.Error("qwen2: add_bos or unused token piece")
	}
}

func TestSPMDecodeSpace(t *testing.T) {
	tk := loadVocab(t, "llama-spm")
	ids := tk.Encode("Hello world", true, false)
	if ids[0] != tk.BOS() {
		t.Fatalf("no BOS: %v", ids)
	}
	// llama_detokenize strips the prefix space only when no BOS was removed.
	if got := tk.Decode(ids[1:], false, false); got != "Hello world" {
		t.Errorf("without BOS: %q", got)
	}
	if got := tk.Decode(ids, true, false); got != " Hello world" {
		t.Errorf("BOS removed: %q", got)
	}
	if got := tk.Decode(ids, false, true); got != "<s> Hello world" {
		t.Errorf("BOS shown: %q", got)
	}
	if tk.NL() != 13 || tk.Piece(13, false) != "\n" {
		t.Errorf("newline token %d %q", tk.NL(), tk.Piece(13, false))
	}
}

func TestCleanSpaces(t *testing.T) {
	cases := map[string]string{
		"a , b . c ? d !":      "a, b. c? d!",
		"it ' s":               "it's",
		"he 's she 'm we 're":  "he's she'm we're",
		"don 't you 'd we 'll": "don 't you 'd we 'll",
		" ' ' ":                "'' ",
		"":                     "",
	}
	for in, want := range cases {
		if got := string(cleanSpaces([]byte(in))); got != want {
			t.Errorf("cleanSpaces(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStreamSplitsCharacters(t *testing.T) {
	tk := loadVocab(t, "llama-spm")
	text := "héllo 世界 🙂 Ωmega"
	var ids []int32
	for i := 0; i < len(text); i++ {
		ids = append(ids, tk.spm.byteTok[text[i]])
	}
	d := tk.NewStreamDecoder(false)
	var all strings.Builder
	for _, id := range ids {
		chunk := d.Add(id)
		if !utf8.ValidString(chunk) {
			t.Fatalf("chunk %q is not UTF-8", chunk)
		}
		all.WriteString(chunk)
	}
	all.WriteString(d.Flush())
	if all.String() != text || all.String() != tk.Decode(ids, false, false) {
		t.Errorf("stream %q, Decode %q, want %q", all.String(), tk.Decode(ids, false, false), text)
	}
	// Bytes that can never form a character are not held back.
	d = tk.NewStreamDecoder(false)
	if got := d.Add(tk.spm.byteTok[0xFF]); got != "\xff" {
		t.Errorf("invalid byte held back: %q", got)
	}
	if got := d.Add(tk.spm.byteTok[0xE4]); got != "" {
		t.Errorf("incomplete lead emitted: %q", got)
	}
	if got := d.Add(tk.spm.byteTok['a']); got != "\xe4a" {
		t.Errorf("broken sequence: %q", got)
	}
}

func TestPieceBounds(t *testing.T) {
	tk := loadVocab(t, "gpt-2")
	if tk.Piece(-1, true) != "" || tk.Piece(1<<30, true) != "" || tk.Token(-5) != "" {
		t.Error("out-of-range ids must render empty")
	}
	if got := tk.Decode([]int32{-3, 40, 1 << 30}, false, false); got != tk.Piece(40, false) {
		t.Errorf("Decode with bad ids = %q", got)
	}
	if tk.NVocab() != 50257 {
		t.Errorf("NVocab %d", tk.NVocab())
	}
}
