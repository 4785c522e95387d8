package eagle3_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// TestWarmCycleNoAlloc: a warm cycle (a committed row, then a depth-3
// draft: the fuse, the pass writing the pair and the seed, two further
// passes) allocates nothing.
func TestWarmCycleNoAlloc(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	s := newStrategy(t, target, drafter(t, "stories260K-eagle3-f32.gguf"), 3, 1, 256)
	sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1})
	prompt := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421}
	r := prefill(t, sess, s, 0, prompt, 0)
	lockstep(t, sess, s, []*seqRun{r}, 1000, 3, 4)
	h := r.history
	n := len(h) - 2
	row := make([]float32, len(sess.Row(0)))
	copy(row, sess.Row(0))
	rowAt := func(int) []float32 { return row }
	req := &spec.Request{Seq: 0, NMax: 3, NPast: n + 1, Last: h[n+1], History: h[:n+1], Draft: make([]int32, 0, 3), PMin: -1}
	reqs := []*spec.Request{req}
	cycle := func() {
		s.Committed(0, n, h[n:n+1], rowAt)
		req.Draft = req.Draft[:0]
		s.Draft(reqs)
	}
	cycle()
	if len(req.Draft) != 3 {
		t.Fatalf("drafted %v, want 3 tokens", req.Draft)
	}
	if a := testing.AllocsPerRun(50, cycle); a != 0 {
		t.Fatalf("a warm cycle allocates %v times", a)
	}
}
