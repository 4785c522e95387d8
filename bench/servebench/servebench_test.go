package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/demomodel"
	waggle "github.com/waggle-llm/waggle/server"
)

func TestPercentiles(t *testing.T) {
	v := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, c := range []struct{ p, want float64 }{{50, 5}, {99, 10}, {10, 1}, {100, 10}, {0, 1}} {
		if got := pct(v, c.p); got != c.want {
			t.Errorf("pct(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := median([]float64{3, 1, 2, 10}); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
	if pct(nil, 50) != 0 || median(nil) != 0 {
		t.Error("empty input must give 0")
	}
}

func TestPromptsDistinct(t *testing.T) {
	ps := makePrompts(16, 48)
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p] || len(strings.Fields(p)) != 50 {
			t.Fatalf("prompt %q repeated or of the wrong length", p)
		}
		seen[p] = true
	}
	l := &load{prompts: ps}
	count := make([]int, len(ps))
	for i := range 64 {
		for j := range 2 {
			count[l.promptFor(i, j, 64)]++
		}
	}
	for k, n := range count {
		if n != 8 {
			t.Fatalf("prompt %d used %d times in 64 × 2 requests, want 8", k, n)
		}
	}
}

// sse serves /v1/completions as a stream of the given data payloads.
func sse(payloads ...string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range payloads {
			fmt.Fprintf(w, "data: %s\n\n", p)
			w.(http.Flusher).Flush()
		}
	}))
}

func TestReadStream(t *testing.T) {
	good := []string{`{"choices":[{"text":"","finish_reason":null}]}`, `{"choices":[{"text":"Hel","finish_reason":null}]}`,
		`{"choices":[{"text":"lo","finish_reason":"length"}]}`, `{"choices":[],"usage":{"completion_tokens":2}}`, `[DONE]`}
	for _, c := range []struct {
		name     string
		payloads []string
		err      string
	}{
		{"good", good, ""},
		{"no done", good[:4], "without [DONE]"},
		{"no finish", []string{good[1], good[3], good[4]}, "without a finish reason"},
		{"bad json", []string{good[1], `{"choices":`, good[4]}, "bad chunk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := sse(c.payloads...)
			defer srv.Close()
			l := &load{prompts: []string{"x"}, nPredict: 2, timeout: 10 * time.Second}
			var r result
			l.complete(attach("fake", srv.URL), &r, time.Now())
			if c.err != "" {
				if r.err == nil || !strings.Contains(r.err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", r.err, c.err)
				}
				return
			}
			if r.err != nil || r.text != "Hello" || r.finish != "length" || r.tokens != 2 {
				t.Fatalf("got %+v", r)
			}
			if r.first <= r.sent || r.first > r.end {
				t.Fatalf("first chunk with text at %v, sent %v, end %v", r.first, r.sent, r.end)
			}
		})
	}
}

// mixing is a fake server whose text depends on how many requests are in
// flight: a server that is not batch invariant.
func mixing() *httptest.Server {
	var inFlight atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		body, _ := io.ReadAll(r.Body)
		time.Sleep(20 * time.Millisecond) // let the others arrive
		text := fmt.Sprintf("%d-%d", len(body), min(n, 2))
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":%q,\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":4}}\n\ndata: [DONE]\n\n", text)
	}))
}

func TestMixingDetected(t *testing.T) {
	srv := mixing()
	defer srv.Close()
	c := &config{clients: []int{4}, requests: 2, rounds: 1}
	l := &load{prompts: makePrompts(4, 8), nPredict: 4, timeout: 10 * time.Second}
	s := attach("waggle", srv.URL)
	solo, err := l.soloRuns(s)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := c.runConfig(l, []*server{s}, 2, solo, &trace{})
	if err != nil {
		t.Fatal(err)
	}
	if ws[0].mismatches == 0 {
		t.Fatal("streams that depend on the other requests in flight were not flagged")
	}
	if bad := printTable(io.Discard, c, summarize(ws)); bad != ws[0].mismatches {
		t.Fatalf("table counts %d bad streams, the wave %d", bad, ws[0].mismatches)
	}
}

// demoServer serves the embedded demo model in process over loopback TCP.
func demoServer(t *testing.T, parallel int) string {
	t.Helper()
	data, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := waggle.ConfigFor(l)
	cfg.NewSampler = func(p waggle.SamplingParams, nVocab int) (waggle.Sampler, error) {
		sp := sample.DefaultParams()
		sp.Temp, sp.TopK, sp.TopP, sp.MinP, sp.Seed = p.Temp, p.TopK, p.TopP, p.MinP, p.Seed
		return sample.New(sp, nVocab)
	}
	cfg.Parallel, cfg.CtxSize = parallel, 512*parallel
	s, err := waggle.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		l.Close()
	})
	return "http://" + ln.Addr().String()
}

// TestAgainstWaggle runs the whole tool against an in-process Waggle
// server: solo runs, waves, the equality check and the table.
func TestAgainstWaggle(t *testing.T) {
	url := demoServer(t, 3)
	c := &config{waggleURL: url, only: "waggle", parallel: []int{3}, clients: []int{5}, requests: 2,
		nPredict: 24, prompts: 4, promptWords: 12, rounds: 2, timeout: time.Minute}
	if err := run(c); err != nil {
		t.Fatal(err)
	}
}
