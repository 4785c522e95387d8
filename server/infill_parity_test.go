package server

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// infillGolden is what llama-server answered on /infill
// (testdata/infill/README.md says how it was recorded).
type infillGolden struct {
	Model  string           `json:"model"`
	FIMIDs map[string]int64 `json:"fim_ids"`
	Cases  []struct {
		ServerArgs      []string        `json:"server_args"`
		Request         json.RawMessage `json:"request"`
		Content         string          `json:"content"`
		Tokens          []int32         `json:"tokens"`
		TokensEvaluated int             `json:"tokens_evaluated"`
		TokensPredicted int             `json:"tokens_predicted"`
	} `json:"cases"`
}

// fimModel loads a shared model with FIM token ids written into its
// metadata, as the golden's model was made.
func fimModel(t *testing.T, name string, ids map[string]int64) *engine.Loaded {
	t.Helper()
	data, err := os.ReadFile(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pre", "suf", "mid", "rep", "sep"} {
		f.KVs = append(f.KVs, gguf.KV{Key: "tokenizer.ggml.fim_" + k + "_token_id", Value: gguf.Uint32Value(uint32(ids[k]))})
	}
	var b bytes.Buffer
	if err := gguf.WriteFile(&b, f); err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestInfillMatchesLlamaServer: /infill on stories260K with FIM tokens
// evaluates the same number of prompt tokens as llama-server and, greedy,
// writes the same tokens, with -b 2048 (no room for input_extra), -b 64
// (extra context, prefix and suffix cut) and --spm-infill.
func TestInfillMatchesLlamaServer(t *testing.T) {
	b, err := os.ReadFile("testdata/infill/stories260K-fim.json")
	if err != nil {
		t.Fatal(err)
	}
	var g infillGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*testServer{}
	for _, c := range g.Cases {
		key, _ := json.Marshal(c.ServerArgs)
		ts := servers[string(key)]
		if ts == nil {
			ts = serveLoaded(t, fimModel(t, g.Model, g.FIMIDs), func(cfg *Config) {
				cfg.CtxSize, cfg.Parallel, cfg.KVUnified = 1024, 1, false
				cfg.Session.TypeK, cfg.Session.TypeV = kvcache.F32, kvcache.F32
				if slices.Contains(c.ServerArgs, "-b") {
					cfg.BatchSize, cfg.UBatchSize = 64, 64
				}
				cfg.SPMInfill = slices.Contains(c.ServerArgs, "--spm-infill")
			})
			servers[string(key)] = ts
		}
		code, m := ts.post(t, "/infill", string(c.Request))
		if code != 200 {
			t.Fatalf("%v %s: %d %v", c.ServerArgs, c.Request, code, m)
		}
		var toks []int32
		tb, _ := json.Marshal(m["tokens"])
		_ = json.Unmarshal(tb, &toks)
		if m["tokens_evaluated"].(float64) != float64(c.TokensEvaluated) || m["content"] != c.Content || !slices.Equal(toks, c.Tokens) {
			t.Fatalf("%v %s:\n got %v prompt tokens, %q %v\nwant %d, %q %v", c.ServerArgs, c.Request,
				m["tokens_evaluated"], m["content"], toks, c.TokensEvaluated, c.Content, c.Tokens)
		}
	}
}
