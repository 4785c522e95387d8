package tokenizer

import "strings"

// session is the scratch space of one Encode call, pooled so that a warm
// tokenizer allocates nothing but its output.
type session struct {
	frags, fragsNext []fragment
	split            splitter
	word             []byte
	text             []byte
	bpeSyms          []bpeSym
	bpeHeap          []bpeBigram
	spmSyms          []spmSym
	spmHeap          []spmBigram
	words            []byte
	wordEnds         []int32
	scratch          []byte
}

// fragment is a piece of the input: raw text [start, end) when tok < 0,
// else a special token cut out of the text.
type fragment struct {
	tok        int32
	start, end int32
}

// Encode is llama_tokenize(text, addSpecial, parseSpecial). With
// parseSpecial, control tokens written in the text (e.g. "<|im_end|>") are
// recognised; user-defined tokens are recognised either way. addSpecial adds
// BOS/EOS as the vocab asks (always BOS and SEP for WPM).
func (t *Tokenizer) Encode(text string, addSpecial, parseSpecial bool) []int32 {
	return t.AppendEncode(nil, text, addSpecial, parseSpecial)
}

// AppendEncode is Encode appending to dst, for callers that reuse a buffer.
func (t *Tokenizer) AppendEncode(dst []int32, text string, addSpecial, parseSpecial bool) []int32 {
	if len(text) > maxEncodeBytes {
		text = text[:maxEncodeBytes]
	}
	s := t.pool.Get().(*session)
	defer t.pool.Put(s)
	t.partition(s, text, parseSpecial)
	switch t.kind {
	case kindSPM:
		return t.encodeSPMText(s, text, dst, addSpecial)
	case kindBPE:
		return t.encodeBPEText(s, text, dst, addSpecial)
	}
	return t.encodeWPMText(s, text, dst, addSpecial)
}

// maxEncodeBytes caps the input so that offsets fit in int32.
const maxEncodeBytes = 1<<31 - 1

func (t *Tokenizer) encodeSPMText(s *session, text string, out []int32, addSpecial bool) []int32 {
	if addSpecial && t.addBOS && t.bos >= 0 {
		out = append(out, t.bos)
	}
	prevSpecial := true // a space prefix goes before the first text, too
	for _, f := range s.frags {
		if f.tok >= 0 {
			out = append(out, f.tok)
			prevSpecial = true
			continue
		}
		b := s.text[:0]
		if t.addSpace && prevSpecial {
			b = append(b, "\u2581"...)
		}
		b = appendEscaped(b, text[f.start:f.end])
		s.text = b
		out = t.spm.encode(t, s, b, out)
		prevSpecial = false
	}
	if addSpecial && t.addEOS && t.eos >= 0 {
		out = append(out, t.eos)
	}
	return out
}

// appendEscaped writes s with every space replaced by U+2581.
func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(b, s...)
		}
		b = append(append(b, s[:i]...), "\u2581"...)
		s = s[i+1:]
	}
}

func (t *Tokenizer) encodeBPEText(s *session, text string, out []int32, addSpecial bool) []int32 {
	if addSpecial && t.addBOS && t.bos >= 0 {
		out = append(out, t.bos)
	}
	for _, f := range s.frags {
		if f.tok >= 0 {
			out = append(out, f.tok)
			continue
		}
		out = t.encodeBPEFragment(s, text[f.start:f.end], out)
	}
	if addSpecial && t.addEOS && t.eos >= 0 {
		out = append(out, t.eos)
	}
	return out
}

// encodeBPEFragment pre-tokenizes one raw fragment and merges each word.
// Words are re-encoded from the decoded code points, so invalid UTF-8 in
// the input reaches BPE as U+FFFD, as in llama.cpp.
func (t *Tokenizer) encodeBPEFragment(s *session, frag string, out []int32) []int32 {
	sp := &s.split
	sp.load(frag)
	sp.run(t.bpe.pre.kind)
	start := int32(0)
	for _, end := range sp.ends {
		w := s.word[:0]
		for _, cp := range sp.cps[start:end] {
			w = appendCodepoint(w, cp)
		}
		s.word = w
		start = end
		if len(w) > 0 {
			out = t.bpe.encodeWord(s, w, out)
		}
	}
	return out
}

func (t *Tokenizer) encodeWPMText(s *session, text string, out []int32, addSpecial bool) []int32 {
	if addSpecial && t.bos >= 0 {
		out = append(out, t.bos)
	}
	for _, f := range s.frags {
		if f.tok >= 0 {
			out = append(out, f.tok)
			continue
		}
		out = t.encodeWPM(s, text[f.start:f.end], out)
	}
	if addSpecial && t.sep >= 0 {
		out = append(out, t.sep)
	}
	return out
}

// partition cuts special tokens out of the text (llama.cpp's
// tokenizer_st_partition): each special token in turn, longest first, is
// found in every remaining raw fragment, left to right. Control and unknown
// tokens take part only when parseSpecial is set.
func (t *Tokenizer) partition(s *session, text string, parseSpecial bool) {
	s.frags = s.frags[:0]
	if text == "" {
		return
	}
	s.frags = append(s.frags, fragment{tok: -1, start: 0, end: int32(len(text))})
	for _, id := range t.special {
		a := t.attrs[id]
		if !parseSpecial && a&(attrControl|attrUnknown) != 0 {
			continue
		}
		if !t.anyRawContains(s, text, t.tokens[id]) {
			continue
		}
		next := s.fragsNext[:0]
		for _, f := range s.frags {
			if f.tok >= 0 {
				next = append(next, f)
				continue
			}
			next = splitFragment(next, text, f, id, t.tokens[id], a)
		}
		s.frags, s.fragsNext = next, s.frags
	}
}

func (t *Tokenizer) anyRawContains(s *session, text, tok string) bool {
	for _, f := range s.frags {
		if f.tok < 0 && strings.Contains(text[f.start:f.end], tok) {
			return true
		}
	}
	return false
}

// splitFragment replaces one raw fragment by its parts around every
// occurrence of tok, trimming ASCII whitespace on the side the token's
// lstrip/rstrip attribute names.
func splitFragment(out []fragment, text string, f fragment, id int32, tok string, a uint16) []fragment {
	base, end := int(f.start), int(f.end)
	for {
		k := strings.Index(text[base:end], tok)
		if k < 0 {
			if base < end {
				out = append(out, fragment{tok: -1, start: int32(base), end: int32(end)})
			}
			return out
		}
		m := base + k
		left := m
		if a&attrLStrip != 0 {
			for left > base && isCSpace(text[left-1]) {
				left--
			}
		}
		if left > base {
			out = append(out, fragment{tok: -1, start: int32(base), end: int32(left)})
		}
		out = append(out, fragment{tok: id, start: int32(m), end: int32(m + len(tok))})
		base = m + len(tok)
		if a&attrRStrip != 0 {
			for base < end && isCSpace(text[base]) {
				base++
			}
		}
	}
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}
