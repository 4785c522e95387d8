package quantize

import (
	"bytes"
	"os"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestQuantizeFileMatchesLlamaQuantize converts synth-llama-tiny-f32.gguf to
// every file type llama-quantize made a reference for and requires the very
// same file: metadata, tensor order, per-tensor types (the mix) and bytes.
func TestQuantizeFileMatchesLlamaQuantize(t *testing.T) {
	srcPath := testenv.Model(t, "synth-llama-tiny-f32.gguf")
	src, err := gguf.Open(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, name := range []string{"F16", "BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q5_1", "Q5_0", "Q4_K_M", "Q4_1", "Q4_0", "Q3_K_M", "Q2_K"} {
		ft, err := ParseFileType(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(testenv.Model(t, "synth-llama-tiny-"+lower(name)+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := Model(src, &got, Options{FileType: ft, Threads: 2}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: output differs from llama-quantize's file", name)
			diffFiles(t, name, got.Bytes(), want)
		}
	}
}

// diffFiles names the first difference between two GGUF files.
func diffFiles(t *testing.T, name string, got, want []byte) {
	g, err1 := gguf.Parse(got)
	w, err2 := gguf.Parse(want)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: parse: %v, %v", name, err1, err2)
	}
	if len(g.KVs) != len(w.KVs) {
		t.Errorf("%s: %d keys, want %d", name, len(g.KVs), len(w.KVs))
	}
	for i := range min(len(g.KVs), len(w.KVs)) {
		if g.KVs[i].Key != w.KVs[i].Key || g.KVs[i].Value.Summary(4) != w.KVs[i].Value.Summary(4) {
			t.Errorf("%s: key %d is %s=%s, want %s=%s", name, i, g.KVs[i].Key, g.KVs[i].Value.Summary(4), w.KVs[i].Key, w.KVs[i].Value.Summary(4))
		}
	}
	if len(g.Tensors) != len(w.Tensors) {
		t.Fatalf("%s: %d tensors, want %d", name, len(g.Tensors), len(w.Tensors))
	}
	for i := range g.Tensors {
		gt, wt := &g.Tensors[i], &w.Tensors[i]
		if gt.Name != wt.Name || gt.Type != wt.Type {
			t.Errorf("%s: tensor %d is %s %v, want %s %v", name, i, gt.Name, gt.Type, wt.Name, wt.Type)
		} else if !bytes.Equal(g.TensorData(gt), w.TensorData(wt)) {
			t.Errorf("%s: tensor %s: data differs", name, gt.Name)
		}
	}
}

func lower(s string) string { return string(bytes.ToLower([]byte(s))) }
