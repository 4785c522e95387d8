package spec

import "fmt"

// Vocab is what the draft-model check needs of a tokenizer;
// *tokenizer.Tokenizer (engine.Loaded.Tokenizer) satisfies it. spec does not
// import the tokenizer: the caller hands both in.
type Vocab interface {
	NVocab() int
	Token(id int32) string
	BOS() int32
	EOS() int32
}

// maxVocabDiff is llama.cpp's SPEC_VOCAB_MAX_SIZE_DIFFERENCE: padding rows
// some conversions add at the end of a vocabulary.
const maxVocabDiff = 128

// CheckVocab refuses a draft model whose vocabulary is not the target's:
// the sizes may differ by at most 128 padding entries, BOS and EOS must be
// the same ids, and every token both have must have the same text. The
// error names the first difference. Drafted ids are always < the smaller
// size, so a longer draft vocabulary is harmless.
func CheckVocab(target, draft Vocab) error {
	if target == nil || draft == nil {
		return fmt.Errorf("spec: draft model: vocabularies not given")
	}
	nt, nd := target.NVocab(), draft.NVocab()
	if d := nt - nd; d > maxVocabDiff || d < -maxVocabDiff {
		return fmt.Errorf("spec: draft model vocabulary has %d tokens, the target's %d (they differ by more than %d): not the same vocabulary", nd, nt, maxVocabDiff)
	}
	if target.BOS() != draft.BOS() || target.EOS() != draft.EOS() {
		return fmt.Errorf("spec: draft model special tokens differ: BOS %d/%d, EOS %d/%d (target/draft)", target.BOS(), draft.BOS(), target.EOS(), draft.EOS())
	}
	for i := range int32(min(nt, nd)) {
		if a, b := target.Token(i), draft.Token(i); a != b {
			return fmt.Errorf("spec: draft model vocabulary differs from the target's at token %d: %q vs %q", i, a, b)
		}
	}
	return nil
}
