package tokenizer

import (
	"sort"
	"sync"
	"unicode"
)

// cpFlags is the per-code-point classification the pre-tokenizers work on:
// one general-category bit (the first letter of the Unicode category, with
// unassigned code points marked undefined) plus a White_Space bit.
type cpFlags uint16

const (
	fUndefined  cpFlags = 1 << iota // Cn, and anything past U+10FFFF
	fNumber                         // N*
	fLetter                         // L*
	fSeparator                      // Z*
	fMark                           // M*
	fPunct                          // P*
	fSymbol                         // S*
	fControl                        // Cc, Cf, Co, Cs
	fWhitespace                     // Unicode White_Space property
)

// maxCodepoint bounds the flag table; the lenient UTF-8 decoder can produce
// values up to 0x1FFFFF, which classify as undefined.
const maxCodepoint = 0x110000

var (
	flagsOnce  sync.Once
	flagsTable []cpFlags
)

// whitespaceSet is the Unicode White_Space property (PropList.txt), the
// set llama.cpp's \s means. It is spelled out rather than taken from
// unicode.IsSpace so that it cannot drift with Go's definition.
var whitespaceSet = [...]rune{
	0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
}

// buildFlags fills the table from Go's unicode range tables (unicode.Version)
// by walking each category's ranges, which takes a few milliseconds.
func buildFlags() {
	t := make([]cpFlags, maxCodepoint)
	for i := range t {
		t[i] = fUndefined
	}
	cats := []struct {
		tab  *unicode.RangeTable
		flag cpFlags
	}{
		{unicode.L, fLetter}, {unicode.M, fMark}, {unicode.N, fNumber},
		{unicode.P, fPunct}, {unicode.S, fSymbol}, {unicode.Z, fSeparator},
		{unicode.C, fControl},
	}
	for _, c := range cats {
		for _, r := range c.tab.R16 {
			for cp := int(r.Lo); cp <= int(r.Hi); cp += int(r.Stride) {
				t[cp] = c.flag
			}
		}
		for _, r := range c.tab.R32 {
			for cp := int(r.Lo); cp <= int(r.Hi); cp += int(r.Stride) {
				t[cp] = c.flag
			}
		}
	}
	for _, cp := range whitespaceSet {
		t[cp] |= fWhitespace
	}
	flagsTable = t
}

// flagsOf returns the classification of cp; out-of-range values are
// undefined, as in llama.cpp.
func flagsOf(cp rune) cpFlags {
	flagsOnce.Do(buildFlags)
	if cp < 0 || cp >= maxCodepoint {
		return fUndefined
	}
	return flagsTable[cp]
}

// toLower is the simple (one-to-one) lowercase mapping of UnicodeData.txt,
// which is what both Go's unicode.ToLower and llama.cpp use.
func toLower(cp rune) rune {
	if cp < 0 || cp >= maxCodepoint {
		return cp
	}
	return unicode.ToLower(cp)
}

// nfdFirstOf returns the first code point of cp's canonical decomposition.
func nfdFirstOf(cp rune) rune {
	i := sort.Search(len(nfdFirst), func(i int) bool { return nfdFirst[i].hi >= cp })
	if i < len(nfdFirst) && nfdFirst[i].lo <= cp {
		return nfdFirst[i].to
	}
	return cp
}

// utf8SeqLen returns the sequence length announced by a UTF-8 lead byte the
// way llama.cpp counts it: by the high nibble only, with no validation, so a
// stray continuation byte counts as one.
func utf8SeqLen(b byte) int {
	switch b >> 4 {
	case 0xC, 0xD:
		return 2
	case 0xE:
		return 3
	case 0xF:
		return 4
	}
	return 1
}

// decodeCodepoint decodes one code point at s[i:] with llama.cpp's lenient
// rules: the lead byte's bit pattern decides the length, continuation bytes
// must have the 10xxxxxx form, and overlong forms, surrogates and values up
// to 0x1FFFFF are accepted. An invalid sequence yields U+FFFD and consumes
// exactly one byte.
func decodeCodepoint(s string, i int) (rune, int) {
	b0 := s[i]
	switch {
	case b0 < 0x80:
		return rune(b0), 1
	case b0&0x40 == 0:
		return 0xFFFD, 1
	case b0&0x20 == 0:
		if i+1 < len(s) && isCont(s[i+1]) {
			return rune(b0&0x1F)<<6 | rune(s[i+1]&0x3F), 2
		}
	case b0&0x10 == 0:
		if i+2 < len(s) && isCont(s[i+1]) && isCont(s[i+2]) {
			return rune(b0&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
		}
	case b0&0x08 == 0:
		if i+3 < len(s) && isCont(s[i+1]) && isCont(s[i+2]) && isCont(s[i+3]) {
			return rune(b0&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F), 4
		}
	}
	return 0xFFFD, 1
}

func isCont(b byte) bool { return b&0xC0 == 0x80 }

// appendCodepoint appends the UTF-8 form of cp without Go's validation, so
// surrogates decoded from the input round-trip byte for byte as they do in
// llama.cpp. Values past U+10FFFF, which llama.cpp refuses with an
// exception, are written as U+FFFD.
func appendCodepoint(b []byte, cp rune) []byte {
	switch {
	case cp < 0:
		return append(b, 0xEF, 0xBF, 0xBD)
	case cp < 0x80:
		return append(b, byte(cp))
	case cp < 0x800:
		return append(b, 0xC0|byte(cp>>6), 0x80|byte(cp&0x3F))
	case cp < 0x10000:
		return append(b, 0xE0|byte(cp>>12), 0x80|byte(cp>>6&0x3F), 0x80|byte(cp&0x3F))
	case cp < maxCodepoint:
		return append(b, 0xF0|byte(cp>>18), 0x80|byte(cp>>12&0x3F), 0x80|byte(cp>>6&0x3F), 0x80|byte(cp&0x3F))
	}
	return append(b, 0xEF, 0xBF, 0xBD)
}
