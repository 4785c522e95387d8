package tokenizer

import "unicode/utf8"

// StreamDecoder turns generated tokens into text as they arrive. Byte
// tokens can split one UTF-8 character across several tokens; the decoder
// holds back an incomplete character at the end until it is complete, so
// each chunk is whole characters. Bytes that can never form a valid
// character are passed through as soon as that is known, so the
// concatenation of all chunks (plus Flush) is always exactly the
// concatenation of Piece(id, special) — llama_token_to_piece per token, the
// way llama.cpp's tools print a generation.
type StreamDecoder struct {
	t       *Tokenizer
	special bool
	pending []byte
}

// NewStreamDecoder returns a decoder rendering pieces with Piece(id, special).
func (t *Tokenizer) NewStreamDecoder(special bool) *StreamDecoder {
	return &StreamDecoder{t: t, special: special}
}

// Add appends the piece of id and returns the text that is complete so far.
func (d *StreamDecoder) Add(id int32) string {
	d.pending = append(d.pending, d.t.Piece(id, d.special)...)
	cut := len(d.pending) - incompleteTail(d.pending)
	if cut == 0 {
		return ""
	}
	out := string(d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return out
}

// Flush returns whatever is held back (an unfinished character) and resets
// the decoder.
func (d *StreamDecoder) Flush() string {
	out := string(d.pending)
	d.pending = d.pending[:0]
	return out
}

// incompleteTail returns the length of a trailing prefix of a valid UTF-8
// sequence that needs more bytes (0 to 3), or 0 when the end is complete or
// cannot become valid.
func incompleteTail(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c < 0xC0 {
			continue // continuation byte: the lead is further back
		}
		if utf8SeqLen(c) > k && validPrefix(b[len(b)-k:]) {
			return k
		}
		return 0
	}
	return 0
}

// validPrefix reports whether p can be extended to a valid UTF-8 encoding.
func validPrefix(p []byte) bool {
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], p)
	need := utf8SeqLen(p[0])
	for i := n; i < need; i++ {
		buf[i] = 0x80
	}
	// Try the smallest and largest continuation to cover range limits
	// (E0 needs A0.., ED needs ..9F, F0 needs 90.., F4 needs ..8F).
	for _, c := range []byte{0x80, 0x90, 0xA0, 0xBF} {
		for i := n; i < need; i++ {
			buf[i] = c
		}
		if r, size := utf8.DecodeRune(buf[:need]); r != utf8.RuneError && size == need {
			return true
		}
	}
	return false
}
