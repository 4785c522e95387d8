package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
)

// fimTok is a synthetic vocabulary: byte b is token 1000+b, specials are
// small ids, and FIM tokens are what the test says.
type fimTok struct {
	addBOS                  bool
	pre, suf, mid, rep, sep int32
}

func (f fimTok) Encode(text string, addSpecial, _ bool) []int32 {
	var out []int32
	if addSpecial && f.addBOS {
		out = append(out, 1)
	}
	for i := range len(text) {
		out = append(out, 1000+int32(text[i]))
	}
	return out
}
func (f fimTok) Piece(id int32, _ bool) string { return string(rune(id - 1000)) }
func (f fimTok) Token(id int32) string         { return f.Piece(id, true) }
func (f fimTok) IsEOG(id int32) bool           { return id == 2 }
func (f fimTok) BOS() int32                    { return 1 }
func (f fimTok) EOS() int32                    { return 2 }
func (f fimTok) AddBOS() bool                  { return f.addBOS }
func (f fimTok) NVocab() int                   { return 1256 }
func (f fimTok) FIMPre() int32                 { return f.pre }
func (f fimTok) FIMSuf() int32                 { return f.suf }
func (f fimTok) FIMMid() int32                 { return f.mid }
func (f fimTok) FIMRep() int32                 { return f.rep }
func (f fimTok) FIMSep() int32                 { return f.sep }

// TestInfillPromptLayout checks format_prompt_infill's layout: the repo
// header and file separators (or snippet separators without them), BOS,
// prefix with the prompt, suffix, middle; the suffix-first order of
// --spm-infill; and the truncation of prefix, suffix and extra context.
func TestInfillPromptLayout(t *testing.T) {
	repo := fimTok{addBOS: true, pre: 12, suf: 13, mid: 14, rep: 10, sep: 11}
	plain := fimTok{pre: 12, suf: 13, mid: 14, rep: -1, sep: -1}
	e := func(s string) []int32 { return plain.Encode(s, false, false) }
	cat := func(parts ...[]int32) []int32 { return slices.Concat(parts...) }
	id := func(ids ...int32) []int32 { return ids }
	extra := []extraChunk{{"f1", "E1"}, {"f2", "E2"}}
	wide := fimLayout{nBatch: 64, nPredict: -1, nCtx: 256}
	cases := []struct {
		name   string
		tk     fimTok
		l      fimLayout
		prefix string
		suffix string
		extra  []extraChunk
		want   []int32
	}{
		{"repo-level", repo, wide, "abc", "xyz", extra, cat(
			id(10), e("myproject\n"), id(11), e("f1\n"), e("E1"), id(11), e("f2\n"), e("E2"), id(11), e("filename\n"),
			id(1), id(12), e("abc"), e("p"), id(13), e("xyz"), id(14))},
		{"snippets", plain, wide, "abc", "xyz", extra, cat(
			e(fimSnippet), e("E1"), e(fimSnippet), e("E2"), id(12), e("abc"), e("p"), id(13), e("xyz"), id(14))},
		{"spm", plain, fimLayout{nBatch: 64, nPredict: -1, nCtx: 256, spm: true}, "abc", "xyz", nil, cat(
			id(13), e("xyz"), id(12), e("abc"), e("p"), id(14))},
		// nBatch 8: the prefix keeps its last 6 tokens, the suffix none
		// (8/4 - 2 - len(prompt) < 0); nCtx 20 - 8 - 2·4 = 4 extra tokens,
		// the end of the extra context.
		{"truncated", repo, fimLayout{nBatch: 8, nPredict: 4, nCtx: 20}, "abcdefgh", "xyz", extra, cat(
			e("ame\n"), id(1), id(12), e("cdefgh"), e("p"), id(13), id(14))},
		// nBatch 32: the suffix keeps 32/4 - 2 - 1 = 5 tokens, its start.
		{"suffix cut", plain, fimLayout{nBatch: 32, nPredict: -1, nCtx: 256}, "abc", "uvwxyz", nil, cat(
			id(12), e("abc"), e("p"), id(13), e("uvwxy"), id(14))},
	}
	for _, c := range cases {
		got := infillPrompt(c.tk, c.tk, c.l, e(c.prefix), e(c.suffix), e("p"), c.extra)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
}

// TestInfillRefused: without FIM tokens /infill is 501 with the missing
// tokens named, as llama-server answers; stories260K has none either.
func TestInfillRefused(t *testing.T) {
	for name, ts := range map[string]*testServer{
		"demo":        newTestServer(t, nil),
		"stories260K": serveLoaded(t, loadShared(t, "stories260K-f32.gguf"), nil),
	} {
		code, m := ts.post(t, "/infill", `{"input_prefix":"a","input_suffix":"b"}`)
		msg, _ := errorOf(t, m)["message"].(string)
		if code != 501 || errorOf(t, m)["type"] != "not_supported_error" ||
			!strings.Contains(msg, "prefix token is missing. suffix token is missing. middle token is missing.") {
			t.Fatalf("%s: %d %v", name, code, m)
		}
	}
}

// fimDemo is the demo network with three byte tokens declared as its FIM
// prefix, suffix and middle tokens.
func fimDemo(t *testing.T) *testServer {
	return serveLoaded(t, demoWith(t,
		gguf.KV{Key: "tokenizer.ggml.fim_pre_token_id", Value: gguf.Uint32Value(4)},
		gguf.KV{Key: "tokenizer.ggml.fim_suf_token_id", Value: gguf.Uint32Value(5)},
		gguf.KV{Key: "tokenizer.ggml.fim_mid_token_id", Value: gguf.Uint32Value(6)},
	), nil)
}

// TestInfillAnswersAsCompletion: /infill answers exactly what /completion
// answers for the laid-out prompt, in /completion's shape, streaming too.
func TestInfillAnswersAsCompletion(t *testing.T) {
	ts := fimDemo(t)
	v := ts.cfg.Tokenizer.(fimVocab)
	enc := func(s string) []int32 { return ts.cfg.Tokenizer.Encode(s, false, false) }
	l := fimLayout{nBatch: ts.cfg.BatchSize, nPredict: ts.cfg.NPredict, nCtx: ts.NCtx()}
	ids := infillPrompt(ts.cfg.Tokenizer, v, l, enc("once upon"), enc("the end"), ts.cfg.Tokenizer.Encode("a", false, true),
		[]extraChunk{{"x.txt", "the dog"}})
	if ids[0] != 1 || ids[len(ids)-1] != 6 || !slices.Contains(ids, 4) || !slices.Contains(ids, 5) {
		t.Fatalf("prompt %v lacks BOS or the FIM tokens", ids)
	}
	pj, _ := json.Marshal(ids)
	code, want := ts.post(t, "/completion", jsonf(`{"prompt":%s,"n_predict":5,"temperature":0}`, pj))
	if code != 200 {
		t.Fatal(want)
	}
	body := `{"input_prefix":"once upon","input_suffix":"the end","prompt":"a","input_extra":[{"filename":"x.txt","text":"the dog"}],"n_predict":5,"temperature":0}`
	code, got := ts.post(t, "/infill", body)
	if code != 200 || got["content"] != want["content"] || got["tokens_evaluated"].(float64) != float64(len(ids)) || got["stop"] != true {
		t.Fatalf("infill %d %v\nwant content %q from %d prompt tokens", code, got, want["content"], len(ids))
	}
	code, stream := ts.do(t, "POST", "/infill", strings.Replace(body, `"temperature":0`, `"temperature":0,"stream":true`, 1))
	var text string
	for _, ev := range sseEvents(t, stream) {
		var m map[string]any
		if err := json.Unmarshal([]byte(ev), &m); err != nil {
			t.Fatal(err)
		}
		text += m["content"].(string)
	}
	if code != 200 || text != want["content"] {
		t.Fatalf("streamed %q, want %q", text, want["content"])
	}
}

func TestInfillRefusesBadFields(t *testing.T) {
	ts := fimDemo(t)
	for _, body := range []string{
		`{"input_suffix":"b"}`, `{"input_prefix":"a"}`, `{"input_prefix":"a","input_suffix":"b","prompt":[1]}`,
		`{"input_prefix":"a","input_suffix":"b","input_extra":{}}`, `{"input_prefix":"a","input_suffix":"b","input_extra":[{"filename":"f"}]}`,
		`{"input_prefix":{},"input_suffix":"b"}`, `{"input_prefix":"a","input_suffix":[1.5]}`,
		`{"input_prefix":[99999],"input_suffix":"b"}`, `{"input_prefix":"a","input_suffix":"b","bogus":1}`,
	} {
		code, m := ts.post(t, "/infill", body)
		if code != 400 {
			t.Fatalf("%s: %d %v", body, code, m)
		}
		errorOf(t, m)
	}
}
