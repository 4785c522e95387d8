package dream

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// rewrite copies a fixture with its metadata changed by edit (which may
// set, replace or drop keys) and returns the result parsed.
func rewrite(t *testing.T, stem string, edit map[string]*gguf.Value) *gguf.File {
	t.Helper()
	src, err := gguf.Open(testenv.Model(t, filepath.Join("diffusion", stem+".gguf")))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	w := gguf.NewWriter(32)
	for _, kv := range src.KVs {
		if v, ok := edit[kv.Key]; ok {
			if v != nil {
				w.AddKV(kv.Key, *v)
			}
			continue
		}
		w.AddKV(kv.Key, kv.Value)
	}
	for k, v := range edit {
		if _, present := src.Get(k); !present && v != nil {
			w.AddKV(k, *v)
		}
	}
	for i := range src.Tensors {
		ti := &src.Tensors[i]
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, append([]byte(nil), src.TensorData(ti)...)); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func val(v gguf.Value) *gguf.Value { return &v }

// TestLoadRejectsBadMetadata: hostile hyper-parameters and diffusion keys
// are load errors that name what is wrong, never a panic or a model that
// misbehaves later.
func TestLoadRejectsBadMetadata(t *testing.T) {
	for _, tc := range []struct {
		stem string
		edit map[string]*gguf.Value
		want string
	}{
		{"synth-llada-spm-f32", map[string]*gguf.Value{"tokenizer.ggml.mask_token_id": val(gguf.Uint32Value(513))}, "mask_token_id"},
		{"synth-llada-spm-f32", map[string]*gguf.Value{"llada.rope.dimension_count": val(gguf.Uint32Value(16))}, "rope.dimension_count"},
		{"synth-llada-spm-f32", map[string]*gguf.Value{"llada.rope.freq_base": val(gguf.Float32Value(-1))}, "freq_base"},
		{"synth-llada-spm-f32", map[string]*gguf.Value{"llada.attention.head_count_kv": val(gguf.Uint32Value(3))}, "attention shape"},
		{"synth-llada-spm-f32", map[string]*gguf.Value{"llada.attention.layer_norm_rms_epsilon": val(gguf.Float32Value(0))}, "epsilon"},
		{"synth-llada-spm-f32", map[string]*gguf.Value{"diffusion.shift_logits": val(gguf.StringValue("maybe"))}, "shift_logits"},
		{"synth-dream-spm-f32", map[string]*gguf.Value{"dream.rope.scaling.type": val(gguf.StringValue("yarn"))}, "rope.scaling.type"},
		{"synth-dream-spm-f32", map[string]*gguf.Value{"dream.embedding_length": val(gguf.Uint32Value(64)), "dream.rope.dimension_count": val(gguf.Uint32Value(16))}, "has shape"},
		{"synth-dream-spm-f32", map[string]*gguf.Value{"dream.feed_forward_length": nil}, "feed_forward_length"},
	} {
		f := rewrite(t, tc.stem, tc.edit)
		var v variant
		switch {
		case strings.HasPrefix(tc.stem, "synth-llada"):
			v = variantLLaDA
		default:
			v = variantDream
		}
		if _, err := load(f, v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one mentioning %q", tc.stem, keys(tc.edit), err, tc.want)
		}
	}
}

func keys(m map[string]*gguf.Value) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDenoiserRejects: bad calls are errors, never panics.
func TestDenoiserRejects(t *testing.T) {
	l, _ := loadFixture(t, "synth-llada-spm-f32")
	d := newDenoiser(t, l.Model, engine.DenoiserOptions{NSeq: 2, NCtx: 32})
	if err := d.SetPrefix(0, nil); err == nil {
		t.Error("an empty prefix was accepted")
	}
	if err := d.SetPrefix(2, []int32{1}); err == nil {
		t.Error("sequence 2 of 2 was accepted")
	}
	if err := d.SetPrefix(0, []int32{1, 513}); err == nil {
		t.Error("a token outside the vocabulary was accepted")
	}
	if err := d.SetPrefix(0, make([]int32, 32)); err == nil {
		t.Error("a prefix filling the context was accepted")
	}
	if err := d.SetPrefix(0, []int32{1, 2}); err != nil {
		t.Fatal(err)
	}
	nop := func(int, int, []float32) {}
	for _, cs := range [][]engine.Canvas{
		nil,
		{{Seq: 1, Tokens: []int32{512}}},      // no prefix
		{{Seq: 0}},                            // empty canvas
		{{Seq: 0, Tokens: make([]int32, 31)}}, // past the context
		{{Seq: 0, Tokens: []int32{-1}}},       // bad token
		{{Seq: 0, Tokens: []int32{512, 512}, Need: []bool{true}}},      // Need of the wrong length
		{{Seq: 0, Tokens: []int32{512}}, {Seq: 0, Tokens: []int32{5}}}, // one sequence twice
	} {
		if err := d.Denoise(cs, nop); err == nil {
			t.Errorf("%+v was accepted", cs)
		}
	}
}
