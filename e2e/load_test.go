package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const (
	loadClients = 16
	loadTokens  = 64
	loadRounds  = 3
)

// streamText runs one seeded streaming completion and returns its text
// and token count.
func streamText(c *openai.Client, t *testing.T, i int) (string, int, error) {
	st, err := c.CreateCompletionStream(ctxT(t), openai.CompletionRequest{
		Model: "x", Prompt: fmt.Sprintf("Once upon a time %d", i%4), MaxTokens: loadTokens,
		Temperature: 0.8, Seed: ptr(1000 + i), Stream: true,
	})
	if err != nil {
		return "", 0, err
	}
	defer st.Close()
	text, n := "", 0
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return text, n, nil
		}
		if err != nil {
			return text, n, err
		}
		if len(r.Choices) > 0 {
			text += r.Choices[0].Text
			n++ // one event per token (text held back for stop words comes later, with no stops here)
		}
	}
}

// wave runs loadClients concurrent streams and returns texts and tokens/s.
func wave(t *testing.T, c *openai.Client) ([]string, float64) {
	texts := make([]string, loadClients)
	errs := make([]error, loadClients)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range loadClients {
		wg.Add(1)
		go func() { defer wg.Done(); texts[i], _, errs[i] = streamText(c, t, i) }()
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	return texts, float64(loadClients*loadTokens) / el
}

// TestLoadParallel: 16 streaming clients against --parallel 4. Every text
// equals the same request run alone (no mixing between slots, nothing
// lost), and total tokens/s beats --parallel 1, measured in interleaved
// rounds (median of the per-round ratios).
func TestLoadParallel(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	p4 := client(serve(t, "-m", m, "-c", "256", "--parallel", "4"))
	p1 := client(serve(t, "-m", m, "-c", "256", "--parallel", "1"))
	alone := make([]string, loadClients)
	for i := range loadClients {
		var err error
		if alone[i], _, err = streamText(p4, t, i); err != nil {
			t.Fatal(err)
		}
		if alone[i] == "" {
			t.Fatalf("client %d: empty text", i)
		}
	}
	var ratios []float64
	for r := range loadRounds {
		_, tps1 := wave(t, p1)
		texts, tps4 := wave(t, p4)
		for i := range loadClients {
			if texts[i] != alone[i] {
				t.Errorf("round %d client %d: concurrent text differs from alone:\n%q\n%q", r, i, texts[i], alone[i])
			}
		}
		ratios = append(ratios, tps4/tps1)
		t.Logf("round %d: --parallel 1 %.0f t/s, --parallel 4 %.0f t/s, ratio %.2f", r, tps1, tps4, tps4/tps1)
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	t.Logf("median ratio --parallel 4 / --parallel 1: %.2f", med)
	if f := os.Getenv("WAGGLE_LOAD_REPORT"); f != "" {
		os.WriteFile(f, []byte(fmt.Sprintf("%.2f\n", med)), 0o644)
	}
	if med <= 1 {
		t.Errorf("--parallel 4 is not faster than --parallel 1: median ratio %.2f", med)
	}
}
