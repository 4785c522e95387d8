package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/dream"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestTinyMatchesLlamaQuantizeLayout generates the tiny shape (the layout
// of synth-llama3-tiny-q4_k_m.gguf: Llama-3 vocabulary, tied output, GQA
// 4:1) as Q4_K_M and requires llama-quantize's tensor order, types and
// shapes, and a tokenizer identical to the reference file's.
func TestTinyMatchesLlamaQuantizeLayout(t *testing.T) {
	ref, err := gguf.Open(testenv.Model(t, "synth-llama3-tiny-q4_k_m.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	out := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := run("tiny", "Q4_K_M", out, testenv.TestdataDir(t), 7, 2, 0); err != nil {
		t.Fatal(err)
	}
	got, err := gguf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if len(got.Tensors) != len(ref.Tensors) {
		t.Fatalf("%d tensors, want %d", len(got.Tensors), len(ref.Tensors))
	}
	for i := range ref.Tensors {
		g, w := &got.Tensors[i], &ref.Tensors[i]
		if g.Name != w.Name || g.Type != w.Type || len(g.Dims) != len(w.Dims) || g.Dims[0] != w.Dims[0] {
			t.Errorf("tensor %d: %s %v %v, want %s %v %v", i, g.Name, g.Type, g.Dims, w.Name, w.Type, w.Dims)
		}
	}
	for _, key := range []string{"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens", "tokenizer.ggml.merges"} {
		gv, ok1 := got.Get(key)
		wv, ok2 := ref.Get(key)
		if !ok1 || !ok2 || gv.Len() != wv.Len() || gv.Summary(8) != wv.Summary(8) {
			t.Errorf("%s: got %v, want %v", key, gv.Summary(8), wv.Summary(8))
		}
	}
	if ft, _ := got.Uint("general.file_type"); ft != 15 {
		t.Errorf("general.file_type = %d, want 15 (Q4_K_M)", ft)
	}
}

// TestDeterministic checks that the seed alone fixes the bytes: two runs
// with different thread counts give the same file, another seed does not.
func TestDeterministic(t *testing.T) {
	td := testenv.TestdataDir(t)
	testenv.Require(t, filepath.Join(td, "tokenizer", "ggml-vocab-llama-bpe.gguf"))
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")}
	for i, cfg := range []struct {
		seed    uint64
		threads int
	}{{1, 1}, {1, 2}, {2, 2}} {
		if err := run("tiny", "q4_0", files[i], td, cfg.seed, cfg.threads, 0); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(files[0])
	b, _ := os.ReadFile(files[1])
	c, _ := os.ReadFile(files[2])
	if string(a) != string(b) {
		t.Error("same seed, different threads: files differ")
	}
	if string(a) == string(c) {
		t.Error("different seeds: files are identical")
	}
}

// TestDreamShapeLoads generates the dream layout (small) and loads it as
// a diffusion model: the mask token is Dream's <|mask|> at 151666, a
// control token, the logits are shifted (no diffusion.shift_logits key,
// as Dream's converter writes), and one denoising forward runs.
func TestDreamShapeLoads(t *testing.T) {
	td := testenv.TestdataDir(t)
	testenv.Require(t, filepath.Join(td, "tokenizer", "ggml-vocab-qwen2.gguf"))
	out := filepath.Join(t.TempDir(), "dream.gguf")
	if err := run("dream-tiny", "q8_0", out, td, 1, 2, 0); err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dm, ok := l.Model.(engine.DiffusionModel)
	if !ok {
		t.Fatalf("%T is not a diffusion model", l.Model)
	}
	info := dm.Diffusion()
	if info.MaskToken != 151666 || !info.ShiftLogits || l.Tokenizer.Token(151666) != "<|mask|>" || l.Tokenizer.Piece(151666, false) != "" {
		t.Fatalf("mask %d %q (piece %q), shift %v", info.MaskToken, l.Tokenizer.Token(151666), l.Tokenizer.Piece(151666, false), info.ShiftLogits)
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{NCtx: 64})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetPrefix(0, l.Tokenizer.Encode("Hello", true, true)); err != nil {
		t.Fatal(err)
	}
	rows := 0
	err = d.Denoise([]engine.Canvas{{Tokens: []int32{151666, 151666, 151666}}}, func(k, i int, logits []float32) {
		rows++
		if len(logits) != 151936 {
			t.Fatalf("%d logits", len(logits))
		}
	})
	if err != nil || rows != 3 {
		t.Fatalf("denoise: %v, %d rows", err, rows)
	}
}

// TestTinyMoELoadsCut generates the qwen3moe test shape cut to one layer
// and decodes with it: the expert tensors' 3-D layout, the metadata the
// loader requires (expert counts, key_length) and -layers all hold.
func TestTinyMoELoadsCut(t *testing.T) {
	td := testenv.TestdataDir(t)
	testenv.Require(t, filepath.Join(td, "tokenizer", "ggml-vocab-qwen2.gguf"))
	out := filepath.Join(t.TempDir(), "moe.gguf")
	if err := run("tiny-moe", "q8_0", out, td, 3, 2, 1); err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n, _ := l.File.Uint("qwen3moe.block_count"); n != 1 {
		t.Fatalf("block_count %d, want 1 (cut by -layers)", n)
	}
	if _, ok := l.File.Tensor("output.weight"); !ok {
		t.Fatal("no output.weight: the shape's output head is untied")
	}
	ex, ok := l.File.Tensor("blk.0.ffn_down_exps.weight")
	if !ok || len(ex.Dims) != 3 || ex.Dims[0] != 128 || ex.Dims[1] != 256 || ex.Dims[2] != 16 {
		t.Fatalf("ffn_down_exps: %+v", ex)
	}
	sess, err := l.Model.NewSession(engine.SessionOptions{NCtx: 64, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range []int32{9707, 11, 1879} {
		b.Add(tok, int32(i), 0, i == 2)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	for _, v := range sess.Logits(0) {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatal("non-finite logit")
		}
	}
}
