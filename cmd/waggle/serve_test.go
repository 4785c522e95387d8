package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
)

// writeGGUF writes a GGUF with the given architecture and metadata and no
// tensors.
func writeGGUF(t *testing.T, dir, name, arch string, kv map[string]gguf.Value) string {
	t.Helper()
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue(arch))
	for k, v := range kv {
		w.AddKV(k, v)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeUnloadableModel: `waggle serve -m FILE` on a file it cannot load
// returns one clear error line (main prints it and exits 1), never a panic.
func TestServeUnloadableModel(t *testing.T) {
	dir := t.TempDir()
	demo := demoModel()
	files := map[string]string{
		"missing":              filepath.Join(dir, "nope.gguf"),
		"unknown architecture": writeGGUF(t, dir, "arch.gguf", "no-such-arch", nil),
		"vocab only": writeGGUF(t, dir, "vocab.gguf", "llama", map[string]gguf.Value{
			"llama.embedding_length": gguf.Uint32Value(64), "llama.block_count": gguf.Uint32Value(2),
			"llama.feed_forward_length": gguf.Uint32Value(128), "llama.attention.head_count": gguf.Uint32Value(4),
			"tokenizer.ggml.model":  gguf.StringValue("llama"),
			"tokenizer.ggml.tokens": gguf.StringsValue([]string{"<unk>", "<s>", "</s>", "a"}),
		}),
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": demo[:len(demo)/3],
		"random":    bytes.Repeat([]byte("\x47\x47\x55\x46\x03\x00\x00\x00\xff\x13\x37"), 99),
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".gguf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = p
	}
	for name, path := range files {
		t.Run(name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("serve panicked: %v", r)
					}
				}()
				_, err = runCLI(t, "serve", "-m", path, "--port", "0")
			}()
			if err == nil {
				t.Fatal("serve succeeded")
			}
			t.Log(err)
			if msg := err.Error(); strings.Contains(msg, "\n") || msg == "" {
				t.Fatalf("error is not one line: %q", msg)
			}
		})
	}
}
