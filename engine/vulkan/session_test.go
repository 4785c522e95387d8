//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// maxDiff is the largest |a-b| over two logit rows.
func maxDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

// pair drives a GPU session and a CPU session through the same calls and
// compares every output's logits.
type pair struct {
	t        *testing.T
	gpu, cpu engine.Session
	tol      float64
}

func (p *pair) decode(what string, tokens []int32, seq, pos int) {
	p.t.Helper()
	p.decodeLast(what, tokens, seq, pos, len(tokens))
}

// decodeLast compares only the last k tokens' logits.
func (p *pair) decodeLast(what string, tokens []int32, seq, pos, k int) {
	p.t.Helper()
	g, c := decodeLast(p.t, p.gpu, tokens, seq, pos, k), decodeLast(p.t, p.cpu, tokens, seq, pos, k)
	for i := len(tokens) - k; i < len(g); i++ {
		if d := maxDiff(g[i], c[i]); d > p.tol {
			p.t.Errorf("%s: output %d: GPU and CPU logits differ by %.3g > %.3g", what, i, d, p.tol)
		}
	}
}

func (p *pair) do(what string, f func(s engine.Session) error) {
	p.t.Helper()
	if err := f(p.gpu); err != nil {
		p.t.Fatalf("%s on the GPU session: %v", what, err)
	}
	if err := f(p.cpu); err != nil {
		p.t.Fatalf("%s on the CPU session: %v", what, err)
	}
}

// TestOffloadPartial offloads part of the layers (head on the CPU) and
// everything (head on the device), on f16 and f32 caches, and compares
// with the CPU path within the parity tolerance.
func TestOffloadPartial(t *testing.T) {
	requireDevice(t)
	for _, stem := range []string{"synth-qwen2-tiny-q8_0", "synth-llama-tiny-q4_k_m"} {
		l, g := loadModel(t, stem)
		nl := l.Model.Info().NLayer
		for _, typ := range []kvcache.Type{kvcache.F16, kvcache.F32} {
			tol := golden.Tolerance(l.File) + golden.F16CacheExtra
			for _, ngl := range []int{1, nl - 1, nl + 1} {
				p := &pair{t: t, gpu: session(t, l, typ, ngl, 1), cpu: session(t, l, typ, 0, 1), tol: tol}
				toks := g.Cases[0].Tokens
				p.decodeLast(stem+" prompt", toks[:20], 0, 0, 2)
				for i := 20; i < 24; i++ {
					p.decode(stem+" decode", toks[i:i+1], 0, i)
				}
			}
		}
	}
}

// TestOffloadKVMirror exercises the device KV mirror: forks (shared pages
// and a copied partial page), copy on write, truncation, a context shift
// and a state file restored into another sequence, each followed by
// decoding on the affected sequences; the GPU session must keep matching
// the CPU session.
func TestOffloadKVMirror(t *testing.T) {
	requireDevice(t)
	l, g := loadModel(t, "synth-llama-tiny-q8_0")
	nl := l.Model.Info().NLayer
	toks := g.Cases[1].Tokens
	p := &pair{t: t, gpu: session(t, l, kvcache.F16, nl, 3), cpu: session(t, l, kvcache.F16, 0, 3),
		tol: golden.Tolerance(l.File) + golden.F16CacheExtra}
	p.decode("prompt", toks[:40], 0, 0)
	p.do("fork 0 -> 1 at 37", func(s engine.Session) error { return s.Fork(0, 1, 37) })
	p.decode("seq 1 after fork", toks[40:43], 1, 37)
	p.decode("seq 0 after fork", toks[40:42], 0, 40)
	p.do("truncate 1 to 10", func(s engine.Session) error { return s.Truncate(1, 10) })
	p.decode("seq 1 after truncate", toks[20:25], 1, 10)
	p.do("shift seq 0", func(s engine.Session) error { return s.(engine.Shifter).Shift(0, 4, 9) })
	p.decode("seq 0 after shift", toks[5:7], 0, 33)
	// A state file of sequence 0 restored into sequence 2.
	for _, s := range []engine.Session{p.gpu, p.cpu} {
		var buf bytes.Buffer
		c := s.Cache()
		if _, err := c.WriteState(&buf, 0, [32]byte{}, toks[:c.Len(0)]); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RestoreState(bytes.NewReader(buf.Bytes()), int64(buf.Len()), 2, [32]byte{}); err != nil {
			t.Fatal(err)
		}
	}
	p.decode("seq 2 after restore", toks[7:9], 2, 35)
	// Fork into a sequence twice, the source rewritten in between: the
	// second fork's copied page can be the page the first one used.
	p.do("fork 0 -> 1 at 30", func(s engine.Session) error { return s.Fork(0, 1, 30) })
	p.decode("seq 1 after the second fork", toks[11:14], 1, 30)
	p.do("truncate 0 to 20", func(s engine.Session) error { return s.Truncate(0, 20) })
	p.decode("seq 0 rewritten", toks[30:40], 0, 20)
	p.do("fork 0 -> 1 at 30 again", func(s engine.Session) error { return s.Fork(0, 1, 30) })
	p.decode("seq 1 after the third fork", toks[14:16], 1, 30)
	// Both sequences in one batch.
	var b engine.Batch
	b.Add(toks[9], 37, 2, true)
	b.Add(toks[10], 32, 1, true)
	for _, s := range []engine.Session{p.gpu, p.cpu} {
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOffloadBatchInvariance: with every layer on the device, a sequence's
// logits are the same bits whether it is decoded alone or beside another
// sequence (the project rule exact speculative verification relies on).
func TestOffloadBatchInvariance(t *testing.T) {
	requireDevice(t)
	l, g := loadModel(t, "synth-llama-tiny-q4_k_m")
	toks := g.Cases[0].Tokens
	s := session(t, l, kvcache.F16, l.Model.Info().NLayer+1, 2)
	decodeAll(t, s, toks[:12], 0, 0)
	decodeAll(t, s, toks[:5], 1, 0)
	alone := decodeAll(t, s, toks[12:13], 0, 12)[0]
	if err := s.Truncate(0, 12); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	b.Add(toks[7], 5, 1, true)
	b.Add(toks[12], 12, 0, true)
	b.Add(toks[8], 6, 1, false)
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	for i, v := range s.Logits(1) {
		if math.Float32bits(v) != math.Float32bits(alone[i]) {
			t.Fatalf("logit %d: %v in a batch, %v alone", i, v, alone[i])
		}
	}
}

// TestOffloadRefusals: what the device cannot run is refused with a message
// that says what to do.
func TestOffloadRefusals(t *testing.T) {
	requireDevice(t)
	l, _ := loadModel(t, "synth-llama-tiny-q4_0")
	nl := l.Model.Info().NLayer
	for _, tc := range []struct {
		o    engine.SessionOptions
		want string
	}{
		{engine.SessionOptions{GPULayers: 2, TypeK: kvcache.Q8_0, TypeV: kvcache.Q8_0}, "f16"},
		{engine.SessionOptions{GPULayers: 2, TypeK: kvcache.F16, TypeV: kvcache.F32}, "f16"},
		{engine.SessionOptions{GPULayers: 2, TypeK: kvcache.F16, TypeV: kvcache.F16, CaptureLayers: []int{nl - 1}}, "lower -ngl"},
		{engine.SessionOptions{GPULayers: 2, TypeK: kvcache.F16, TypeV: kvcache.F16, Device: "no such device"}, "no device"},
		{engine.SessionOptions{GPULayers: -1}, ">= 0"},
	} {
		s, err := l.Model.NewSession(tc.o)
		if err == nil {
			engine.CloseSession(s)
			t.Errorf("%+v: no error", tc.o)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %q does not mention %q", tc.o, err, tc.want)
		}
		if errors.Is(err, engine.ErrNoOffload) {
			t.Errorf("%+v: ErrNoOffload in a binary with the backend", tc.o)
		}
	}
	// An architecture without an offload path refuses rather than ignoring -ngl.
	h, err := engine.LoadFile(testenv.Model(t, "synth-qwen35-spm-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if s, err := h.Model.NewSession(engine.SessionOptions{GPULayers: 3}); err == nil || !strings.Contains(err.Error(), "-ngl 0") {
		if s != nil {
			engine.CloseSession(s)
		}
		t.Errorf("qwen35 with GPU layers: %v, want a refusal", err)
	}
}

// TestOffloadWarmDecode: a warm single-token decode step with every layer on
// the device allocates nothing on the Go heap, like the CPU path.
func TestOffloadWarmDecode(t *testing.T) {
	requireDevice(t)
	l, g := loadModel(t, "synth-llama-tiny-q4_k_m")
	s := session(t, l, kvcache.F16, l.Model.Info().NLayer+1, 1)
	toks := g.Cases[0].Tokens
	decodeAll(t, s, toks[:8], 0, 0)
	var b engine.Batch
	b.Add(toks[8], 8, 0, true)
	step := func() {
		if err := s.Truncate(0, 8); err != nil {
			t.Fatal(err)
		}
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if n := testing.AllocsPerRun(5, step); n != 0 {
		t.Errorf("a warm GPU decode step allocates %v times", n)
	}
}
