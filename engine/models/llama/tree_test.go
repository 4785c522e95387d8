package llama_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/treetest"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestTreeBatch: every node of a tree batch gets its path's logits and
// taps bit for bit, and KeepPath leaves the cache the path would have
// (internal/treetest), on the demo network with every attention path
// (exact and flash, f32 and f16 caches, the pool forced on) and on the
// llama, qwen2 and qwen3 fixtures (f16, q8_0 and turbo3 caches).
func TestTreeBatch(t *testing.T) {
	toks := []int32{40, 41, 42, 43, 44, 45, 46, 47, 48}
	p0, p1 := prompt, []int32{1, 320, 321, 322}
	l := demo(t)
	taps := []engine.Tap{engine.LayerInput(0), engine.LayerOutput(0), engine.LayerOutput(l.Model.Info().NLayer - 1)}
	for _, typ := range []kvcache.Type{kvcache.F32, kvcache.F16} {
		for _, flash := range []bool{false, true} {
			t.Run(typ.String()+map[bool]string{false: "", true: "-flash"}[flash], func(t *testing.T) {
				o := engine.SessionOptions{NCtx: 64, NSeq: 2, TypeK: typ, TypeV: typ, FlashAttn: flash, Taps: taps}
				treetest.Check(t, l.Model, o, p0, p1, toks)
			})
		}
	}
	t.Run("forced-pool", func(t *testing.T) {
		defer kernels.ForceParallel()()
		treetest.Check(t, l.Model, engine.SessionOptions{NCtx: 64, NSeq: 2, Threads: 3, Taps: taps}, p0, p1, toks)
	})
	turbo3, err := kvcache.ParseType("turbo3")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		typ  kvcache.Type
	}{{"synth-qwen3-spm-f32.gguf", kvcache.F16}, {"synth-llama-tiny-q4_0.gguf", kvcache.Q8_0}, {"synth-llama-tiny-q4_0.gguf", turbo3}, {"synth-qwen2-tiny-q8_0.gguf", kvcache.F16}} {
		t.Run(c.name+"-"+c.typ.String(), func(t *testing.T) {
			m := loadModel(t, c.name)
			treetest.Check(t, m.Model, engine.SessionOptions{NCtx: 128, NSeq: 2, TypeK: c.typ, TypeV: c.typ}, p0, p1, toks)
		})
	}
}

// TestWarmTreeAllocatesNothing: once warm, a tree verify (Decode of a
// tree batch, KeepPath, Truncate) allocates nothing.
func TestWarmTreeAllocatesNothing(t *testing.T) {
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{NCtx: 512})
	decodeAll(t, s, 0, prompt, 0)
	var b engine.Batch
	n := len(prompt)
	path := []int32{int32(n + 1), int32(n + 5)}
	run := func() {
		b.Reset()
		b.AddNode(5, int32(n), 0, -1, true)
		for k, p := range treetest.Parents {
			b.AddNode(int32(40+k), int32(n+k+1), 0, int32(p), true)
		}
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
		if err := s.(engine.TreeSession).KeepPath(0, n, path); err != nil {
			t.Fatal(err)
		}
		if err := s.Truncate(0, n); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if allocs := testing.AllocsPerRun(20, run); allocs != 0 {
		t.Fatalf("a warm tree verify allocates %.1f times", allocs)
	}
}
