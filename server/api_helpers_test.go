package server

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// serveLoaded serves l as newTestServer serves the demo model (two slots
// over 256 positions unless mutate says otherwise); l is closed at the
// end of the test.
func serveLoaded(t *testing.T, l *engine.Loaded, mutate func(*Config)) *testServer {
	t.Helper()
	cfg := ConfigFor(l)
	cfg.NewSampler = testSampler
	cfg.CtxSize, cfg.Parallel = 256, 2
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		l.Close()
	})
	return &testServer{Server: s, ln: ln, client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}}
}

// demoWith loads the demo network with extra metadata (FIM token ids, a
// pooling type) written into its GGUF.
func demoWith(t *testing.T, kvs ...gguf.KV) *engine.Loaded {
	t.Helper()
	data, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	f.KVs = append(f.KVs, kvs...)
	var b bytes.Buffer
	if err := gguf.WriteFile(&b, f); err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// loadShared loads a model of the shared fixtures (skipped, or failed
// under CI, when missing).
func loadShared(t *testing.T, name string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return l
}
