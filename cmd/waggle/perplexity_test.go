package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPerplexityCommand: `waggle perplexity` prints a running PPL per chunk
// and the final estimate on stories260K; a base run and a
// --kl-divergence run against it on the same model report KLD ~0 and the
// same PPL; a corrupt base file is refused.
func TestPerplexityCommand(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	text := "../../engine/perplexity/testdata/story.txt"
	out, err := runCLI(t, "perplexity", "-m", m, "-f", text, "-c", "128", "-b", "64", "-ctk", "f32", "-ctv", "f32")
	if err != nil {
		t.Fatal(err)
	}
	final := regexp.MustCompile(`Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+)`).FindStringSubmatch(out)
	if final == nil || !strings.HasPrefix(out, "[1]") {
		t.Fatalf("output: %q", out)
	}
	ppl, _ := strconv.ParseFloat(final[1], 64)
	// llama-perplexity (BeeLlama ba1fdce, CPU) on the same model and text:
	// -c 128 -b 128 -ctk f32 -ctv f32 -fa off printed exactly these lines.
	const llamaRunning = "[1]2.4589,[2]2.6698,[3]2.6511,[4]2.9036,[5]3.0006,[6]3.1284,[7]3.3415,[8]3.6317,[9]3.6931,[10]3.7758,"
	const llamaFinal = "Final estimate: PPL = 3.7758 +/- 0.23764"
	if !strings.HasPrefix(out, llamaRunning) || final[0] != llamaFinal {
		t.Fatalf("output %q\nllama-perplexity printed %q and %q", out, llamaRunning, llamaFinal)
	}
	base := filepath.Join(t.TempDir(), "base.bin")
	if _, err := runCLI(t, "perplexity", "-m", m, "-f", text, "-c", "128", "-ctk", "f32", "-ctv", "f32", "--kl-divergence-base", base); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "perplexity", "-m", m, "--kl-divergence-base", base, "--kl-divergence", "-ctk", "f16", "-ctv", "f16")
	if err != nil {
		t.Fatal(err)
	}
	kld := regexp.MustCompile(`Mean    KLD: +(-?[0-9.]+)`).FindStringSubmatch(out)
	same := regexp.MustCompile(`Same top p: +([0-9.]+)`).FindStringSubmatch(out)
	pq := regexp.MustCompile(`Mean PPL\(base\) +: +([0-9.]+)`).FindStringSubmatch(out)
	if kld == nil || same == nil || pq == nil {
		t.Fatalf("output: %q", out)
	}
	if v, _ := strconv.ParseFloat(kld[1], 64); v > 1e-3 || v < -1e-5 {
		t.Fatalf("KLD of an f16 cache against the f32 base run: %v", v)
	}
	if v, _ := strconv.ParseFloat(pq[1], 64); v < ppl*0.999 || v > ppl*1.001 {
		t.Fatalf("PPL(base) %v, the base run printed %v", v, ppl)
	}
	if _, err := runCLI(t, "perplexity", "-m", m, "--kl-divergence-base", text, "--kl-divergence"); err == nil {
		t.Fatal("a text file was accepted as a base file")
	}
	if _, err := runCLI(t, "perplexity", "-m", m, "--kl-divergence"); err == nil {
		t.Fatal("--kl-divergence without a base file was accepted")
	}
}
