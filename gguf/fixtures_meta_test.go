package gguf

import (
	"bytes"
	"crypto/sha256"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// modelFacts are values from ../shared/models/README.md.
type modelFacts struct {
	file                          string
	arch                          string
	embd, layers, heads, kvh, ffn uint64
	types                         map[Type]int // tensor count per type
	tokModel                      string
	vocab                         int
}

var readmeFacts = []modelFacts{
	{"stories260K-f32.gguf", "llama", 64, 5, 8, 4, 172, map[Type]int{TypeF32: 48}, "llama", 512},
	{"stories260K-f16.gguf", "llama", 64, 5, 8, 4, 172, map[Type]int{TypeF16: 37, TypeF32: 11}, "llama", 512},
	{"llama-2-tiny-random.gguf", "llama", 8, 1, 2, 2, 32, map[Type]int{TypeF16: 9, TypeF32: 3}, "llama", 32000},
	{"synth-llama-tiny-bf16.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeBF16: 30, TypeF32: 9}, "llama", 512},
	{"synth-llama-tiny-q2_k.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeF32: 9, TypeQ2_K: 17, TypeQ3_K: 12, TypeQ6_K: 1}, "llama", 512},
	{"synth-llama-tiny-q3_k_m.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeF32: 9, TypeQ3_K: 17, TypeQ4_K: 10, TypeQ5_K: 2, TypeQ6_K: 1}, "llama", 512},
	{"synth-llama-tiny-q4_1.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeF32: 9, TypeQ4_1: 29, TypeQ6_K: 1}, "llama", 512},
	{"synth-llama-tiny-q5_1.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeF32: 9, TypeQ5_1: 29, TypeQ6_K: 1}, "llama", 512},
	{"synth-llama-tiny-q8_0.gguf", "llama", 256, 4, 4, 2, 768, map[Type]int{TypeF32: 9, TypeQ8_0: 30}, "llama", 512},
	{"synth-llama3-tiny-q4_k_m.gguf", "llama", 256, 2, 4, 1, 768, map[Type]int{TypeF32: 5, TypeQ4_K: 12, TypeQ6_K: 3}, "gpt2", 128256},
	{"synth-qwen2-tiny-q8_0.gguf", "qwen2", 128, 2, 4, 2, 384, map[Type]int{TypeF32: 11, TypeQ8_0: 15}, "gpt2", 151936},
}

func TestFixtureMetadata(t *testing.T) {
	for _, m := range readmeFacts {
		t.Run(m.file, func(t *testing.T) {
			f, err := Open(testenv.Model(t, m.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got := f.Architecture(); got != m.arch {
				t.Errorf("architecture %q, want %q", got, m.arch)
			}
			for key, want := range map[string]uint64{"embedding_length": m.embd, "block_count": m.layers,
				"attention.head_count": m.heads, "attention.head_count_kv": m.kvh, "feed_forward_length": m.ffn} {
				if got, ok := f.Uint(f.ArchKey(key)); !ok || got != want {
					t.Errorf("%s = %d (%v), want %d", f.ArchKey(key), got, ok, want)
				}
			}
			got := map[Type]int{}
			for _, ti := range f.Tensors {
				got[ti.Type]++
			}
			if !reflect.DeepEqual(got, m.types) {
				t.Errorf("tensor types %v, want %v", got, m.types)
			}
			if s, _ := f.String("tokenizer.ggml.model"); s != m.tokModel {
				t.Errorf("tokenizer.ggml.model %q, want %q", s, m.tokModel)
			}
			toks, _ := f.Strings("tokenizer.ggml.tokens")
			scores, hasScores := f.Float32s("tokenizer.ggml.scores")
			types, _ := f.Int32s("tokenizer.ggml.token_type")
			if len(toks) != m.vocab || len(types) != m.vocab || (hasScores && len(scores) != m.vocab) {
				t.Errorf("vocab: %d tokens, %d types, %d scores; want %d", len(toks), len(types), len(scores), m.vocab)
			}
		})
	}
}

// TestStoriesDetails checks exact values of the real stories260K file.
func TestStoriesDetails(t *testing.T) {
	f, err := Open(testenv.Model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Tensors) != 48 || f.Alignment != 32 || f.DataOffset%32 != 0 {
		t.Fatalf("%d tensors, alignment %d, data offset %d", len(f.Tensors), f.Alignment, f.DataOffset)
	}
	ti, ok := f.Tensor("token_embd.weight")
	if !ok || !reflect.DeepEqual(ti.Dims, []int64{64, 512}) || ti.Type != TypeF32 || ti.Size != 64*512*4 || ti.NumElements() != 64*512 {
		t.Fatalf("token_embd.weight = %+v, %v", ti, ok)
	}
	if n := len(f.TensorData(ti)); n != 64*512*4 {
		t.Errorf("TensorData: %d bytes", n)
	}
	if name, _ := f.String("general.name"); name != "tinyllamas-stories-260k" {
		t.Errorf("general.name %q", name)
	}
	if toks, _ := f.Strings("tokenizer.ggml.tokens"); toks[0] != "<unk>" || toks[1] != "<s>" || toks[2] != "</s>" {
		t.Errorf("first tokens %q", toks[:3])
	}
	if _, ok := f.Tensor("no.such.tensor"); ok {
		t.Error("found a tensor that does not exist")
	}
}

// TestGGUFv1 loads the v1 original of stories260K and compares it with the
// v3 re-encoding: same metadata, same tensors, same data bytes; WriteFile of
// the v1 file reproduces the v3 file.
func TestGGUFv1(t *testing.T) {
	v1, err := Open(testenv.Require(t, filepath.Join(testenv.TestdataDir(t), "gguf", "stories260K-f32-ggufv1.gguf")))
	if err != nil {
		t.Fatal(err)
	}
	defer v1.Close()
	v3, err := Open(testenv.Model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer v3.Close()
	if v1.Version != 1 {
		t.Fatalf("version %d", v1.Version)
	}
	if !reflect.DeepEqual(v1.KVs, v3.KVs) {
		t.Errorf("metadata differs")
	}
	if len(v1.Tensors) != len(v3.Tensors) {
		t.Fatalf("%d tensors, want %d", len(v1.Tensors), len(v3.Tensors))
	}
	for i := range v1.Tensors {
		a, b := &v1.Tensors[i], &v3.Tensors[i]
		if a.Name != b.Name || a.Type != b.Type || a.Offset != b.Offset || a.Size != b.Size || !reflect.DeepEqual(a.Dims, b.Dims) {
			t.Errorf("tensor %d: %+v, want %+v", i, *a, *b)
		}
		if !bytes.Equal(v1.TensorData(a), v3.TensorData(b)) {
			t.Errorf("tensor %q: data differs", a.Name)
		}
	}
	var buf bytes.Buffer
	if err := WriteFile(&buf, v1); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(buf.Bytes()) != sha256File(t, testenv.Model(t, "stories260K-f32.gguf")) {
		t.Errorf("WriteFile(v1) is not byte-identical to the v3 file")
	}
}
