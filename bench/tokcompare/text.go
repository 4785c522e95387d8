package main

import "strings"

// mixedSamples are the kinds of text a tokenizer meets: prose with
// punctuation and contractions, code, numbers, CJK, accents and emoji.
var mixedSamples = []string{
	"Once upon a time, there was a little girl named Lily. She didn't like the rain, but she'd go out anyway!\n",
	"func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\treturn\n\t}\n}\n",
	"The 3 quick brown foxes jumped 1,234,567 times over 42.5 lazy dogs in 2026-11-22T14:41:29Z.   \n",
	"敏捷的棕色狐狸跳过了懒狗。日本語のテキストも少し。한국어 문장도 있습니다.\n",
	"Café naïve résumé — «quotes» and ‘curly’ ones… Ελληνικά και русский текст.\n",
	"Emoji: 🦊🐶👩‍💻🏳️‍🌈 and symbols ∑∫√≠ ≤≥ → ⇒\n",
	"    indented    spaces\t\ttabs\r\nwindows line endings and trailing space \n\n",
}

// mixedText repeats the samples, in a fixed order, up to about n bytes.
func mixedText(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(mixedSamples[i%len(mixedSamples)])
	}
	return []byte(b.String())
}
