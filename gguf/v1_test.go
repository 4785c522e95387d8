package gguf

import (
	"bytes"
	"testing"
)

// v1Stories writes a small v1 file by hand: the format has no writer.
func v1Stories(testing.TB) []byte {
	r := newRaw(1, 2, 3)
	r.str("general.architecture").u32(uint32(ValueString)).str("llama")
	r.str("tokens").u32(uint32(ValueArray)).u32(uint32(ValueString)).u32(2).str("<s>").str("hi")
	r.kvU32("llama.block_count", 5)
	r.tensor("a", TypeF32, 0, 4, 2)
	r.tensor("b", TypeF16, 32, 16)
	return append(r.data(32, 32), make([]byte, 32)...)
}

func TestV1Synthetic(t *testing.T) {
	in := v1Stories(t)
	f, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || f.Architecture() != "llama" || len(f.Tensors) != 2 || f.Tensors[1].Size != 32 {
		t.Fatalf("v%d %q %+v", f.Version, f.Architecture(), f.Tensors)
	}
	if toks, _ := f.Strings("tokens"); len(toks) != 2 || toks[1] != "hi" {
		t.Errorf("tokens %q", toks)
	}
	var out bytes.Buffer
	if err := WriteFile(&out, f); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if g.Version != 3 || g.DataOffset == f.DataOffset || !bytes.Equal(g.TensorData(&g.Tensors[1]), f.TensorData(&f.Tensors[1])) {
		t.Errorf("v1 -> v3: version %d, data offset %d (was %d)", g.Version, g.DataOffset, f.DataOffset)
	}
}
