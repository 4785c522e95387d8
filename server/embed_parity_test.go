package server

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/kvcache"
)

// embedGolden is what llama-server answered on /tokenize and /embeddings
// (testdata/embeddings/README.md says how it was recorded).
type embedGolden struct {
	Model string `json:"model"`
	Cases []struct {
		Pooling   string      `json:"pooling"`
		Input     string      `json:"input"`
		Tokens    []int32     `json:"tokens"`
		Embedding [][]float32 `json:"embedding"`
	} `json:"cases"`
}

// embedTolerance bounds |Waggle − llama.cpp| per value of an embedding
// (unit vectors for the pooled kinds, raw final states for none); the
// measured worst case is in the README beside the golden.
const embedTolerance = 5e-5

// TestEmbeddingsMatchLlamaServer: stories260K's embeddings through the
// server, every pooling, equal llama-server's (tokens exactly, values
// within embedTolerance).
func TestEmbeddingsMatchLlamaServer(t *testing.T) {
	b, err := os.ReadFile("testdata/embeddings/stories260K-f32.json")
	if err != nil {
		t.Fatal(err)
	}
	var g embedGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*testServer{}
	worst := 0.0
	for _, c := range g.Cases {
		ts := servers[c.Pooling]
		if ts == nil {
			ts = serveLoaded(t, loadShared(t, g.Model), func(cfg *Config) {
				cfg.Embeddings, cfg.Pooling, cfg.CtxSize = true, c.Pooling, 1024
				cfg.Session.TypeK, cfg.Session.TypeV = kvcache.F32, kvcache.F32
			})
			servers[c.Pooling] = ts
		}
		if toks := ts.cfg.Tokenizer.Encode(c.Input, true, true); !slices.Equal(toks, c.Tokens) {
			t.Fatalf("%q: tokens %v, llama-server %v", c.Input, toks, c.Tokens)
		}
		body, _ := json.Marshal(map[string]string{"content": c.Input})
		code, out := ts.do(t, "POST", "/embeddings", string(body))
		var res []struct{ Embedding [][]float32 }
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 200 || len(res) != 1 {
			t.Fatalf("%s %q: %d %s", c.Pooling, c.Input, code, out)
		}
		got := res[0].Embedding
		if len(got) != len(c.Embedding) {
			t.Fatalf("%s %q: %d rows, llama-server %d", c.Pooling, c.Input, len(got), len(c.Embedding))
		}
		for r := range got {
			for k := range got[r] {
				worst = max(worst, math.Abs(float64(got[r][k]-c.Embedding[r][k])))
			}
		}
		if worst > embedTolerance {
			t.Fatalf("%s %q: differs from llama-server by %g > %g", c.Pooling, c.Input, worst, embedTolerance)
		}
	}
	t.Logf("%d cases, worst |Δ| %.3g", len(g.Cases), worst)
}
