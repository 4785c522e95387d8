package llama_test

import (
	"errors"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// demo loads the embedded demo network: llama-shaped, F32 weights, no
// shared fixtures needed.
func demo(t testing.TB) *engine.Loaded {
	t.Helper()
	b, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func demoSession(t testing.TB, l *engine.Loaded, o engine.SessionOptions) engine.Session {
	t.Helper()
	if o.NCtx == 0 {
		o.NCtx = 64
	}
	s, err := l.Model.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var prompt = []int32{1, 300, 301, 302, 303, 304, 305, 306}

func decodeAll(t testing.TB, s engine.Session, seq int32, toks []int32, start int) {
	t.Helper()
	var b engine.Batch
	for i, tok := range toks {
		b.Add(tok, int32(start+i), seq, true)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func copyRow(x []float32) []float32 { return append([]float32(nil), x...) }

// TestBatchEqualsSequential: a whole prompt as one batch gives exactly the
// same logits as one token per Decode (batch invariance).
func TestBatchEqualsSequential(t *testing.T) {
	l := demo(t)
	o := engine.SessionOptions{TypeK: kvcache.F32, TypeV: kvcache.F32}
	batch := demoSession(t, l, o)
	decodeAll(t, batch, 0, prompt, 0)
	seq := demoSession(t, l, o)
	for i, tok := range prompt {
		decodeAll(t, seq, 0, []int32{tok}, i)
		if d := maxDiff(seq.Logits(0), batch.Logits(i)); d != 0 {
			t.Fatalf("position %d: batch and sequential logits differ by %g", i, d)
		}
	}
}

// TestTruncateRollsBack: truncating and re-decoding reproduces the logits,
// and decoding other tokens after a truncate is not influenced by the
// dropped ones (speculative rollback).
func TestTruncateRollsBack(t *testing.T) {
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{TypeK: kvcache.F32, TypeV: kvcache.F32})
	decodeAll(t, s, 0, prompt[:5], 0)
	want := copyRow(s.Logits(4))
	decodeAll(t, s, 0, prompt[5:], 5)
	if err := s.Truncate(0, 4); err != nil {
		t.Fatal(err)
	}
	if s.SeqLen(0) != 4 {
		t.Fatalf("SeqLen after truncate = %d", s.SeqLen(0))
	}
	decodeAll(t, s, 0, prompt[4:5], 4)
	if d := maxDiff(s.Logits(0), want); d != 0 {
		t.Fatalf("logits after rollback differ by %g", d)
	}
}

// TestForkAndMultiSequenceBatch: a forked sequence continues exactly like
// its source, and two sequences decoded in one batch do not see each other.
func TestForkAndMultiSequenceBatch(t *testing.T) {
	l := demo(t)
	o := engine.SessionOptions{NSeq: 2, TypeK: kvcache.F32, TypeV: kvcache.F32}
	s := demoSession(t, l, o)
	decodeAll(t, s, 0, prompt[:4], 0)
	if err := s.Fork(0, 1, 4); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	b.Add(prompt[4], 4, 0, true)
	b.Add(prompt[5], 4, 1, true)
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	ref := demoSession(t, l, engine.SessionOptions{TypeK: kvcache.F32, TypeV: kvcache.F32})
	decodeAll(t, ref, 0, append(copyRow32(prompt[:4]), prompt[5]), 0)
	if d := maxDiff(s.Logits(1), ref.Logits(4)); d != 0 {
		t.Fatalf("forked sequence differs from a fresh one by %g", d)
	}
	if d := maxDiff(s.Logits(0), s.Logits(1)); d == 0 {
		t.Fatal("different tokens gave identical logits: sequences are mixed up")
	}
}

func copyRow32(x []int32) []int32 { return append([]int32(nil), x...) }

// TestDecodeRejectsBadBatches: every malformed batch is refused with an
// error and leaves the session unchanged.
func TestDecodeRejectsBadBatches(t *testing.T) {
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{NCtx: 8, NBatch: 4})
	decodeAll(t, s, 0, prompt[:2], 0)
	nv := int32(l.Model.Info().NVocab)
	cases := map[string]engine.Batch{
		"empty":          {},
		"wrong position": {Tokens: []int32{5}, Pos: []int32{3}, Seq: []int32{0}, Output: []bool{true}},
		"bad sequence":   {Tokens: []int32{5}, Pos: []int32{0}, Seq: []int32{1}, Output: []bool{true}},
		"token too big":  {Tokens: []int32{nv}, Pos: []int32{2}, Seq: []int32{0}, Output: []bool{true}},
		"negative token": {Tokens: []int32{-1}, Pos: []int32{2}, Seq: []int32{0}, Output: []bool{true}},
		"ragged":         {Tokens: []int32{5, 6}, Pos: []int32{2}, Seq: []int32{0, 0}, Output: []bool{true, true}},
		"over batch":     {Tokens: make([]int32, 5), Pos: []int32{2, 3, 4, 5, 6}, Seq: make([]int32, 5), Output: make([]bool, 5)},
	}
	for name, b := range cases {
		if err := s.Decode(&b); err == nil {
			t.Errorf("%s: Decode succeeded", name)
		}
		if s.SeqLen(0) != 2 {
			t.Fatalf("%s: a refused batch changed the sequence length to %d", name, s.SeqLen(0))
		}
	}
	decodeAll(t, s, 0, prompt[2:6], 2)
	decodeAll(t, s, 0, prompt[6:8], 6)
	var b engine.Batch
	b.Add(5, 8, 0, true)
	if err := s.Decode(&b); !errors.Is(err, engine.ErrContextFull) {
		t.Fatalf("decode past the context: %v, want ErrContextFull", err)
	}
}

// TestHiddenCapture: captured states exist for the asked layers and
// capturing does not change the logits.
func TestHiddenCapture(t *testing.T) {
	l := demo(t)
	plain := demoSession(t, l, engine.SessionOptions{})
	decodeAll(t, plain, 0, prompt[:3], 0)
	cap := demoSession(t, l, engine.SessionOptions{CaptureLayers: []int{0, -1}})
	decodeAll(t, cap, 0, prompt[:3], 0)
	for i := range 3 {
		if d := maxDiff(plain.Logits(i), cap.Logits(i)); d != 0 {
			t.Fatalf("capture changed logits by %g", d)
		}
		if h0, hf := cap.Hidden(0, i), cap.Hidden(-1, i); len(h0) != l.Model.Info().NEmbd || len(hf) != len(h0) || maxDiff(h0, hf) == 0 {
			t.Fatalf("position %d: hidden states missing or identical across layers", i)
		}
	}
	if cap.Hidden(1, 0) != nil {
		t.Fatal("a layer that was not asked for has a hidden state")
	}
	if _, err := l.Model.NewSession(engine.SessionOptions{CaptureLayers: []int{99}}); err == nil {
		t.Fatal("capture of a missing layer accepted")
	}
}

// TestWarmDecodeAllocatesNothing guards the no-allocation rule of the
// decode loop.
func TestWarmDecodeAllocatesNothing(t *testing.T) {
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{NCtx: 512})
	decodeAll(t, s, 0, prompt, 0)
	var b engine.Batch
	b.Add(7, int32(s.SeqLen(0)), 0, true)
	allocs := testing.AllocsPerRun(50, func() {
		b.Pos[0] = int32(s.SeqLen(0))
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("warm decode allocates %.1f times per token", allocs)
	}
}

// TestThreadCountDoesNotChangeLogits: the demo prompt as one batch and then
// token by token gives the same logits on 1 and 3 threads, with every
// matrix product, quantization and attention forced onto the pool (the
// demo network is too small to leave the caller's thread otherwise).
func TestThreadCountDoesNotChangeLogits(t *testing.T) {
	defer kernels.ForceParallel()()
	l := demo(t)
	run := func(threads int) [][]float32 {
		s := demoSession(t, l, engine.SessionOptions{Threads: threads})
		if got := s.Options().Threads; got != threads {
			t.Fatalf("Options().Threads = %d, want %d", got, threads)
		}
		decodeAll(t, s, 0, prompt[:6], 0)
		var out [][]float32
		for i := range 6 {
			out = append(out, copyRow(s.Logits(i)))
		}
		for i, tok := range prompt[6:] {
			decodeAll(t, s, 0, []int32{tok}, 6+i)
			out = append(out, copyRow(s.Logits(0)))
		}
		return out
	}
	one, three := run(1), run(3)
	for i := range one {
		if d := maxDiff(one[i], three[i]); d > 1e-5 {
			t.Fatalf("position %d: 1 and 3 threads differ by %g", i, d)
		}
	}
}

// TestWarmDecodeAllocatesNothingThreaded is the no-allocation guard with
// the work dispatched to a pool of 2.
func TestWarmDecodeAllocatesNothingThreaded(t *testing.T) {
	defer kernels.ForceParallel()()
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{NCtx: 512, Threads: 2})
	decodeAll(t, s, 0, prompt, 0)
	var b engine.Batch
	b.Add(7, int32(s.SeqLen(0)), 0, true)
	allocs := testing.AllocsPerRun(50, func() {
		b.Pos[0] = int32(s.SeqLen(0))
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("warm threaded decode allocates %.1f times per token", allocs)
	}
}

// TestOutputSubsetMatchesAllOutputs: asking for logits of only some tokens
// (the output head multiplies only those rows) gives the same logits as
// asking for all of them.
func TestOutputSubsetMatchesAllOutputs(t *testing.T) {
	l := demo(t)
	o := engine.SessionOptions{TypeK: kvcache.F32, TypeV: kvcache.F32}
	all := demoSession(t, l, o)
	decodeAll(t, all, 0, prompt, 0)
	some := demoSession(t, l, o)
	var b engine.Batch
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i%3 == 1)
	}
	if err := some.Decode(&b); err != nil {
		t.Fatal(err)
	}
	if some.NumOutputs() != 3 {
		t.Fatalf("NumOutputs = %d, want 3", some.NumOutputs())
	}
	for k, i := range []int{1, 4, 7} {
		if d := maxDiff(some.Logits(k), all.Logits(i)); d != 0 {
			t.Fatalf("output %d (token %d) differs by %g", k, i, d)
		}
	}
}

func TestNegativeThreadsRefused(t *testing.T) {
	if _, err := demo(t).Model.NewSession(engine.SessionOptions{Threads: -1}); err == nil {
		t.Fatal("Threads: -1 accepted")
	}
}
