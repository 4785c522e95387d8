package tokenizer

import "testing"

// TestFIMTokens: the fill-in-the-middle ids of real vocabularies, found
// by their texts as llama.cpp does, and -1 where a vocabulary has none.
func TestFIMTokens(t *testing.T) {
	cases := []struct {
		vocab              string
		pre, suf, mid, rep string // "" = absent
		sep                string
	}{
		// llama.cpp's texts for repo and file separator are <|repo_name|>,
		// <reponame>, … and <|file_sep|>: starcoder's <repo_name> and
		// <file_sep> are not among them.
		{"starcoder", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "", ""},
		{"refact", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<reponame>", ""},
		{"deepseek-coder", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "", ""},
		{"llama-spm", "", "", "", "", ""},
	}
	for _, c := range cases {
		tk := loadVocab(t, c.vocab)
		for _, f := range []struct {
			name string
			id   int32
			want string
		}{{"pre", tk.FIMPre(), c.pre}, {"suf", tk.FIMSuf(), c.suf}, {"mid", tk.FIMMid(), c.mid}, {"rep", tk.FIMRep(), c.rep}, {"sep", tk.FIMSep(), c.sep}} {
			switch {
			case f.want == "" && f.id != -1:
				t.Errorf("%s: fim %s = %d (%q), want none", c.vocab, f.name, f.id, tk.Token(f.id))
			case f.want != "" && (f.id < 0 || tk.Token(f.id) != f.want):
				t.Errorf("%s: fim %s = %d, want %q", c.vocab, f.name, f.id, f.want)
			}
		}
	}
}
