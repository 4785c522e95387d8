package llama_test

import (
	"errors"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestUnifiedPoolSession checks a session over one shared KV pool: two
// sequences whose lengths (200 + 50) exceed half the pool (128 each, the
// non-unified split) for one but fit the pool both decode, interleaved in one
// batch per step, and the longer one's logits have exactly the bits of the
// same tokens decoded alone (its pages end up in two separate runs). A
// sequence that then needs a page from the full pool gets ErrKVPoolFull
// with the session unchanged, and truncating the other frees the pages.
func TestUnifiedPoolSession(t *testing.T) {
	l := demo(t)
	toks := func(n, base int) []int32 {
		x := make([]int32, n)
		for i := range x {
			x[i] = int32(base + i%97)
		}
		return x
	}
	a, b := toks(200, 100), toks(50, 250)
	alone := demoSession(t, l, engine.SessionOptions{NCtx: 256})
	decodeAll(t, alone, 0, a, 0)
	want := copyRow(alone.Logits(199))

	s := demoSession(t, l, engine.SessionOptions{NCtx: 256, NSeq: 2, KVUnified: true})
	var batch engine.Batch
	for i := range a {
		batch.Reset()
		batch.Add(a[i], int32(i), 0, true)
		if i < len(b) {
			batch.Add(b[i], int32(i), 1, false)
		}
		if err := s.Decode(&batch); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	for e, x := range s.Logits(0) {
		if math.Float32bits(x) != math.Float32bits(want[e]) {
			t.Fatalf("logit %d: %v in the shared pool, %v alone", e, x, want[e])
		}
	}
	if sp := s.Cache().Spans(0, 200, nil); len(sp) < 2 {
		t.Errorf("sequence 0 is one run %v; the test wants scattered pages", sp)
	}
	// 200 + 50 positions hold 4 + 1 of the pool's 5 pages of 64.
	for pos := 50; pos < 64; pos++ { // fill sequence 1's page
		batch.Reset()
		batch.Add(1, int32(pos), 1, true)
		if err := s.Decode(&batch); err != nil {
			t.Fatal(err)
		}
	}
	batch.Reset()
	batch.Add(1, 64, 1, true)
	err := s.Decode(&batch)
	if !errors.Is(err, engine.ErrKVPoolFull) {
		t.Fatalf("a page from a full pool: %v", err)
	}
	if s.SeqLen(1) != 64 || s.Cache().FreePages() != 0 {
		t.Fatalf("the failed decode changed the session: length %d, %d free pages", s.SeqLen(1), s.Cache().FreePages())
	}
	if err := s.Truncate(0, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Decode(&batch); err != nil {
		t.Fatalf("after freeing sequence 0: %v", err)
	}
}
