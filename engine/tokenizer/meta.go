package tokenizer

import (
	"errors"
	"slices"
)

// metadata is the part of *gguf.File the loader reads. Keeping it an
// interface lets the loader run on any GGUF reader (the tests use a tiny
// one of their own).
type metadata interface {
	String(key string) (string, bool)
	Uint(key string) (uint64, bool)
	Int(key string) (int64, bool)
	Bool(key string) (bool, bool)
	Strings(key string) ([]string, bool)
	Float32s(key string) ([]float32, bool)
	Int32s(key string) ([]int32, bool)
}

// vocabFromMeta reads the tokenizer.ggml.* keys the way llama.cpp's
// llama_vocab::load does: defaults per model type, then the file's values.
// Special ids outside the vocabulary are ignored (the default stays).
func vocabFromMeta(m metadata) (*Vocab, error) {
	model, ok := m.String("tokenizer.ggml.model")
	if !ok {
		return nil, errors.New("tokenizer: missing tokenizer.ggml.model")
	}
	pre, _ := m.String("tokenizer.ggml.pre")
	v, err := NewVocab(model, pre)
	if err != nil {
		return nil, err
	}
	v.Name, _ = m.String("general.name")
	if v.Tokens, ok = m.Strings("tokenizer.ggml.tokens"); !ok {
		return nil, errors.New("tokenizer: missing tokenizer.ggml.tokens")
	}
	if s, ok := m.Float32s("tokenizer.ggml.scores"); ok {
		v.Scores = slices.Clone(s)
	}
	if t, ok := m.Int32s("tokenizer.ggml.token_type"); ok {
		v.Types = slices.Clone(t)
	}
	if model == "gpt2" {
		if v.Merges, ok = m.Strings("tokenizer.ggml.merges"); !ok {
			return nil, errors.New("tokenizer: BPE vocabulary without tokenizer.ggml.merges")
		}
	}
	readBool(m, "tokenizer.ggml.add_space_prefix", &v.AddSpacePrefix)
	readSpecialIDs(m, v)
	readBool(m, "tokenizer.ggml.add_bos_token", &v.AddBOS)
	readBool(m, "tokenizer.ggml.add_eos_token", &v.AddEOS)
	readBool(m, "tokenizer.ggml.add_sep_token", &v.AddSEP)
	return v, v.validate()
}

func readBool(m metadata, key string, dst *bool) {
	if b, ok := m.Bool(key); ok {
		*dst = b
	}
}

// readSpecialIDs applies the *_token_id keys in llama.cpp's order (the
// deprecated prefix/suffix/middle keys last, overriding the fim ones).
func readSpecialIDs(m metadata, v *Vocab) {
	keys := []struct {
		key string
		dst *int32
	}{
		{"bos_token_id", &v.BOS}, {"eos_token_id", &v.EOS}, {"eot_token_id", &v.EOT},
		{"eom_token_id", &v.EOM}, {"unknown_token_id", &v.UNK}, {"seperator_token_id", &v.SEP},
		{"padding_token_id", &v.PAD}, {"mask_token_id", &v.MASK},
		{"fim_pre_token_id", &v.FIMPre}, {"fim_suf_token_id", &v.FIMSuf}, {"fim_mid_token_id", &v.FIMMid},
		{"fim_pad_token_id", &v.FIMPad}, {"fim_rep_token_id", &v.FIMRep}, {"fim_sep_token_id", &v.FIMSep},
		{"prefix_token_id", &v.FIMPre}, {"suffix_token_id", &v.FIMSuf}, {"middle_token_id", &v.FIMMid},
	}
	for _, k := range keys {
		id, ok := m.Uint("tokenizer.ggml." + k.key)
		if ok && id < uint64(len(v.Tokens)) {
			*k.dst = int32(id)
		}
	}
}
