package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
)

// keysFile builds an in-memory GGUF holding only the given metadata.
func keysFile(t *testing.T, kvs ...gguf.KV) *gguf.File {
	t.Helper()
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue("dream"))
	for _, kv := range kvs {
		w.AddKV(kv.Key, kv.Value)
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

// TestReadDiffusionKeys reads the diffusion.* keys llama.cpp and the
// DiffusionGemma converter write, and refuses values of the wrong type or
// out of range with an error naming the key.
func TestReadDiffusionKeys(t *testing.T) {
	k, err := ReadDiffusionKeys(keysFile(t,
		gguf.KV{Key: "diffusion.shift_logits", Value: gguf.BoolValue(false)},
		gguf.KV{Key: "diffusion.canvas_length", Value: gguf.Uint32Value(256)},
		gguf.KV{Key: "diffusion.eb_max_steps", Value: gguf.Uint32Value(48)},
		gguf.KV{Key: "diffusion.eb_t_min", Value: gguf.Float32Value(0.4)},
		gguf.KV{Key: "diffusion.eb_t_max", Value: gguf.Float32Value(0.8)},
		gguf.KV{Key: "diffusion.eb_entropy_bound", Value: gguf.Float32Value(0.1)},
		gguf.KV{Key: "diffusion.eb_stability_threshold", Value: gguf.Uint32Value(1)},
		gguf.KV{Key: "diffusion.eb_confidence_threshold", Value: gguf.Float32Value(0.005)},
	))
	if err != nil {
		t.Fatal(err)
	}
	if k.ShiftLogits == nil || *k.ShiftLogits || k.CanvasLength != 256 || *k.EBMaxSteps != 48 || *k.EBTMin != 0.4 ||
		*k.EBTMax != 0.8 || *k.EBEntropyBound != 0.1 || *k.EBStability != 1 || *k.EBConfidence != 0.005 {
		t.Fatalf("keys %+v", k)
	}
	if k, err := ReadDiffusionKeys(keysFile(t, gguf.KV{Key: "diffusion.shift_logits", Value: gguf.StringValue("true")})); err != nil || !*k.ShiftLogits {
		t.Fatalf("shift_logits as text: %v %v", k.ShiftLogits, err)
	}
	if k, err := ReadDiffusionKeys(keysFile(t)); err != nil || k.ShiftLogits != nil || k.EBMaxSteps != nil || k.CanvasLength != 0 {
		t.Fatalf("no keys: %+v %v", k, err)
	}
	for _, kv := range []gguf.KV{
		{Key: "diffusion.shift_logits", Value: gguf.StringValue("yes")},
		{Key: "diffusion.shift_logits", Value: gguf.Uint32Value(1)},
		{Key: "diffusion.canvas_length", Value: gguf.Uint32Value(1 << 30)},
		{Key: "diffusion.canvas_length", Value: gguf.StringValue("256")},
		{Key: "diffusion.eb_max_steps", Value: gguf.Int32Value(-1)},
		{Key: "diffusion.eb_t_min", Value: gguf.Float32Value(0)},
		{Key: "diffusion.eb_t_max", Value: gguf.Float32Value(float32(1e30))},
		{Key: "diffusion.eb_entropy_bound", Value: gguf.Float32Value(-1)},
		{Key: "diffusion.eb_confidence_threshold", Value: gguf.StringValue("x")},
	} {
		if _, err := ReadDiffusionKeys(keysFile(t, kv)); err == nil || !strings.Contains(err.Error(), kv.Key) {
			t.Errorf("%s = %v: error %v, want one naming the key", kv.Key, kv.Value.Summary(4), err)
		}
	}
}
