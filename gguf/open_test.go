package gguf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestOpenZeroCopy: TensorData slices point into the mapping, and opening a
// 13 MB model allocates a small fraction of that on the heap.
func TestOpenZeroCopy(t *testing.T) {
	path := testenv.Model(t, "synth-llama-tiny-f32.gguf")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Open(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("Open of %d bytes allocated %d bytes", st.Size(), alloc)
	if alloc > uint64(st.Size())/20 {
		t.Errorf("Open allocated %d bytes for a %d-byte file", alloc, st.Size())
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	hi := lo + uintptr(len(f.data))
	for i := range f.Tensors {
		d := f.TensorData(&f.Tensors[i])
		p := uintptr(unsafe.Pointer(unsafe.SliceData(d)))
		if p < lo || p+uintptr(len(d)) > hi || p-lo != uintptr(f.DataOffset+f.Tensors[i].Offset) {
			t.Fatalf("tensor %q: data at %#x is not at its place in the mapping [%#x, %#x)", f.Tensors[i].Name, p, lo, hi)
		}
		if cap(d) != len(d) {
			t.Fatalf("tensor %q: cap %d lets appends overwrite the neighbour", f.Tensors[i].Name, cap(d))
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		ti, _ := f.Tensor("output.weight")
		_ = f.TensorData(ti)
		_, _ = f.Strings("tokenizer.ggml.tokens")
	})
	if allocs != 0 {
		t.Errorf("Tensor/TensorData/Strings allocate %v times", allocs)
	}
}

// TestOpenFallback: the read-the-whole-file path (used where no mapping
// exists) gives the same File as the mapping.
func TestOpenFallback(t *testing.T) {
	path := testenv.Model(t, "stories260K-f16.gguf")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := openWith(path, readWhole)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(a.KVs) != len(b.KVs) || len(a.Tensors) != len(b.Tensors) || a.DataOffset != b.DataOffset {
		t.Fatal("mapped and read files differ")
	}
	for i := range a.Tensors {
		if !bytes.Equal(a.TensorData(&a.Tensors[i]), b.TensorData(&b.Tensors[i])) {
			t.Fatalf("tensor %d data differs", i)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing.gguf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.gguf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(empty)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Path != empty || !errors.Is(err, ErrTruncated) {
		t.Errorf("empty file: %v", err)
	}
	bad := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(bad, buildFile(t, 32)[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil {
		t.Error("truncated file opened")
	}
	if _, err := Open(dir); err == nil {
		t.Error("directory opened")
	}
}

func TestClose(t *testing.T) {
	f, err := Open(testenv.Model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if f.TensorData(&f.Tensors[0]) != nil {
		t.Error("TensorData after Close")
	}
	if toks, _ := f.Strings("tokenizer.ggml.tokens"); len(toks) != 512 || toks[300] == "" {
		t.Error("metadata unusable after Close")
	}
}

// BenchmarkOpen opens and closes the largest shared model (metadata parse
// plus mapping; tensor data is not touched).
func BenchmarkOpen(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(testenv.ModelsDir(b), "*.gguf"))
	if len(files) == 0 {
		testenv.Missing(b, "no models in %s", testenv.ModelsDir(b))
	}
	var path string
	var size int64
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.Size() > size {
			path, size = p, st.Size()
		}
	}
	b.Logf("%s, %d bytes", filepath.Base(path), size)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
