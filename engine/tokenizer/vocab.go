package tokenizer

import (
	"errors"
	"fmt"
)

// Token types as stored in tokenizer.ggml.token_type (llama.cpp's
// llama_token_type).
const (
	TypeUndefined   int32 = 0
	TypeNormal      int32 = 1
	TypeUnknown     int32 = 2
	TypeControl     int32 = 3
	TypeUserDefined int32 = 4
	TypeUnused      int32 = 5
	TypeByte        int32 = 6
)

// Vocab is the tokenizer description a GGUF file carries, with llama.cpp's
// per-model defaults already applied (VocabFromGGUF does that). It is plain
// data so tests and tools can build one without a GGUF file; New validates
// it and derives everything else.
type Vocab struct {
	Model string // tokenizer.ggml.model: "llama" (SPM), "gpt2" (BPE), "bert" (WPM)
	Pre   string // tokenizer.ggml.pre; "" means "default" for BPE, ignored otherwise
	Name  string // general.name; llama.cpp keys a few per-model token attributes on it

	Tokens []string  // token texts, index = id
	Scores []float32 // SPM merge scores; nil means all zero
	Types  []int32   // Type* per token; nil means all normal
	Merges []string  // BPE merges "left right", by rank

	// Special token ids; -1 when the vocab has none.
	BOS, EOS, EOT, EOM, UNK, PAD, SEP, NL, MASK int32
	// Fill-in-the-middle ids; -1 when absent. Pad, repo and file-separator
	// tokens end generation in llama.cpp.
	FIMPre, FIMSuf, FIMMid, FIMPad, FIMRep, FIMSep int32

	AddBOS, AddEOS, AddSEP bool
	// AddSpacePrefix prepends a space to SPM text (and makes Decode strip
	// one from the first piece).
	AddSpacePrefix bool
}

// NewVocab returns a Vocab for the given tokenizer.ggml.model with
// llama.cpp's defaults for that model type: the special ids it assumes when
// the file names none, and the add_bos/add_eos/add_space_prefix flags. The
// pre-tokenizer name can change the BPE defaults (see applyPreDefaults).
func NewVocab(model, pre string) (*Vocab, error) {
	v := &Vocab{Model: model, Pre: pre}
	v.BOS, v.EOS, v.EOT, v.EOM, v.UNK, v.PAD, v.SEP, v.NL, v.MASK = -1, -1, -1, -1, -1, -1, -1, -1, -1
	v.FIMPre, v.FIMSuf, v.FIMMid, v.FIMPad, v.FIMRep, v.FIMSep = -1, -1, -1, -1, -1, -1
	switch model {
	case "llama":
		v.BOS, v.EOS, v.UNK = 1, 2, 0
		v.AddBOS, v.AddSpacePrefix = true, true
	case "bert":
		v.BOS, v.UNK, v.SEP, v.PAD, v.MASK = 101, 100, 102, 0, 103
		v.AddBOS, v.AddSEP = true, true
	case "gpt2":
		v.BOS, v.EOS = 11, 11
		p, err := lookupPre(pre)
		if err != nil {
			return nil, err
		}
		v.AddBOS = p.addBOS
		if p.noBOS {
			v.BOS = -1
		}
	default:
		return nil, fmt.Errorf("tokenizer: unknown tokenizer model %q (supported: llama, gpt2, bert)", model)
	}
	return v, nil
}

// validate checks the invariants the tokenizer relies on, so that bad files
// are refused at load instead of misbehaving later.
func (v *Vocab) validate() error {
	n := len(v.Tokens)
	if n == 0 {
		return errors.New("tokenizer: empty vocabulary")
	}
	if n > 1<<30 {
		return fmt.Errorf("tokenizer: vocabulary of %d tokens is too large", n)
	}
	if v.Scores != nil && len(v.Scores) < n {
		return fmt.Errorf("tokenizer: %d scores for %d tokens", len(v.Scores), n)
	}
	if v.Types != nil && len(v.Types) < n {
		return fmt.Errorf("tokenizer: %d token types for %d tokens", len(v.Types), n)
	}
	switch v.Model {
	case "llama", "bert":
	case "gpt2":
		if _, err := lookupPre(v.Pre); err != nil {
			return err
		}
	default:
		return fmt.Errorf("tokenizer: unknown tokenizer model %q (supported: llama, gpt2, bert)", v.Model)
	}
	return nil
}

// validID maps ids outside the vocabulary to -1.
func validID(id int32, n int) int32 {
	if id < 0 || int(id) >= n {
		return -1
	}
	return id
}
