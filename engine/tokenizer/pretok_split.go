package tokenizer

// The hand-written splitters below mirror the regular expressions named in
// their comments, alternative by alternative, in the order a backtracking
// engine tries them.

const wordClass = fWhitespace | fLetter | fNumber

// isContraction reports the length (2 or 3) of an English contraction
// ('s 't 'm 'd 're 've 'll) starting at the apostrophe at i, or 0.
func isContraction(p *piece, i int, fold bool) int {
	if p.cp(i) != '\'' || i+1 >= p.b {
		return 0
	}
	c1 := p.cp(i + 1)
	if fold {
		c1 = toLower(c1)
	}
	if c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd' {
		return 2
	}
	if i+2 >= p.b {
		return 0
	}
	c2 := p.cp(i + 2)
	if fold {
		c2 = toLower(c2)
	}
	if c1 == 'r' && c2 == 'e' || c1 == 'v' && c2 == 'e' || c1 == 'l' && c2 == 'l' {
		return 3
	}
	return 0
}

// splitGPT2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitGPT2(p *piece) {
	for pos := p.a; pos < p.b; {
		if n := isContraction(p, pos, false); n > 0 {
			pos += n
			p.emit(pos)
			continue
		}
		cp := p.cp(pos)
		f2 := p.fl(pos)
		if cp == ' ' {
			f2 = p.fl(pos + 1)
		}
		if end := gpt2Run(p, pos, cp, f2); end > 0 {
			pos = end
			p.emit(pos)
			continue
		}
		pos = whitespaceTail(p, pos)
		p.emit(pos)
	}
}

// gpt2Run handles " ?\p{L}+", " ?\p{N}+" and " ?[^\s\p{L}\p{N}]+"; it
// returns the end of the run or 0 when none of them applies.
func gpt2Run(p *piece, pos int, cp rune, f2 cpFlags) int {
	var in func(cpFlags) bool
	switch {
	case f2&fLetter != 0:
		in = func(f cpFlags) bool { return f&fLetter != 0 }
	case f2&fNumber != 0:
		in = func(f cpFlags) bool { return f&fNumber != 0 }
	case f2&wordClass == 0 && f2 != 0:
		in = func(f cpFlags) bool { return f&wordClass == 0 && f != 0 }
	default:
		return 0
	}
	if cp == ' ' {
		pos++
	}
	for in(p.fl(pos)) {
		pos++
	}
	return pos
}

// whitespaceTail handles "\s+(?!\S)|\s+" and, failing those, a single code
// point that matched nothing. It returns the end of the piece.
func whitespaceTail(p *piece, pos int) int {
	n := 0
	for p.fl(pos+n)&fWhitespace != 0 {
		n++
	}
	switch {
	case n > 1 && p.cp(pos+n) != outOfRange:
		return pos + n - 1 // leave the last space to the next word
	case n > 0:
		return pos + n
	}
	return pos + 1
}

// splitLlama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitLlama3(p *piece) { splitLlamaLike(p, 3) }

// splitQwen2 is splitLlama3 with \p{N} instead of \p{N}{1,3}.
func splitQwen2(p *piece) { splitLlamaLike(p, 1) }

func splitLlamaLike(p *piece, maxDigits int) {
	for pos := p.a; pos < p.b; {
		if n := isContraction(p, pos, true); n > 0 {
			pos += n
			p.emit(pos)
			continue
		}
		cp, f := p.cp(pos), p.fl(pos)
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if !(cp == '\r' || cp == '\n' || f&fNumber != 0) && (f&fLetter != 0 || p.fl(pos+1)&fLetter != 0) {
			pos++
			for p.fl(pos)&fLetter != 0 {
				pos++
			}
			p.emit(pos)
			continue
		}
		// \p{N}{1,maxDigits}
		if f&fNumber != 0 {
			ini := pos
			for p.fl(pos)&fNumber != 0 {
				pos++
				if pos-ini >= maxDigits {
					p.emit(pos)
					ini = pos
				}
			}
			p.emit(pos)
			continue
		}
		pos = llamaTail(p, pos, cp, f)
		p.emit(pos)
	}
}

// llamaTail handles " ?[^\s\p{L}\p{N}]+[\r\n]*", "\s*[\r\n]+" and the
// whitespace alternatives; it returns the end of the piece.
func llamaTail(p *piece, pos int, cp rune, f cpFlags) int {
	f2 := f
	if cp == ' ' {
		f2 = p.fl(pos + 1)
	}
	if f2&wordClass == 0 && f != 0 {
		if cp == ' ' {
			pos++
		}
		for f2&wordClass == 0 && f2 != 0 {
			pos++
			f2 = p.fl(pos)
		}
		for c := p.cp(pos); c == '\r' || c == '\n'; c = p.cp(pos) {
			pos++
		}
		return pos
	}
	lastNL := -1
	for n := 0; p.fl(pos+n)&fWhitespace != 0; n++ {
		if c := p.cp(pos + n); c == '\r' || c == '\n' {
			lastNL = pos + n + 1
		}
	}
	if lastNL >= 0 {
		return lastNL
	}
	return whitespaceTail(p, pos)
}

// splitTrailingSpace: \s+$ — the whitespace run that ends the piece.
func splitTrailingSpace(p *piece) {
	t := p.b
	for t > p.a && p.sp.flags[t-1]&fWhitespace != 0 {
		t--
	}
	if t > p.a && t < p.b {
		p.emit(t)
	}
	p.emit(p.b)
}

// matchRun returns the end of the run of code points satisfying in.
func matchRun(p *piece, i int, in func(p *piece, i int) bool) int {
	for i < p.b && in(p, i) {
		i++
	}
	return i
}

func isNumber(p *piece, i int) bool { return p.fl(i)&fNumber != 0 }
func isLetter(p *piece, i int) bool { return p.fl(i)&fLetter != 0 }
func isPunct(p *piece, i int) bool  { return p.fl(i)&fPunct != 0 }

// matchNumber: \p{N}
func matchNumber(p *piece, i int) int {
	if isNumber(p, i) {
		return i + 1
	}
	return i
}

// matchNumberRun: \p{N}+
func matchNumberRun(p *piece, i int) int { return matchRun(p, i, isNumber) }

// matchFalconPunct: [\p{P}\$\+<=>\^~\|]+
func matchFalconPunct(p *piece, i int) int {
	return matchRun(p, i, func(p *piece, i int) bool {
		switch p.cp(i) {
		case '$', '+', '<', '=', '>', '^', '~', '|':
			return true
		}
		return isPunct(p, i)
	})
}

// matchThreeDigits: [0-9][0-9][0-9]
func matchThreeDigits(p *piece, i int) int {
	for k := 0; k < 3; k++ {
		if c := p.cp(i + k); c < '0' || c > '9' {
			return i
		}
	}
	return i + 3
}

// matchCRLF: [\r\n]
func matchCRLF(p *piece, i int) int {
	if c := p.cp(i); c == '\r' || c == '\n' {
		return i + 1
	}
	return i
}

// matchOptSpaceRun matches \s?X+ for a class X that holds no whitespace:
// either a space followed by a run, or a run.
func matchOptSpaceRun(p *piece, i int, in func(p *piece, i int) bool) int {
	if p.fl(i)&fWhitespace != 0 && in(p, i+1) {
		return matchRun(p, i+1, in)
	}
	return matchRun(p, i, in)
}

// matchSpaceLetters: \s?\p{L}+
func matchSpaceLetters(p *piece, i int) int { return matchOptSpaceRun(p, i, isLetter) }

// matchSpacePunct: \s?\p{P}+
func matchSpacePunct(p *piece, i int) int { return matchOptSpaceRun(p, i, isPunct) }

// literalClass tests a code point against explicit ranges the way
// std::wregex sees it: llama.cpp first replaces non-ASCII whitespace by
// U+000B, so such code points never match a non-ASCII range.
func literalClass(p *piece, i int, ranges []runeRange) bool {
	c := p.cp(i)
	if c == outOfRange || c >= 0x80 && p.fl(i)&fWhitespace != 0 {
		return false
	}
	for _, r := range ranges {
		if c >= r.lo && c <= r.hi {
			return true
		}
	}
	return false
}

type runeRange struct{ lo, hi rune }

func matchDSLetters(p *piece, i int) int {
	return matchOptSpaceRun(p, i, func(p *piece, i int) bool { return literalClass(p, i, dsLetterRanges[:]) })
}

func matchDSPunct(p *piece, i int) int {
	return matchOptSpaceRun(p, i, func(p *piece, i int) bool { return literalClass(p, i, dsPunctRanges[:]) })
}

func matchDSCJK(p *piece, i int) int {
	return matchRun(p, i, func(p *piece, i int) bool { return literalClass(p, i, dsCJKRanges[:]) })
}
