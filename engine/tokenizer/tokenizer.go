package tokenizer

import (
	"fmt"
	"slices"
	"sync"
)

// Token attributes, as llama.cpp derives them from token types and then
// adjusts them by token text and model name.
const (
	attrUnknown     uint16 = 1 << 0
	attrUnused      uint16 = 1 << 1
	attrNormal      uint16 = 1 << 2
	attrControl     uint16 = 1 << 3
	attrUserDefined uint16 = 1 << 4
	attrByte        uint16 = 1 << 5
	attrLStrip      uint16 = 1 << 7
	attrRStrip      uint16 = 1 << 8
)

type modelKind uint8

const (
	kindSPM modelKind = iota
	kindBPE
	kindWPM
)

// Tokenizer encodes and decodes text exactly as llama.cpp does for the same
// vocabulary. It is immutable after New and safe for concurrent use; the
// per-call scratch space comes from a pool.
type Tokenizer struct {
	v        Vocab
	kind     modelKind
	tokens   []string
	attrs    []uint16
	textToID map[string]int32
	pieces   []string // token_to_piece with special = true, precomputed
	special  []int32  // tokens split out of raw text, longest first
	eog      map[int32]struct{}

	bos, eos, eot, eom, unk, pad, sep, nl int32
	addBOS, addEOS, addSpace              bool
	cleanSpaces                           bool
	maxTokenLen                           int

	spm *spmModel
	bpe *bpeModel

	pool sync.Pool
}

// New builds a Tokenizer from v. It refuses unknown model and pre-tokenizer
// names, inconsistent array lengths and duplicate token texts (llama.cpp
// aborts on those). v is not retained; its slices are not modified.
func New(v *Vocab) (*Tokenizer, error) {
	if err := v.validate(); err != nil {
		return nil, err
	}
	t := &Tokenizer{v: *v}
	if err := t.loadTokens(); err != nil {
		return nil, err
	}
	t.loadSpecialIDs()
	t.detectSpecialByText()
	t.buildSpecialCache()
	t.buildPieces()
	t.applyModelAttrs()
	switch v.Model {
	case "llama":
		t.kind = kindSPM
		t.spm = newSPM(t.textToID, t.unk)
	case "gpt2":
		t.kind = kindBPE
		pre, _ := lookupPre(v.Pre)
		t.cleanSpaces = !pre.dirtySpaces
		t.bpe = newBPE(t.tokens, v.Merges, pre, t.textToID)
	case "bert":
		t.kind = kindWPM
		t.cleanSpaces = true
	}
	t.pool.New = func() any { return new(session) }
	t.nl = t.findNewline()
	t.v.Scores = slices.Clone(t.v.Scores)
	t.v.Tokens, t.v.Types, t.v.Merges = nil, nil, nil // not needed after load
	return t, nil
}

// loadTokens copies the token texts (an empty text becomes "[EMPTY_<id>]",
// as in llama.cpp), indexes them and sets the base attributes.
func (t *Tokenizer) loadTokens() error {
	n := len(t.v.Tokens)
	t.tokens = make([]string, n)
	t.attrs = make([]uint16, n)
	t.textToID = make(map[string]int32, n)
	for i, s := range t.v.Tokens {
		if s == "" {
			s = fmt.Sprintf("[EMPTY_%d]", i)
		}
		if prev, dup := t.textToID[s]; dup {
			return fmt.Errorf("tokenizer: tokens %d and %d have the same text %q", prev, i, s)
		}
		t.textToID[s] = int32(i)
		t.tokens[i] = s
		t.maxTokenLen = max(t.maxTokenLen, len(s))
		t.attrs[i] = attrNormal
		if t.v.Types != nil {
			t.attrs[i] = typeAttr(t.v.Types[i])
		}
	}
	return nil
}

func typeAttr(typ int32) uint16 {
	switch typ {
	case TypeUnknown:
		return attrUnknown
	case TypeUnused:
		return attrUnused
	case TypeNormal:
		return attrNormal
	case TypeControl:
		return attrControl
	case TypeUserDefined:
		return attrUserDefined
	case TypeByte:
		return attrByte
	}
	return 0
}

func (t *Tokenizer) loadSpecialIDs() {
	n := len(t.tokens)
	v := &t.v
	t.bos, t.eos, t.eot, t.eom = validID(v.BOS, n), validID(v.EOS, n), validID(v.EOT, n), validID(v.EOM, n)
	t.unk, t.pad, t.sep = validID(v.UNK, n), validID(v.PAD, n), validID(v.SEP, n)
	v.FIMPre, v.FIMSuf, v.FIMMid = validID(v.FIMPre, n), validID(v.FIMSuf, n), validID(v.FIMMid, n)
	v.FIMPad, v.FIMRep, v.FIMSep = validID(v.FIMPad, n), validID(v.FIMRep, n), validID(v.FIMSep, n)
	t.addBOS, t.addEOS, t.addSpace = v.AddBOS, v.AddEOS, v.AddSpacePrefix
}

func (t *Tokenizer) score(id int32) float32 {
	if t.v.Scores == nil {
		return 0
	}
	return t.v.Scores[id]
}

// findNewline picks the token llama.cpp reports as the newline token.
func (t *Tokenizer) findNewline() int32 {
	if t.v.NL >= 0 && int(t.v.NL) < len(t.tokens) {
		return t.v.NL
	}
	switch t.kind {
	case kindSPM:
		if id := t.spm.byteTok['\n']; id >= 0 {
			return id
		}
	case kindBPE:
		if ids := t.Encode("\n", false, false); len(ids) > 0 {
			return ids[0]
		}
	}
	return t.pad
}

// NVocab is the number of tokens.
func (t *Tokenizer) NVocab() int { return len(t.tokens) }

// Model is tokenizer.ggml.model ("llama", "gpt2" or "bert").
func (t *Tokenizer) Model() string { return t.v.Model }

// Pre is tokenizer.ggml.pre as given ("" when the file has none).
func (t *Tokenizer) Pre() string { return t.v.Pre }

// BOS is the beginning-of-sequence token, or -1.
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS is the end-of-sequence token, or -1.
func (t *Tokenizer) EOS() int32 { return t.eos }

// EOT is the end-of-turn token (from metadata or found by text), or -1.
func (t *Tokenizer) EOT() int32 { return t.eot }

// EOM is the end-of-message token, or -1.
func (t *Tokenizer) EOM() int32 { return t.eom }

// UNK is the unknown token, or -1.
func (t *Tokenizer) UNK() int32 { return t.unk }

// PAD is the padding token, or -1.
func (t *Tokenizer) PAD() int32 { return t.pad }

// SEP is the separator token, or -1.
func (t *Tokenizer) SEP() int32 { return t.sep }

// NL is the newline token llama.cpp reports (llama_vocab_nl), or -1.
func (t *Tokenizer) NL() int32 { return t.nl }

// FIMPre is the fill-in-the-middle prefix token (from the metadata or
// found by its text, as llama_vocab_fim_pre), or -1.
func (t *Tokenizer) FIMPre() int32 { return t.v.FIMPre }

// FIMSuf is the fill-in-the-middle suffix token, or -1.
func (t *Tokenizer) FIMSuf() int32 { return t.v.FIMSuf }

// FIMMid is the fill-in-the-middle middle token, or -1.
func (t *Tokenizer) FIMMid() int32 { return t.v.FIMMid }

// FIMPad is the fill-in-the-middle padding token, or -1.
func (t *Tokenizer) FIMPad() int32 { return t.v.FIMPad }

// FIMRep is the repository-name token of repo-level FIM, or -1.
func (t *Tokenizer) FIMRep() int32 { return t.v.FIMRep }

// FIMSep is the file-separator token of repo-level FIM, or -1.
func (t *Tokenizer) FIMSep() int32 { return t.v.FIMSep }

// AddBOS reports whether Encode with addSpecial prepends BOS.
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// AddEOS reports whether Encode with addSpecial appends EOS.
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

// Token returns the raw vocabulary text of id ("" when out of range).
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// IsEOG reports whether id ends generation (llama_vocab_is_eog).
func (t *Tokenizer) IsEOG(id int32) bool {
	_, ok := t.eog[id]
	return ok
}

// EOGs returns the end-of-generation tokens in ascending order.
func (t *Tokenizer) EOGs() []int32 {
	out := make([]int32, 0, len(t.eog))
	for id := range t.tokens {
		if t.IsEOG(int32(id)) {
			out = append(out, int32(id))
		}
	}
	return out
}

// IsControl reports whether id is a control or unknown token, the tokens
// Piece hides unless special is set.
func (t *Tokenizer) IsControl(id int32) bool {
	return id >= 0 && int(id) < len(t.attrs) && t.attrs[id]&(attrControl|attrUnknown) != 0
}
