package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// The load test's shape. WAGGLE_LOAD_MODEL picks another shared model,
// WAGGLE_LOAD_TOKENS and WAGGLE_LOAD_ROUNDS change the work.
const (
	loadClients = 16
	loadModel   = "synth-llama-tiny-q4_0.gguf"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// stream is one streamed completion: its text, the tokens the server
// counted (usage), the finish reason and the number of content chunks.
type stream struct {
	text, finish    string
	tokens, chunks  int
	usageSeen, done bool
}

// streamRun runs client i's seeded streaming completion to the end.
func streamRun(c *openai.Client, t *testing.T, i, maxTokens int) (stream, error) {
	var s stream
	st, err := c.CreateCompletionStream(ctxT(t), openai.CompletionRequest{
		Model: "x", Prompt: fmt.Sprintf("Once upon a time %d", i%4), MaxTokens: maxTokens,
		Temperature: 0.8, Seed: ptr(1000 + i), Stream: true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		return s, err
	}
	defer st.Close()
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			s.done = true
			return s, nil
		}
		if err != nil {
			return s, err
		}
		if r.Usage != nil {
			s.tokens, s.usageSeen = r.Usage.CompletionTokens, true
		}
		if len(r.Choices) > 0 {
			s.text += r.Choices[0].Text
			s.chunks++
			if r.Choices[0].FinishReason != "" {
				s.finish = r.Choices[0].FinishReason
			}
		}
	}
}

// complete checks that nothing was lost: the stream ended with [DONE],
// reported usage and a finish reason, and made text.
func (s stream) complete() error {
	if !s.done || !s.usageSeen || s.finish == "" || s.tokens == 0 || s.text == "" {
		return fmt.Errorf("incomplete stream: done=%v usage=%v finish=%q tokens=%d text=%q", s.done, s.usageSeen, s.finish, s.tokens, s.text)
	}
	return nil
}

// wave runs loadClients concurrent streams and returns them and the total
// generated tokens per second.
func wave(t *testing.T, c *openai.Client, maxTokens int) ([]stream, float64) {
	out := make([]stream, loadClients)
	errs := make([]error, loadClients)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range loadClients {
		wg.Add(1)
		go func() { defer wg.Done(); out[i], errs[i] = streamRun(c, t, i, maxTokens) }()
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	total := 0
	for i, err := range errs {
		if err == nil {
			err = out[i].complete()
		}
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		total += out[i].tokens
	}
	return out, float64(total) / el
}

// TestLoadParallel: 16 streaming clients against --parallel 4. Every
// stream equals the same request run alone with the same seed (text,
// token count and finish reason: no mixing between slots, nothing lost).
// It also reports total tokens/s against --parallel 1, measured in
// interleaved rounds (median of the per-round ratios); that figure belongs
// in docs/benchmarks.md from an idle machine, not in an assertion.
func TestLoadParallel(t *testing.T) {
	name := os.Getenv("WAGGLE_LOAD_MODEL")
	if name == "" {
		name = loadModel
	}
	m := model(t, name)
	maxTokens, rounds := envInt("WAGGLE_LOAD_TOKENS", 200), envInt("WAGGLE_LOAD_ROUNDS", 3)
	ctx := maxTokens + 64 // per slot; -c is the total of all slots
	p4 := client(serve(t, "-m", m, "-c", strconv.Itoa(4*ctx), "--parallel", "4"))
	p1 := client(serve(t, "-m", m, "-c", strconv.Itoa(ctx), "--parallel", "1"))
	alone := make([]stream, loadClients)
	for i := range loadClients {
		var err error
		if alone[i], err = streamRun(p4, t, i, maxTokens); err == nil {
			err = alone[i].complete()
		}
		if err != nil {
			t.Fatalf("client %d alone: %v", i, err)
		}
	}
	var ratios []float64
	for r := range rounds {
		s1, tps1 := wave(t, p1, maxTokens)
		s4, tps4 := wave(t, p4, maxTokens)
		for i := range loadClients {
			for _, got := range []struct {
				name string
				s    stream
			}{{"--parallel 1", s1[i]}, {"--parallel 4", s4[i]}} {
				a := alone[i]
				if got.s.text != a.text || got.s.tokens != a.tokens || got.s.finish != a.finish {
					t.Errorf("round %d client %d %s: concurrent stream differs from alone:\n%d tokens, %s: %q\n%d tokens, %s: %q",
						r, i, got.name, got.s.tokens, got.s.finish, got.s.text, a.tokens, a.finish, a.text)
				}
			}
		}
		ratios = append(ratios, tps4/tps1)
		t.Logf("round %d: --parallel 1 %.0f t/s, --parallel 4 %.0f t/s, ratio %.2f", r, tps1, tps4, tps4/tps1)
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	t.Logf("%s, %d clients × %d tokens: median ratio --parallel 4 / --parallel 1: %.2f", name, loadClients, maxTokens, med)
	if f := os.Getenv("WAGGLE_LOAD_REPORT"); f != "" {
		os.WriteFile(f, []byte(fmt.Sprintf("%.2f\n", med)), 0o644)
	}
}
