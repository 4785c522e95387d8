package tokenizer

// WordPiece (BERT) as llama.cpp runs it: split the text into words after a
// crude normalisation (first code point of the canonical decomposition, so
// accents drop; lowercase; control characters removed; punctuation, ASCII
// symbols and CJK ideographs become one-character words), then cover each
// word, prefixed with U+2581, by the longest vocab tokens from the left. A
// word that cannot be covered completely becomes the unknown token.

// isChineseChar matches the CJK blocks BERT isolates (including the
// 0x2B920 start the reference implementation uses).
func isChineseChar(cp rune) bool {
	return cp >= 0x4E00 && cp <= 0x9FFF ||
		cp >= 0x3400 && cp <= 0x4DBF ||
		cp >= 0x20000 && cp <= 0x2A6DF ||
		cp >= 0x2A700 && cp <= 0x2B73F ||
		cp >= 0x2B740 && cp <= 0x2B81F ||
		cp >= 0x2B920 && cp <= 0x2CEAF ||
		cp >= 0xF900 && cp <= 0xFAFF ||
		cp >= 0x2F800 && cp <= 0x2FA1F
}

// wpmWords normalises text into s.words (bytes) with word ends in s.wordEnds.
func wpmWords(s *session, text string) {
	w, ends := s.words[:0], s.wordEnds[:0]
	closeWord := func() {
		if len(w) > 0 && (len(ends) == 0 || int(ends[len(ends)-1]) != len(w)) {
			ends = append(ends, int32(len(w)))
		}
	}
	for i := 0; i < len(text); {
		cp, n := decodeCodepoint(text, i)
		i += n
		cp = nfdFirstOf(cp)
		f := flagsOf(cp)
		if f&fWhitespace != 0 {
			closeWord()
			continue
		}
		if cp == 0 || cp == 0xFFFD || f&fControl != 0 {
			continue
		}
		if f&fPunct != 0 || cp < 0x7F && f&fSymbol != 0 || isChineseChar(cp) {
			closeWord()
			w = appendCodepoint(w, toLower(cp))
			closeWord()
			continue
		}
		w = appendCodepoint(w, toLower(cp))
	}
	closeWord()
	s.words, s.wordEnds = w, ends
}

// encodeWPM appends the WordPiece tokens of text.
func (t *Tokenizer) encodeWPM(s *session, text string, out []int32) []int32 {
	wpmWords(s, text)
	start := int32(0)
	for _, end := range s.wordEnds {
		word := s.words[start:end]
		start = end
		buf := append(append(s.scratch[:0], "\u2581"...), word...)
		s.scratch = buf
		out = t.coverWord(buf, out)
	}
	return out
}

// coverWord matches the longest token at each position; if some position
// has no match the word's tokens are dropped for the unknown token.
func (t *Tokenizer) coverWord(w []byte, out []int32) []int32 {
	mark := len(out)
	for i := 0; i < len(w); {
		matched := false
		for j := min(len(w), i+t.maxTokenLen+1); j > i; j-- {
			if id, ok := t.textToID[string(w[i:j])]; ok {
				out = append(out, id)
				i = j
				matched = true
				break
			}
		}
		if !matched {
			out = out[:mark]
			break
		}
	}
	if len(out) == mark && t.unk >= 0 {
		out = append(out, t.unk)
	}
	return out
}
