package tokenizer

import (
	"strings"
	"testing"
)

// benchText is about 1 MiB of mixed text: English prose, Go code, CJK,
// emoji, numbers and whitespace runs.
var benchText = func() string {
	parts := []string{
		"The quick brown fox jumps over the lazy dog. It's 3:45pm; they'll arrive at 10,000 ft.\n",
		"func (t *Tokenizer) Encode(text string) []int32 {\n\tfor i := 0; i < len(text); i++ {\n\t\tx += i * 31\n\t}\n}\n",
		"机器学习是人工智能的一个分支。日本語のテキストも含まれています。한국어 문장도 있습니다.\n",
		"Emoji: 🙂🚀🔥👍🏽 and flags 🇺🇸🇯🇵 — naïve café résumé Ωμέγα Привет мир.\n",
		"3.14159265358979 2718281828 1234567890 0x1F 1e-9 42%   \t  indented    \n\n",
	}
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		for _, p := range parts {
			sb.WriteString(p)
		}
	}
	return sb.String()
}()

func BenchmarkEncode(b *testing.B) {
	for _, name := range vocabFiles {
		b.Run(name, func(b *testing.B) {
			tk := loadVocab(b, name)
			buf := tk.AppendEncode(nil, benchText, false, false)
			b.SetBytes(int64(len(benchText)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf = tk.AppendEncode(buf[:0], benchText, false, false)
			}
			b.ReportMetric(float64(len(buf)), "tokens")
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"qwen2", "llama-bpe", "llama-spm"} {
		b.Run(name, func(b *testing.B) {
			tk := loadVocab(b, name) // fixture present?
			_ = tk
			for i := 0; i < b.N; i++ {
				tokCacheMu.Lock()
				delete(tokCache, vocabPath(b, name))
				tokCacheMu.Unlock()
				loadVocab(b, name)
			}
		})
	}
}

// TestEncodeAllocs: a warm tokenizer allocates nothing but the output.
func TestEncodeAllocs(t *testing.T) {
	for _, name := range []string{"llama-spm", "qwen2", "bert-bge", "deepseek-llm"} {
		tk := loadVocab(t, name)
		text := benchText[:4096]
		buf := tk.AppendEncode(nil, text, true, true)
		allocs := testing.AllocsPerRun(20, func() {
			buf = tk.AppendEncode(buf[:0], text, true, true)
		})
		if allocs >= 1 {
			t.Errorf("%s: %.1f allocations per warm Encode", name, allocs)
		}
	}
}
