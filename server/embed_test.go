package server

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
)

// embedServer serves the demo network with --embeddings and pooling.
func embedServer(t *testing.T, pooling string, mutate ...func(*Config)) *testServer {
	return newTestServer(t, func(c *Config) {
		c.Embeddings, c.Pooling = true, pooling
		for _, m := range mutate {
			m(c)
		}
	})
}

// reference computes an input's embedding outside the server: a fresh
// session, engine.EmbedSequence, Euclidean normalisation for pooled
// vectors.
func reference(t *testing.T, ts *testServer, toks []int32, p engine.Pooling) [][]float32 {
	t.Helper()
	sess, err := ts.cfg.Model.NewSession(engine.SessionOptions{NCtx: 512})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := engine.EmbedSequence(sess, 0, toks, p)
	if err != nil {
		t.Fatal(err)
	}
	if p != engine.PoolingNone {
		for _, r := range rows {
			engine.Normalize(r, r, 2)
		}
	}
	return rows
}

// vectors reads embeddings out of JSON arrays.
func vectors(t *testing.T, v any) [][]float32 {
	t.Helper()
	b, _ := json.Marshal(v)
	var out [][]float32
	if err := json.Unmarshal(b, &out); err != nil {
		var one []float32
		if json.Unmarshal(b, &one) != nil {
			t.Fatalf("not a vector or list of vectors: %s", b)
		}
		out = [][]float32{one}
	}
	return out
}

func sameRows(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k := range a[i] {
			if a[i][k] != b[i][k] {
				return false
			}
		}
	}
	return true
}

func TestEmbeddingsOffIs501(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, path := range []string{"/v1/embeddings", "/embeddings", "/embedding"} {
		code, m := ts.post(t, path, `{"input":"hi"}`)
		if code != 501 || !strings.Contains(errorOf(t, m)["message"].(string), "--embeddings") {
			t.Fatalf("%s: %d %v", path, code, m)
		}
	}
}

// TestEmbeddingsMatchEngine: every pooling, through the server, equals
// the engine's embedding of the same tokens bit for bit (the scheduler's
// chunking and batching change nothing), and pooled vectors have unit
// length.
func TestEmbeddingsMatchEngine(t *testing.T) {
	text := "once upon a time there was a little dog"
	for _, p := range []engine.Pooling{engine.PoolingMean, engine.PoolingCLS, engine.PoolingLast} {
		ts := embedServer(t, p.String())
		toks := ts.cfg.Tokenizer.Encode(text, true, true)
		want := reference(t, ts, toks, p)
		code, m := ts.post(t, "/v1/embeddings", jsonf(`{"input":%q,"model":"e"}`, text))
		if code != 200 {
			t.Fatalf("%s: %d %v", p, code, m)
		}
		d := m["data"].([]any)[0].(map[string]any)
		got := vectors(t, d["embedding"])
		if !sameRows(got, want) || d["object"] != "embedding" || m["object"] != "list" || m["model"] != ts.ModelID() {
			t.Fatalf("%s: %v\nwant %v", p, m, want)
		}
		var norm float64
		for _, v := range got[0] {
			norm += float64(v) * float64(v)
		}
		if math.Abs(norm-1) > 1e-5 || m["usage"].(map[string]any)["prompt_tokens"].(float64) != float64(len(toks)) {
			t.Fatalf("%s: |v|² = %g, usage %v", p, norm, m["usage"])
		}
	}
}

// TestEmbeddingsInputs: a list of inputs (text, token ids, text mixed
// with ids) spread over the slots comes back in order, each equal to its
// own embedding; base64 is the same floats.
func TestEmbeddingsInputs(t *testing.T) {
	ts := embedServer(t, "mean")
	tk := ts.cfg.Tokenizer
	inputs := []string{`"once upon a time"`, `[1, 300, 301, 302]`, `["the dog", 300, "and the cat"]`, `"a"`, `"the quick brown fox"`}
	mixed := append(append(tk.Encode("the dog", true, true), 300), tk.Encode("and the cat", false, true)...)
	toks := [][]int32{tk.Encode("once upon a time", true, true), {1, 300, 301, 302}, mixed, tk.Encode("a", true, true), tk.Encode("the quick brown fox", true, true)}
	code, m := ts.post(t, "/v1/embeddings", `{"input":[`+strings.Join(inputs, ",")+`]}`)
	if code != 200 {
		t.Fatal(m)
	}
	data := m["data"].([]any)
	total := 0
	for i, tk := range toks {
		d := data[i].(map[string]any)
		if d["index"].(float64) != float64(i) || !sameRows(vectors(t, d["embedding"]), reference(t, ts, tk, engine.PoolingMean)) {
			t.Fatalf("input %d (%s): wrong embedding or index", i, inputs[i])
		}
		total += len(tk)
	}
	if m["usage"].(map[string]any)["prompt_tokens"].(float64) != float64(total) {
		t.Fatalf("usage %v, want %d tokens", m["usage"], total)
	}
	code, b := ts.post(t, "/v1/embeddings", `{"input":"once upon a time","encoding_format":"base64"}`)
	raw, err := base64.StdEncoding.DecodeString(b["data"].([]any)[0].(map[string]any)["embedding"].(string))
	if code != 200 || err != nil {
		t.Fatal(b, err)
	}
	want := vectors(t, data[0].(map[string]any)["embedding"])[0]
	for k, v := range want {
		if math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:])) != v {
			t.Fatalf("base64 value %d differs", k)
		}
	}
}

// TestEmbeddingsNative: /embeddings answers llama.cpp's list; pooling
// none gives one raw vector per token there and is refused by the OpenAI
// route.
func TestEmbeddingsNative(t *testing.T) {
	ts := embedServer(t, "none")
	toks := ts.cfg.Tokenizer.Encode("once upon a time", true, true)
	code, m := ts.post(t, "/v1/embeddings", `{"input":"once upon a time"}`)
	if code != 400 || !strings.Contains(errorOf(t, m)["message"].(string), "Pooling type 'none' is not OAI compatible") {
		t.Fatalf("%d %v", code, m)
	}
	for _, body := range []string{`{"content":"once upon a time"}`, `{"input":"once upon a time"}`} {
		code, out := ts.do(t, "POST", "/embeddings", body)
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil || code != 200 || len(list) != 1 {
			t.Fatalf("%s: %d %s", body, code, out)
		}
		if got := vectors(t, list[0]["embedding"]); !sameRows(got, reference(t, ts, toks, engine.PoolingNone)) || len(got) != len(toks) {
			t.Fatalf("%s: %d rows, want the %d raw token rows", body, len(got), len(toks))
		}
	}
	ts = embedServer(t, "mean")
	code, out := ts.do(t, "POST", "/v1/embeddings", `{"content":"hi"}`) // llama.cpp's field: its answer
	if code != 200 || !strings.HasPrefix(out, `[{"embedding":[[`) {
		t.Fatalf("content on /v1/embeddings: %d %s", code, out)
	}
}

// TestEmbeddingsAcrossSteps: an input longer than the step runs over
// several steps and still equals the engine's one-batch result. The
// inputs of one request go round the two slots, so each slot runs three
// in a row: with last pooling the second (extending the first) reuses the
// slot's cache, and the third (wholly cached) still evaluates its last
// token.
func TestEmbeddingsAcrossSteps(t *testing.T) {
	text := strings.Repeat("the quick brown fox and the dog ", 12) + "the end"
	inputs := []string{text, "once upon a time", text + " once upon a time", "the cat", text, text}
	for _, p := range []string{"mean", "last"} {
		ts := embedServer(t, p, func(c *Config) { c.CtxSize, c.UBatchSize = 1024, 32 })
		pool, _ := engine.ParsePooling(p)
		body, _ := json.Marshal(map[string]any{"input": inputs})
		code, m := ts.post(t, "/v1/embeddings", string(body))
		if code != 200 {
			t.Fatalf("%s: %d %v", p, code, m)
		}
		long := ts.cfg.Tokenizer.Encode(inputs[2], true, true)
		if toks := ts.cfg.Tokenizer.Encode(text, true, true); !slices.Equal(long[:len(toks)], toks) {
			t.Fatal("the third input does not extend the first")
		}
		for i, in := range inputs {
			toks := ts.cfg.Tokenizer.Encode(in, true, true)
			if !sameRows(vectors(t, m["data"].([]any)[i].(map[string]any)["embedding"]), reference(t, ts, toks, pool)) {
				t.Fatalf("%s: input %d (%d tokens): embedding differs", p, i, len(toks))
			}
		}
	}
}

// TestEmbeddingsBesideGeneration: embeddings and a completion running at
// the same time do not change each other's results.
func TestEmbeddingsBesideGeneration(t *testing.T) {
	ts := embedServer(t, "mean")
	gen := `{"prompt":"once upon a time","n_predict":24,"temperature":0}`
	_, solo := ts.post(t, "/completion", gen)
	toks := ts.cfg.Tokenizer.Encode("the quick brown fox", true, true)
	want := reference(t, ts, toks, engine.PoolingMean)
	var wg sync.WaitGroup
	var text any
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, m := ts.post(t, "/completion", gen)
		text = m["content"]
	}()
	for range 4 {
		code, m := ts.post(t, "/v1/embeddings", `{"input":["the quick brown fox","the quick brown fox"]}`)
		if code != 200 {
			t.Fatal(m)
		}
		for _, d := range m["data"].([]any) {
			if !sameRows(vectors(t, d.(map[string]any)["embedding"]), want) {
				t.Fatal("an embedding changed beside a generation")
			}
		}
	}
	wg.Wait()
	if text != solo["content"] {
		t.Fatalf("completion beside embeddings %q, alone %q", text, solo["content"])
	}
}

func TestEmbeddingsRefusals(t *testing.T) {
	ts := embedServer(t, "mean")
	long := strings.Repeat("the dog ", 200) // past the 128 positions of a slot
	for _, body := range []string{
		`{}`, `{"input":[]}`, `{"input":[[]]}`, `{"input":[99999]}`, `{"input":{"a":1}}`,
		`{"input":"x","encoding_format":"int8"}`, `{"input":[1.5]}`, jsonf(`{"input":%q}`, long),
	} {
		code, m := ts.post(t, "/v1/embeddings", body)
		if code != 400 {
			t.Fatalf("%.60s: %d %v", body, code, m)
		}
		errorOf(t, m)
	}
}

// TestPoolingFromModel: without --pooling the GGUF's pooling_type
// decides; --pooling rank or an unknown name stops New.
func TestPoolingFromModel(t *testing.T) {
	ts := serveLoaded(t, demoWith(t, gguf.KV{Key: "llama.pooling_type", Value: gguf.Uint32Value(3)}), func(c *Config) { c.Embeddings = true })
	toks := ts.cfg.Tokenizer.Encode("once upon a time", true, true)
	code, m := ts.post(t, "/v1/embeddings", `{"input":"once upon a time"}`)
	if code != 200 || !sameRows(vectors(t, m["data"].([]any)[0].(map[string]any)["embedding"]), reference(t, ts, toks, engine.PoolingLast)) {
		t.Fatalf("pooling_type 3 (last): %d %v", code, m)
	}
	for _, p := range []string{"rank", "max"} {
		cfg := ConfigFor(demoWith(t))
		cfg.NewSampler, cfg.Embeddings, cfg.Pooling = testSampler, true, p
		if _, err := New(cfg); err == nil {
			t.Fatalf("--pooling %s accepted", p)
		}
	}
	cfg := ConfigFor(demoWith(t, gguf.KV{Key: "llama.pooling_type", Value: gguf.Uint32Value(9)}))
	cfg.NewSampler, cfg.Embeddings = testSampler, true
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "pooling") {
		t.Fatalf("a bad pooling_type: %v", err)
	}
}
