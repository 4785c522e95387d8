package grammar

// classEnd returns the position after the character class starting at pos.
func (g *Grammar) classEnd(pos int32) int32 {
	for {
		if g.elems[pos+1].k == kCharRngHi {
			pos += 2
		} else {
			pos++
		}
		if g.elems[pos].k != kCharAlt {
			return pos
		}
	}
}

// matchChar reports whether code point c satisfies the class at pos
// (llama_grammar_match_char).
func (g *Grammar) matchChar(pos int32, c uint32) bool {
	positive := g.elems[pos].k != kCharNot
	found := false
	for {
		e := g.elems[pos]
		switch {
		case g.elems[pos+1].k == kCharRngHi:
			found = found || e.v <= c && c <= g.elems[pos+1].v
			pos += 2
		case e.k == kCharAny:
			found = true
			pos++
		default:
			found = found || e.v == c
			pos++
		}
		if g.elems[pos].k != kCharAlt {
			return found == positive
		}
	}
}

// matchPartial reports whether some completion of the partial sequence pt
// could satisfy the class at pos (llama_grammar_match_partial_char).
func (g *Grammar) matchPartial(pos int32, pt partial) bool {
	positive := g.elems[pos].k != kCharNot
	if pt.remain < 0 || pt.remain == 1 && pt.value < 2 {
		return false
	}
	n := uint32(pt.remain) * 6
	lo := pt.value << n
	hi := lo | (1<<n - 1)
	if lo == 0 {
		switch pt.remain {
		case 2:
			lo = 1 << 11
		case 3:
			lo = 1 << 16
		}
	}
	for {
		e := g.elems[pos]
		switch {
		case g.elems[pos+1].k == kCharRngHi:
			if e.v <= hi && lo <= g.elems[pos+1].v {
				return positive
			}
			pos += 2
		case e.k == kCharAny:
			return true
		default:
			if lo <= e.v && e.v <= hi {
				return positive
			}
			pos++
		}
		if g.elems[pos].k != kCharAlt {
			return !positive
		}
	}
}

// matchToken reports whether token id satisfies the token element at pos.
func (g *Grammar) matchToken(pos int32, id int32) bool {
	e := g.elems[pos]
	if e.k == kToken {
		return e.v == uint32(id)
	}
	return e.v != uint32(id)
}

func isTokenKind(k kind) bool { return k == kToken || k == kTokenNot }
