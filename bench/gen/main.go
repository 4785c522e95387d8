// Command gen writes synthetic GGUF models with the shapes of real ones
// (Llama-3.2-1B, Qwen2.5-0.5B, Qwen3.5-0.8B, Qwen3-30B-A3B) and random weights, for speed comparisons
// with llama.cpp where the real weights cannot be downloaded:
//
//	go run ./bench/gen -shape llama3.2-1b -type q4_0 -o /work/bench-models/synth-llama3.2-1b-q4_0.gguf
//
// -layers keeps only the first N layers of a shape (every layer's shape
// unchanged): Qwen3-30B-A3B with all 128 experts does not fit in memory
// at 48 layers on a small machine, and a cut model still measures the
// per-layer work of the real one (the output head's share of a token's
// cost grows as layers are cut).
//
// The weights are deterministic from -seed (each row has its own PCG stream,
// so the output does not depend on -threads), drawn with the recipe of the
// shared synthetic test models, and written tensor by tensor, row chunk by
// row chunk, straight to the target type with llama-quantize's mix and
// bytes: no F32 copy of the model is ever made, and memory stays at a few
// chunks however large the file. Speed depends on the shapes and types, not
// on the values, so these files measure what the real models would.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/quantize"
)

func main() {
	shapeName := flag.String("shape", "llama3.2-1b", "model shape: llama3.2-1b, qwen2.5-0.5b, qwen3.5-0.8b, qwen3-30b-a3b, dream-0.5b (or tiny, tiny-moe)")
	layers := flag.Int("layers", 0, "keep only the first N layers (0: the shape's count)")
	typeName := flag.String("type", "q4_0", "file type: f16, q8_0, q4_0, q4_k_m (any llama-quantize type waggle writes)")
	out := flag.String("o", "", "output file (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	threads := flag.Int("threads", 0, "worker threads (0: all cores)")
	testdata := flag.String("testdata", defaultTestdata(), "shared testdata folder holding tokenizer/ggml-vocab-*.gguf")
	flag.Parse()
	if err := run(*shapeName, *typeName, *out, *testdata, *seed, *threads, *layers); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// defaultTestdata is $WAGGLE_TESTDATA or ../shared/testdata.
func defaultTestdata() string {
	if d := os.Getenv("WAGGLE_TESTDATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "testdata")
}

func run(shapeName, typeName, out, testdata string, seed uint64, threads, layers int) (err error) {
	if out == "" {
		return fmt.Errorf("-o is required")
	}
	s, err := lookupShape(shapeName)
	if err != nil {
		return err
	}
	if layers < 0 || layers > s.nLayer || (s.hybrid != nil && layers%s.hybrid.interval != 0) {
		return fmt.Errorf("-layers %d: want 0 (all) or 1..%d (for a hybrid shape, a multiple of its full-attention interval)", layers, s.nLayer)
	}
	cut := *s
	if layers > 0 && layers != s.nLayer {
		cut.nLayer = layers
		cut.name = fmt.Sprintf("%s-%dl", s.name, layers)
	}
	s = &cut
	ft, err := quantize.ParseFileType(typeName)
	if err != nil {
		return err
	}
	vocab, err := gguf.Open(filepath.Join(testdata, "tokenizer", s.vocabFile))
	if err != nil {
		return err
	}
	defer vocab.Close()
	tokens, ok := vocab.Strings("tokenizer.ggml.tokens")
	if !ok {
		return fmt.Errorf("%s has no tokenizer.ggml.tokens", s.vocabFile)
	}
	name := fmt.Sprintf("synth-%s-%s", s.name, ft)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	start := time.Now()
	if err := write(f, s, ft, seed, threads, len(tokens), s.metadata(vocab, name)); err != nil {
		return err
	}
	st, _ := f.Stat()
	fmt.Fprintf(os.Stderr, "gen: wrote %s (%s, %.1f MiB) in %v\n", out, name, float64(st.Size())/(1<<20), time.Since(start).Round(time.Second))
	return nil
}

// write lays the model out in llama-quantize's tensor order and types and
// streams it to f.
func write(f *os.File, s *shape, ft quantize.FileType, seed uint64, threads, nVocab int, kvs []gguf.KV) error {
	byName := map[string]genTensor{}
	var names []string
	for _, t := range s.tensors(nVocab) {
		byName[t.name] = t
		names = append(names, t.name)
	}
	quantize.SortTensors(names)
	nExpert := 0
	if s.moe != nil {
		nExpert = s.moe.nExpert
	}
	pol := quantize.NewPolicy(ft, false, quantize.ModelShape{Arch: s.arch, NLayer: s.nLayer, NHead: s.nHead, NHeadKV: s.nHeadKV, NExpert: nExpert, Names: names})
	plan := make([]quantize.OutTensor, len(names))
	for i, n := range names {
		typ, err := pol.Type(n, byName[n].dims, gguf.TypeF32)
		if err != nil {
			return err
		}
		plan[i] = quantize.OutTensor{Name: n, Type: typ, Dims: byName[n].dims}
	}
	kvs = append(kvs, gguf.KV{Key: "general.quantization_version", Value: gguf.Uint32Value(2)},
		gguf.KV{Key: "general.file_type", Value: gguf.Uint32Value(uint32(ft))})
	return quantize.WriteStreamed(f, 0, kvs, plan, func(i int, w io.Writer) error {
		t := byName[plan[i].Name]
		fmt.Fprintf(os.Stderr, "[%3d/%3d] %-28s %-16v %v\n", i+1, len(plan), t.name, t.dims, plan[i].Type)
		cols, rows := int(t.dims[0]), 1
		for _, d := range t.dims[1:] {
			rows *= int(d) // a 3-D expert tensor is n_expert × n_out rows
		}
		key := tensorKey(seed, t.name)
		return quantize.EncodeRows(w, plan[i].Type, cols, rows, threads, func(r int, dst []float32) {
			rng := rand.New(rand.NewPCG(key, uint64(r)))
			for j := range dst {
				dst[j] = float32(t.init.mean + t.init.sd*rng.NormFloat64())
			}
			if t.negExp() {
				for j := range dst {
					dst[j] = -float32(math.Exp(float64(dst[j])))
				}
			}
		})
	})
}

// tensorKey derives a tensor's stream key from the seed and its name, so
// adding a tensor or a layer never changes the others.
func tensorKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() ^ seed*0x9e3779b97f4a7c15
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
