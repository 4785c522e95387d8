package tokenizer

// GPT-2 byte-level encoding: every byte is shown as one printable code point
// so BPE vocabularies can store arbitrary bytes as text. Printable Latin-1
// bytes map to themselves; the other 68 bytes map, in byte order, to
// U+0100 and up.

// byteLevelLimit bounds the code points the mapping uses (U+0000..U+0143).
const byteLevelLimit = 0x144

var (
	byteToRune [256]rune
	byteToUTF8 [256]string
	// runeToByte maps back; -1 marks code points outside the mapping.
	runeToByte [byteLevelLimit]int16
)

func init() {
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !(b >= 0x21 && b <= 0x7E || b >= 0xA1 && b <= 0xAC || b >= 0xAE) {
			r = 256 + n
			n++
		}
		byteToRune[b] = r
		byteToUTF8[b] = string(r)
		runeToByte[r] = int16(b)
	}
}

// byteLevelDecode turns a byte-level token text back into raw bytes. It
// reports false when the text holds a code point outside the mapping (such
// tokens can never come out of byte-level BPE).
func byteLevelDecode(text string) ([]byte, bool) {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		cp, n := decodeCodepoint(text, i)
		i += n
		if cp < 0 || cp >= byteLevelLimit || runeToByte[cp] < 0 {
			return nil, false
		}
		out = append(out, byte(runeToByte[cp]))
	}
	return out, true
}
