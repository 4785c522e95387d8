package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/demomodel"
)

// testSampler is cmd/waggle's mapping onto engine/sample.
func testSampler(p SamplingParams, nVocab int) (Sampler, error) {
	sp := sample.DefaultParams()
	sp.Temp, sp.TopK, sp.TopP, sp.MinP, sp.TypicalP = p.Temp, p.TopK, p.TopP, p.MinP, p.TypicalP
	sp.RepeatPenalty, sp.RepeatLastN = p.RepeatPenalty, p.RepeatLastN
	sp.PresencePenalty, sp.FrequencyPenalty = p.PresencePenalty, p.FrequencyPenalty
	sp.Seed, sp.NCtx = p.Seed, p.NCtx
	return sample.New(sp, nVocab)
}

type testServer struct {
	*Server
	ln     *fasthttputil.InmemoryListener
	client *fasthttp.Client
}

// newTestServer serves the embedded demo model on an in-memory listener.
func newTestServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	data, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(l)
	cfg.NewSampler = testSampler
	cfg.CtxSize = 256 // total: 128 per slot
	cfg.Parallel = 2
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	ts := &testServer{Server: s, ln: ln, client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		l.Close()
	})
	return ts
}

// do sends a request and returns the status and body.
func (ts *testServer) do(t *testing.T, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	code, b, err := ts.try(method, path, body, hdr...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return code, b
}

// try is do returning the transport error instead of failing the test.
func (ts *testServer) try(method, path, body string, hdr ...string) (int, string, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://waggle" + path)
	req.Header.SetMethod(method)
	req.SetBodyString(body)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if err := ts.client.DoTimeout(req, resp, 30*time.Second); err != nil {
		return 0, "", err
	}
	return resp.StatusCode(), string(resp.Body()), nil
}

func (ts *testServer) post(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	code, b := ts.do(t, "POST", path, body)
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		t.Fatalf("POST %s: status %d, body not a JSON object: %q", path, code, b)
	}
	return code, m
}

// sseEvents splits an SSE body into its data payloads.
func sseEvents(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		} else if sc.Text() != "" {
			t.Fatalf("unexpected SSE line %q", sc.Text())
		}
	}
	return out
}

func errorOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", m)
	}
	for _, k := range []string{"message", "type", "code"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("error object lacks %q: %v", k, e)
		}
	}
	return e
}

func jsonf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
