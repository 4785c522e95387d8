package quantize_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/quantize"
)

// TestQuantizeWeightsMatchLlamaQuantize quantizes every tensor of
// synth-llama-tiny-f32.gguf to the type llama-quantize chose for it in each
// synth-llama-tiny-<type>.gguf and requires identical bytes. The reference
// files were made by llama.cpp's llama-quantize from that F32 file with no
// importance matrix, so this pins every weight quantizer (Q4_0, Q4_1, Q5_0,
// Q5_1, Q8_0, Q2_K..Q6_K, F16, BF16) to quantize_row_*_ref bit for bit.
func TestQuantizeWeightsMatchLlamaQuantize(t *testing.T) {
	src := openModel(t, "synth-llama-tiny-f32.gguf")
	seen := map[gguf.Type]int{}
	for _, name := range []string{"f16", "bf16", "q8_0", "q6_k", "q5_k_m", "q5_1", "q5_0", "q4_k_m", "q4_1", "q4_0", "q3_k_m", "q2_k"} {
		ref := openModel(t, "synth-llama-tiny-"+name+".gguf")
		for i := range ref.Tensors {
			ti := &ref.Tensors[i]
			if ti.Type == gguf.TypeF32 {
				continue
			}
			seen[ti.Type]++
			checkTensorBytes(t, name, src, ref, ti)
		}
	}
	for _, typ := range []gguf.Type{gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ4_0, gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1,
		gguf.TypeQ8_0, gguf.TypeQ2_K, gguf.TypeQ3_K, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K} {
		if seen[typ] == 0 {
			t.Errorf("no reference tensor of type %v was compared", typ)
		}
	}
}

// checkTensorBytes quantizes the F32 tensor of src named like ti, row by
// row, to ti's type and compares it with ref's bytes, reporting the first
// differing block and how many differ.
func checkTensorBytes(t *testing.T, file string, src, ref *gguf.File, ti *gguf.TensorInfo) {
	t.Helper()
	st, ok := src.Tensor(ti.Name)
	if !ok || st.Type != gguf.TypeF32 {
		t.Fatalf("%s: no F32 tensor %q in the source", file, ti.Name)
	}
	typ := kernels.DType(ti.Type)
	raw := src.TensorData(st)
	vals := make([]float32, len(raw)/4)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	want := ref.TensorData(ti)
	got := make([]byte, len(want))
	cols := int(ti.Dims[0])
	rowBytes := typ.RowBytes(cols)
	for r := 0; r < len(vals)/cols; r++ {
		quantize.Row(typ, got[r*rowBytes:(r+1)*rowBytes], vals[r*cols:(r+1)*cols])
	}
	if bytes.Equal(got, want) {
		return
	}
	bb, bad, first := typ.BlockBytes(), 0, -1
	for b := 0; b < len(want)/bb; b++ {
		if !bytes.Equal(got[b*bb:(b+1)*bb], want[b*bb:(b+1)*bb]) {
			bad++
			if first < 0 {
				first = b
			}
		}
	}
	t.Errorf("%s %s (%v): %d of %d blocks differ from llama-quantize's, first at block %d:\n got %x\nwant %x",
		file, ti.Name, ti.Type, bad, len(want)/bb, first, got[first*bb:(first+1)*bb], want[first*bb:(first+1)*bb])
}

func openModel(t *testing.T, name string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
