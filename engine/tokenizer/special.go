package tokenizer

import (
	"sort"
	"strings"
)

// Token texts llama.cpp's loader recognises, in the order it tests them.
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
		"<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPreTexts = []string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"}
	fimSufTexts = []string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"}
	fimMidTexts = []string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	eogTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
		"<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]",
		"[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
		"<｜end▁of▁sentence｜>"}
	// gpt-oss renders these even when special tokens are hidden.
	alwaysShownTexts = []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// detectSpecialByText reproduces the part of llama.cpp's loader that finds
// special tokens by their text: EOT/EOM/FIM ids the metadata left out,
// control tokens marked unused, and the end-of-generation set. Tokens it
// picks up are forced to be control tokens, as llama.cpp does. Where
// llama.cpp walks a hash map (unspecified order) this walks ids ascending,
// so the lowest id wins when several texts qualify.
func (t *Tokenizer) detectSpecialByText() {
	v := &t.v
	for id, s := range t.tokens {
		i := int32(id)
		pick(t, &t.eot, i, s, eotTexts)
		pick(t, &t.eom, i, s, eomTexts)
		pick(t, &v.FIMPre, i, s, fimPreTexts)
		pick(t, &v.FIMSuf, i, s, fimSufTexts)
		pick(t, &v.FIMMid, i, s, fimMidTexts)
		pick(t, &v.FIMPad, i, s, fimPadTexts)
		pick(t, &v.FIMRep, i, s, fimRepTexts)
		pick(t, &v.FIMSep, i, s, fimSepTexts)
	}
	for i, s := range t.tokens {
		if t.attrs[i]&attrControl != 0 && strings.Contains(s, "unused") {
			t.attrs[i] |= attrUnused
		}
	}
	t.eog = map[int32]struct{}{}
	for _, id := range []int32{v.FIMPad, v.FIMRep, v.FIMSep} {
		if id >= 0 {
			t.eog[id] = struct{}{}
		}
	}
	for i, s := range t.tokens {
		if contains(eogTexts, s) {
			t.eog[int32(i)] = struct{}{}
			t.attrs[i] |= attrControl
		}
		if contains(alwaysShownTexts, s) {
			t.attrs[i] = attrUserDefined
		}
	}
	for _, id := range []int32{t.eos, t.eot, t.eom} {
		if id >= 0 {
			t.eog[id] = struct{}{}
		}
	}
	t.eogWorkarounds()
}

// pick sets *slot to id when the slot is empty and the text is listed.
func pick(t *Tokenizer, slot *int32, id int32, text string, list []string) {
	if *slot < 0 && contains(list, text) {
		*slot = id
		t.attrs[id] |= attrControl
	}
}

// eogWorkarounds: with <|return|>+<|call|> (gpt-oss) or <|calls|>+<|flush|>
// (solar-open), <|end|> is not an end of generation; with <|tool_response>
// (gemma4), </s> is not one either.
func (t *Tokenizer) eogWorkarounds() {
	has := map[string]int32{}
	for id := range t.eog {
		has[t.tokens[id]] = id
	}
	_, ret := has["<|return|>"]
	_, call := has["<|call|>"]
	_, calls := has["<|calls|>"]
	_, flush := has["<|flush|>"]
	if end, ok := has["<|end|>"]; ok && (ret && (call || calls) || (call || calls) && flush) {
		delete(t.eog, end)
		t.attrs[end] = attrUserDefined
	}
	if s, ok := has["</s>"]; ok {
		if _, tool := has["<|tool_response>"]; tool {
			delete(t.eog, s)
			t.attrs[s] = attrNormal
		}
	}
}

// buildSpecialCache lists the tokens that are cut out of raw text before
// tokenization (control, user-defined and unknown), longest text first.
// llama.cpp's sort is not stable; ties are broken here by id.
func (t *Tokenizer) buildSpecialCache() {
	for i, a := range t.attrs {
		if a&(attrControl|attrUserDefined|attrUnknown) != 0 {
			t.special = append(t.special, int32(i))
		}
	}
	sort.SliceStable(t.special, func(a, b int) bool {
		return len(t.tokens[t.special[a]]) > len(t.tokens[t.special[b]])
	})
}

// applyModelAttrs sets the strip attributes llama.cpp keys on the model
// or pre-tokenizer name: Phi-3 special tokens swallow the whitespace after
// them, some BERT-like models' mask token the whitespace before it.
func (t *Tokenizer) applyModelAttrs() {
	name := strings.ToLower(t.v.Name)
	switch {
	case strings.Contains(t.v.Pre, "jina-v2-de") || strings.Contains(t.v.Pre, "jina-v2-es") ||
		strings.Contains(t.v.Pre, "jina-v2-code"):
		t.setAttr("<mask>", attrLStrip)
	case strings.Contains(name, "phi-3") || strings.Contains(name, "phi3"):
		t.phi3Attrs()
	case strings.Contains(name, "modern-bert"):
		t.setAttr("[MASK]", attrLStrip)
	}
}

func (t *Tokenizer) setAttr(text string, a uint16) {
	if id, ok := t.textToID[text]; ok {
		t.attrs[id] |= a
	}
}

func (t *Tokenizer) phi3Attrs() {
	for _, id := range t.special {
		t.attrs[id] |= attrRStrip
	}
	t.setAttr("</s>", attrRStrip)
	for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
		if id, ok := t.textToID[s]; ok {
			t.attrs[id] &^= attrRStrip
		}
	}
}
