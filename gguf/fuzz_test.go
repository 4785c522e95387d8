package gguf

import (
	"bytes"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse. Whatever parses must be
// internally consistent: every tensor's data lies in the input, every value
// can be walked and printed, and WriteFile's output parses again and
// re-encodes to the same bytes.
func FuzzParse(f *testing.F) {
	f.Add(buildFile(f, 32))
	f.Add(buildFile(f, 1))
	f.Add(v1Stories(nil))
	for _, c := range hostileCases() {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := Parse(in)
		if err != nil {
			if g != nil {
				t.Fatal("non-nil File with an error")
			}
			return
		}
		for i := range g.Tensors {
			ti := &g.Tensors[i]
			if d := g.TensorData(ti); int64(len(d)) != ti.Size {
				t.Fatalf("tensor %q: %d data bytes, Size %d", ti.Name, len(d), ti.Size)
			}
		}
		for _, kv := range g.KVs {
			walk(kv.Value)
		}
		var out1, out2 bytes.Buffer
		if err := WriteFile(&out1, g); err != nil {
			t.Fatalf("WriteFile of a parsed file: %v", err)
		}
		h, err := Parse(out1.Bytes())
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(h.KVs) != len(g.KVs) || len(h.Tensors) != len(g.Tensors) {
			t.Fatalf("re-parse: %d KVs %d tensors, want %d %d", len(h.KVs), len(h.Tensors), len(g.KVs), len(g.Tensors))
		}
		if err := WriteFile(&out2, h); err != nil || !bytes.Equal(out1.Bytes(), out2.Bytes()) {
			t.Fatalf("second WriteFile differs (%v)", err)
		}
	})
}

// walk touches every accessor of v and its elements.
func walk(v Value) {
	_ = v.Summary(3)
	v.AsUint()
	v.AsInt()
	v.AsFloat()
	v.AsInt32s()
	v.AsFloat32s()
	_ = v.Interface()
	if elems, ok := v.AsArray(); ok {
		for i, e := range elems {
			if i > 3 {
				break
			}
			walk(e)
		}
	}
}
