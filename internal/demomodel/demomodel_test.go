package demomodel

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestEmbeddedFileIsCurrent fails when cmd/waggle/demo.gguf drifts from the
// generator: run `go generate ./cmd/waggle` after changing this package.
func TestEmbeddedFileIsCurrent(t *testing.T) {
	want, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "cmd", "waggle", "demo.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("cmd/waggle/demo.gguf (%d bytes) differs from Build() (%d bytes); run go generate ./cmd/waggle", len(got), len(want))
	}
}

func TestBuildParses(t *testing.T) {
	b, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Architecture() != "llama" || len(f.Tensors) != 3+9*nLayer {
		t.Fatalf("arch %q, %d tensors", f.Architecture(), len(f.Tensors))
	}
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	if toks[3] != "<0x00>" || toks[258] != "<0xFF>" {
		t.Fatalf("byte tokens misplaced: %q %q", toks[3], toks[258])
	}
}
