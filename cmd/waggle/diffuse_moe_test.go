package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// writeLLaDAMoE writes the synthetic llada-moe model of
// testdata/llada-moe-cli.json: the tokenizer of synth-llada-spm-f32.gguf
// (512 SentencePiece tokens plus <|mask|> 512), 2 layers, n_embd 64, 4
// heads of 16 (MHA), per-head q/k norms, 4 experts of 32, top 2, F32. The
// weights come from a PCG stream seeded 31, with the recipe of the shared
// synthetic fixtures: token_embd and output ~ N(0, (4/√n_embd)²), other
// matrices ~ N(0, 1/fan_in), norms ~ 1 + N(0, 0.1²). The same bytes come
// out on every machine, so llama.cpp's outputs recorded for them stay
// valid.
func writeLLaDAMoE(t *testing.T, path string) {
	t.Helper()
	src, err := gguf.Open(testenv.Model(t, filepath.Join("diffusion", "synth-llada-spm-f32.gguf")))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	const (
		nEmbd, nLayer, nHead, headDim, nExpert, nUsed, nFFExp, nVocab = 64, 2, 4, 16, 4, 2, 32, 513
	)
	w := gguf.NewWriter(32)
	a := func(k string) string { return "llada-moe." + k }
	u32 := func(k string, v uint32) { w.AddKV(a(k), gguf.Uint32Value(v)) }
	w.AddKV("general.architecture", gguf.StringValue("llada-moe"))
	w.AddKV("general.name", gguf.StringValue("synth-llada-moe-spm-f32"))
	u32("context_length", 2048)
	u32("embedding_length", nEmbd)
	u32("block_count", nLayer)
	u32("feed_forward_length", nFFExp*nUsed)
	u32("attention.head_count", nHead)
	u32("attention.head_count_kv", nHead)
	u32("rope.dimension_count", headDim)
	u32("expert_count", nExpert)
	u32("expert_used_count", nUsed)
	u32("expert_feed_forward_length", nFFExp)
	w.AddKV(a("rope.freq_base"), gguf.Float32Value(50000))
	w.AddKV(a("attention.layer_norm_rms_epsilon"), gguf.Float32Value(1e-5))
	w.AddKV(a("attention.causal"), gguf.BoolValue(false))
	w.AddKV("diffusion.shift_logits", gguf.BoolValue(false))
	for _, kv := range src.KVs {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			w.AddKV(kv.Key, kv.Value)
		}
	}
	rng := rand.New(rand.NewPCG(31, 0))
	add := func(name string, mean, sd float64, dims ...int64) {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		b := make([]byte, 4*n)
		for i := range n {
			v := float32(mean + sd*rng.NormFloat64())
			u := math.Float32bits(v)
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		}
		if err := w.AddTensor(name, gguf.TypeF32, dims, b); err != nil {
			t.Fatal(err)
		}
	}
	mat := func(name string, in, out int64, more ...int64) {
		add(name, 0, 1/math.Sqrt(float64(in)), append([]int64{in, out}, more...)...)
	}
	add("token_embd.weight", 0, 4/math.Sqrt(nEmbd), nEmbd, nVocab)
	add("output_norm.weight", 1, 0.1, nEmbd)
	add("output.weight", 0, 4/math.Sqrt(nEmbd), nEmbd, nVocab)
	for l := range nLayer {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", 1, 0.1, nEmbd)
		mat(p+"attn_q.weight", nEmbd, nEmbd)
		mat(p+"attn_k.weight", nEmbd, nEmbd)
		mat(p+"attn_v.weight", nEmbd, nEmbd)
		mat(p+"attn_output.weight", nEmbd, nEmbd)
		add(p+"attn_q_norm.weight", 1, 0.1, headDim)
		add(p+"attn_k_norm.weight", 1, 0.1, headDim)
		add(p+"ffn_norm.weight", 1, 0.1, nEmbd)
		mat(p+"ffn_gate_inp.weight", nEmbd, nExpert)
		mat(p+"ffn_gate_exps.weight", nEmbd, nFFExp, nExpert)
		mat(p+"ffn_up_exps.weight", nEmbd, nFFExp, nExpert)
		mat(p+"ffn_down_exps.weight", nFFExp, nEmbd, nExpert)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := w.WriteTo(f); err != nil {
		t.Fatal(err)
	}
}

// moeRecord is testdata/llada-moe-cli.json: llama-diffusion-cli command
// lines (the model path left out) and what the CLI printed for each.
type moeRecord struct {
	SHA256 string `json:"sha256"`
	Runs   []struct {
		Args    []string `json:"args"`
		TextHex string   `json:"text_hex"`
	} `json:"runs"`
}

// TestDiffuseLLaDAMoEMatchesLlamaDiffusionCLI: on a synthetic llada-moe
// model (no shared fixture has one), `waggle diffuse` prints what
// llama-diffusion-cli printed for the same command lines: greedy runs of
// every algorithm and sampled ones, so the forward (q/k norms, NEOX rotary,
// unnormalised top-k expert weights) agrees with llama.cpp's wherever the
// text depends on it.
func TestDiffuseLLaDAMoEMatchesLlamaDiffusionCLI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synth-llada-moe-spm-f32.gguf")
	writeLLaDAMoE(t, path)
	if os.Getenv("WAGGLE_WRITE_LLADA_MOE") != "" { // to record the CLI's outputs
		b, _ := os.ReadFile(path)
		os.WriteFile(os.Getenv("WAGGLE_WRITE_LLADA_MOE"), b, 0o644)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "llada-moe-cli.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec moeRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if got := fileSHA256(t, path); got != rec.SHA256 {
		t.Fatalf("generated model sha256 %s, recorded %s: the generator changed", got, rec.SHA256)
	}
	for _, run := range rec.Runs {
		want, err := hex.DecodeString(run.TextHex)
		if err != nil {
			t.Fatal(err)
		}
		out, err := runCLI(t, append([]string{"diffuse", "-m", path}, run.Args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want)+"\n" {
			t.Errorf("%v: printed %q\nllama-diffusion-cli printed %q", run.Args, out, want)
		}
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
