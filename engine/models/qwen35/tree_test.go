package qwen35_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/treetest"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestTreeBatch: on the hybrids every node of a tree batch gets its path's
// logits and taps bit for bit (DeltaNet state and conv window rebuilt per
// path, attention masked) and KeepPath leaves the state the path would
// have (internal/treetest), with the exact and flash attention paths.
func TestTreeBatch(t *testing.T) {
	toks := []int32{40, 41, 42, 43, 44, 45, 46, 47, 48}
	p0, p1 := tokens(30, 3), tokens(12, 4)
	for _, name := range []string{denseF32, moeF32, "synth-qwen35-spm-q4_k_m.gguf"} {
		l := loadModel(t, name)
		taps := []engine.Tap{engine.LayerOutput(0), engine.LayerOutput(3)}
		for _, flash := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: "-flash"}[flash], func(t *testing.T) {
				o := engine.SessionOptions{NCtx: 128, NSeq: 2, TypeK: kvcache.F32, TypeV: kvcache.F32, FlashAttn: flash, Taps: taps}
				treetest.Check(t, l.Model, o, p0, p1, toks)
			})
		}
	}
}

// TestTreeBatchLimits: a tree needs the tape and fits in its depth.
func TestTreeBatchLimits(t *testing.T) {
	l := loadModel(t, denseF32)
	var b engine.Batch
	b.AddNode(5, 0, 0, -1, true)
	for i := range 4 {
		b.AddNode(6, int32(i+1), 0, 0, true)
	}
	snap := newSessionWith(t, l, engine.SessionOptions{NCtx: 64}, qwen35.Options{Rollback: qwen35.RollbackSnapshots})
	if err := snap.Decode(&b); err == nil {
		t.Fatal("a tree batch was run with snapshot rollback")
	}
	shallow := newSessionWith(t, l, engine.SessionOptions{NCtx: 64}, qwen35.Options{Depth: 4})
	if err := shallow.Decode(&b); err == nil {
		t.Fatal("a tree of 5 tokens was run with a tape of 4")
	}
	if shallow.SeqLen(0) != 0 {
		t.Fatal("a refused tree batch changed the sequence")
	}
	if err := shallow.(engine.TreeSession).KeepPath(0, 0, nil); err == nil {
		t.Fatal("KeepPath on an empty sequence accepted")
	}
}
