package grammar

// partial is llama_partial_utf8: the bits of an incomplete UTF-8 sequence
// at the end of the text so far and how many continuation bytes it still
// needs; remain -1 marks an invalid sequence.
type partial struct {
	value  uint32
	remain int32
}

// decodePiece appends the code points of piece, continuing from start, to
// dst, exactly as llama.cpp's decode_utf8 does: the piece ends at its first
// NUL byte, continuation bytes are not validated, a stray continuation
// byte where a sequence should start discards the whole piece and returns
// remain -1, and a broken continuation of start does the same.
func decodePiece(dst []uint32, piece string, start partial) ([]uint32, partial) {
	lengths := [16]int32{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4}
	base := len(dst)
	pos := 0
	value, remain := start.value, start.remain
	more := func() bool { return pos < len(piece) && piece[pos] != 0 }
	for more() && remain > 0 {
		b := piece[pos]
		if b>>6 != 2 {
			return dst[:base], partial{0, -1}
		}
		value = value<<6 + uint32(b&0x3F)
		pos++
		remain--
	}
	if start.remain > 0 && remain == 0 {
		dst = append(dst, value)
	}
	for more() {
		first := piece[pos]
		remain = lengths[first>>4] - 1
		if remain < 0 {
			return dst[:base], partial{0, remain}
		}
		value = uint32(first) & (1<<(7-remain) - 1)
		pos++
		for more() && remain > 0 {
			value = value<<6 + uint32(piece[pos]&0x3F)
			pos++
			remain--
		}
		if remain == 0 {
			dst = append(dst, value)
		}
	}
	return dst, partial{value, remain}
}

// untilZero cuts cps at its first zero code point: llama.cpp's candidate
// arrays are zero-terminated, so an (overlong) encoded NUL ends them.
func untilZero(cps []uint32) []uint32 {
	for i, c := range cps {
		if c == 0 {
			return cps[:i]
		}
	}
	return cps
}
