package main

import (
	"strings"
	"testing"
)

// TestBenchDepth: `waggle bench -d` runs each test after a prefilled
// context, labels the rows like llama-bench ("tg8 @ d100"), and works with
// a quantized and a turbo cache.
func TestBenchDepth(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	for _, typ := range []string{"f16", "turbo3_tcq"} {
		for _, fill := range []string{"prompt", "random"} {
			out, err := runCLI(t, "bench", "-m", m, "-p", "16", "-n", "8", "-d", "100", "-r", "1", "-ctk", typ, "-ctv", typ, "-t", "1", "--depth-fill", fill)
			if err != nil {
				t.Fatalf("%s %s: %v", typ, fill, err)
			}
			if !strings.Contains(out, "pp16 @ d100") || !strings.Contains(out, "tg8 @ d100") {
				t.Fatalf("%s %s: output %q", typ, fill, out)
			}
		}
	}
	if _, err := runCLI(t, "bench", "-m", m, "-n", "8", "-d", "-1"); err == nil {
		t.Fatal("-d -1 accepted")
	}
}
