package grammar

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/engine/tokenizer"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// jsonGBNF is llama.cpp's grammars/json.gbnf in substance: any JSON value
// with bounded whitespace.
const jsonGBNF = `root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array  ::= "[" ws ( value ("," ws value)* )? "]" ws
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
`

func loadTokenizer(tb testing.TB, path string) *tokenizer.Tokenizer {
	tb.Helper()
	testenv.Require(tb, path)
	f, err := gguf.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		tb.Fatal(err)
	}
	return tk
}

const benchJSON = `{"name": "Ada Lovelace", "born": 1815, "tags": ["math", "poetry"], "notes": {"engine": "analytical", "ok": true}}`

// BenchmarkFilterJSON filters the whole Llama 3 vocabulary at every token
// of a JSON document, as a sampler does when every draw is rejected
// (cold: fresh memo tables per document; warm: the same Matcher again).
func BenchmarkFilterJSON(b *testing.B) {
	tk := loadTokenizer(b, filepath.Join(testenv.TestdataDir(b), "tokenizer", "ggml-vocab-llama-bpe.gguf"))
	ix := NewIndex(tk)
	g, err := Parse(jsonGBNF, nil)
	if err != nil {
		b.Fatal(err)
	}
	toks := tk.Encode(benchJSON, false, false)
	cands := make([]sample.Candidate, tk.NVocab())
	run := func(m *Matcher) {
		for _, tok := range toks {
			for i := range cands {
				cands[i] = sample.Candidate{ID: int32(i)}
			}
			m.Filter(cands)
			if !m.Allowed(tok) {
				b.Fatalf("token %q rejected", tk.Piece(tok, true))
			}
			m.Accept(tok)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for range b.N {
			run(NewMatcher(g, ix))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
	})
	b.Run("warm", func(b *testing.B) {
		m0 := NewMatcher(g, ix)
		run(m0.Clone())
		b.ResetTimer()
		for range b.N {
			run(m0.Clone())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
	})
}

func BenchmarkNewIndex(b *testing.B) {
	tk := loadTokenizer(b, filepath.Join(testenv.TestdataDir(b), "tokenizer", "ggml-vocab-llama-bpe.gguf"))
	for range b.N {
		NewIndex(tk)
	}
}
