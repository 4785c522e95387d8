package tokenizer

import (
	"fmt"
	"strings"
)

// buildPieces precomputes llama_token_to_piece(id, special = true) for every
// token, as llama.cpp's loader does; Piece only decides whether to show it.
func (t *Tokenizer) buildPieces() {
	t.pieces = make([]string, len(t.tokens))
	for id := range t.tokens {
		t.pieces[id] = t.renderPiece(int32(id))
	}
}

// renderPiece is the uncached token_to_piece with special tokens shown.
func (t *Tokenizer) renderPiece(id int32) string {
	a, text := t.attrs[id], t.tokens[id]
	switch {
	case a&(attrUnknown|attrControl|attrUserDefined) != 0:
		return text
	case a&attrNormal != 0:
		if t.v.Model == "gpt2" {
			return byteLevelText(text)
		}
		return strings.ReplaceAll(text, "\u2581", " ")
	case a&attrByte != 0 && t.v.Model != "bert":
		return string([]byte{hexByte(text)})
	}
	return "" // unused and undefined tokens render as nothing
}

// hexByte reads the NN of "<0xNN>" the way strtol does on those two
// characters: hex digits up to the first other character.
func hexByte(text string) byte {
	var v byte
	for i := 3; i < 5 && i < len(text); i++ {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return v
		}
	}
	return v
}

// byteLevelText decodes a byte-level BPE token. A code point outside the
// byte mapping is written as llama.cpp writes it: "[UNK_BYTE_0x<hex of its
// UTF-8><token text>]".
func byteLevelText(text string) string {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		cp, n := decodeCodepoint(text, i)
		i += n
		if cp >= 0 && cp < byteLevelLimit && runeToByte[cp] >= 0 {
			out = append(out, byte(runeToByte[cp]))
			continue
		}
		out = append(out, "[UNK_BYTE_0x"...)
		for _, b := range appendCodepoint(nil, cp) {
			out = fmt.Appendf(out, "%02x", b)
		}
		out = append(out, text...)
		out = append(out, ']')
	}
	return string(out)
}

// Piece is llama_token_to_piece(id, lstrip = 0, special): the text of one
// token. Control and unknown tokens are empty unless special is set; ids
// out of range are empty.
func (t *Tokenizer) Piece(id int32, special bool) string {
	if id < 0 || int(id) >= len(t.pieces) {
		return ""
	}
	if !special && t.attrs[id]&(attrControl|attrUnknown) != 0 {
		return ""
	}
	return t.pieces[id]
}

// Decode is llama_detokenize: the pieces of ids joined, with a BOS (and,
// when the vocab adds one, a final EOS) dropped if removeSpecial, special
// tokens shown if unparseSpecial, one leading space removed when the vocab
// adds a space prefix (unless a BOS was dropped), and llama.cpp's
// clean-up of spaces before punctuation for vocabs that ask for it.
func (t *Tokenizer) Decode(ids []int32, removeSpecial, unparseSpecial bool) string {
	return string(t.AppendDecode(nil, ids, removeSpecial, unparseSpecial))
}

// AppendDecode is Decode appending to dst.
func (t *Tokenizer) AppendDecode(dst []byte, ids []int32, removeSpecial, unparseSpecial bool) []byte {
	removeSpace := t.addSpace
	if removeSpecial && t.addBOS && len(ids) > 0 && ids[0] == t.bos {
		removeSpace = false
		ids = ids[1:]
	}
	if removeSpecial && t.addEOS && len(ids) > 0 && ids[len(ids)-1] == t.eos {
		ids = ids[:len(ids)-1]
	}
	start := len(dst)
	for _, id := range ids {
		p := t.Piece(id, unparseSpecial)
		if removeSpace && len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		removeSpace = false
		dst = append(dst, p...)
	}
	if t.cleanSpaces {
		dst = append(dst[:start], cleanSpaces(dst[start:])...)
	}
	return dst
}

// cleanSpaces is llama.cpp's clean_up_tokenization_spaces, three in-place
// passes over the bytes: drop the space in " ?", " !", " .", " ,"; turn
// " ' " into "'"; drop the space in " 's", " 'm", " 're", " 've".
func cleanSpaces(b []byte) []byte {
	n := len(b)
	if n == 0 {
		return b
	}
	// pass 1
	total := 1
	for i := 1; i < n; i++ {
		x := b[i]
		if b[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			total--
		}
		b[total] = x
		total++
	}
	// pass 2: the space after the apostrophe is overwritten with NUL and
	// skipped, so it no longer counts as a space for the next character.
	n, total = total, 1
	for i := 1; i < n; i++ {
		x := b[i]
		if x == '\'' && i+1 < n && b[i-1] == ' ' && b[i+1] == ' ' {
			total--
			i++
			b[i] = 0
		}
		b[total] = x
		total++
	}
	// pass 3
	n, total = total, 1
	for i := 1; i < n; i++ {
		x := b[i]
		if b[i-1] == ' ' && x == '\'' && i+1 < n {
			x1 := b[i+1]
			switch {
			case x1 == 's' || x1 == 'm':
				total--
			case x1 == 't' || x1 == 'd':
			case i+2 < n && (x1 == 'r' || x1 == 'v') && b[i+2] == 'e':
				total--
			}
		}
		b[total] = x
		total++
	}
	return b[:total]
}
