package dflash_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/dflashgen"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
)

// goldenRing returns a ring holding g's prompt rows then every appended
// row of its steps.
func goldenRing(t *testing.T, p string) *engine.HiddenRing {
	g := goldenFile(t, p)
	r, err := engine.NewHiddenRing(4096, len(g.PromptRows[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range g.PromptRows {
		r.Append(row)
	}
	for _, st := range g.Steps {
		for _, row := range st.AppendedRows {
			r.Append(row)
		}
	}
	return r
}

func logitsOf(d engine.BlockDrafter, j, n int) [][]float32 {
	var out [][]float32
	for r := 1; r < n; r++ {
		out = append(out, slices.Clone(d.Logits(j, r)))
	}
	return out
}

func sameRows(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestBatchedBlocksEqualAlone: blocks of several sequences drafted in one
// pass (different windows and lengths) give each block exactly the logits
// it gets alone, on one thread and on a forced pool; a drafter that grew
// its projected window row by row gives the bits of one that projected
// it at once.
func TestBatchedBlocksEqualAlone(t *testing.T) {
	g := goldenFile(t, "p1")
	rings := []*engine.HiddenRing{goldenRing(t, "p1"), goldenRing(t, "p2"), goldenRing(t, "p3")}
	jobs := []engine.BlockJob{{Seq: 0, Ring: rings[0], Anchor: 7, N: 16}, {Seq: 1, Ring: rings[1], Anchor: 9, N: 5}, {Seq: 2, Ring: rings[2], Anchor: 300, N: 9}}
	for _, threads := range []int{1, 3} {
		restore := func() {}
		if threads > 1 {
			restore = kernels.ForceParallel()
		}
		o := engine.BlockDrafterOptions{CrossCtx: 32, NSeq: 3, MaxBlocks: 3, Threads: threads}
		batched, _, _ := bind(t, g, o)
		if err := batched.Draft(jobs); err != nil {
			t.Fatal(err)
		}
		for j, job := range jobs {
			alone, _, _ := bind(t, g, o)
			if err := alone.Draft([]engine.BlockJob{job}); err != nil {
				t.Fatal(err)
			}
			if !sameRows(logitsOf(batched, j, job.N), logitsOf(alone, 0, job.N)) {
				t.Fatalf("%d threads: block %d differs when drafted with others", threads, j)
			}
			if batched.CrossLen(j) != min(32, job.Ring.Len()) || batched.Logits(j, 0) != nil {
				t.Fatalf("block %d: window %d rows, anchor logits %v", j, batched.CrossLen(j), batched.Logits(j, 0) != nil)
			}
		}
		restore()
	}
	grown, _, _ := bind(t, g, engine.BlockDrafterOptions{CrossCtx: 32, NSeq: 1, MaxBlocks: 1})
	partial, _ := engine.NewHiddenRing(4096, rings[2].Width())
	for p := rings[2].Start(); p < rings[2].End(); p++ {
		partial.Append(rings[2].Row(p))
		if err := grown.Draft([]engine.BlockJob{{Seq: 0, Ring: partial, Anchor: 300, N: 9}}); err != nil {
			t.Fatal(err)
		}
	}
	fresh, _, _ := bind(t, g, engine.BlockDrafterOptions{CrossCtx: 32, NSeq: 1, MaxBlocks: 1})
	if err := fresh.Draft([]engine.BlockJob{{Seq: 0, Ring: rings[2], Anchor: 300, N: 9}}); err != nil {
		t.Fatal(err)
	}
	if !sameRows(logitsOf(grown, 0, 9), logitsOf(fresh, 0, 9)) {
		t.Fatal("a window projected row by row differs from one projected at once")
	}
	partial.Truncate(partial.End() - 3)
	for p := range 3 {
		partial.Append(rings[0].Row(rings[0].Start() + p))
	}
	if err := grown.Draft([]engine.BlockJob{{Seq: 0, Ring: partial, Anchor: 300, N: 9}}); err != nil {
		t.Fatal(err)
	}
	refill, _, _ := bind(t, g, engine.BlockDrafterOptions{CrossCtx: 32, NSeq: 1, MaxBlocks: 1})
	if err := refill.Draft([]engine.BlockJob{{Seq: 0, Ring: partial, Anchor: 300, N: 9}}); err != nil {
		t.Fatal(err)
	}
	if !sameRows(logitsOf(grown, 0, 9), logitsOf(refill, 0, 9)) {
		t.Fatal("rows replaced after a truncation were drafted from stale projections")
	}
}

// TestBindRefusesMismatchedTargets: hidden size, vocabulary and tapped
// layers are checked against the target, and the drafter is no model of
// its own.
func TestBindRefusesMismatchedTargets(t *testing.T) {
	dir := testenv.ModelsDir(t)
	dl := load(t, filepath.Join(dir, "drafters", "synth-dflash-qwen3-f32.gguf"))
	dm := dl.Model.(engine.BlockDrafterModel)
	o := engine.BlockDrafterOptions{CrossCtx: 512, NSeq: 1, MaxBlocks: 1}
	for name, want := range map[string]string{
		"synth-qwen35moe-spm-f32.gguf":  "hidden states of 256 values",
		"stories260K-f32.gguf":          "hidden states of 256 values",
		"synth-llama3-tiny-q4_k_m.gguf": "vocabulary has 512 tokens",
	} {
		target := load(t, filepath.Join(dir, name))
		if _, err := dm.NewBlockDrafter(target.Model, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, want)
		}
	}
	target := load(t, filepath.Join(dir, "synth-qwen3-spm-f32.gguf"))
	deep, err := dflashgen.Build(target.File, dflashgen.Options{Taps: []int{0, 4}})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := engine.LoadBytes(deep)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dd.Model.(engine.BlockDrafterModel).NewBlockDrafter(target.Model, o); err == nil || !strings.Contains(err.Error(), "taps target layer 4") {
		t.Errorf("a drafter tapping layer 4 of a 4-layer target: %v", err)
	}
	if _, err := dl.Model.NewSession(engine.SessionOptions{}); err == nil {
		t.Error("a drafter opened a session of its own")
	}
	for _, bad := range []engine.BlockDrafterOptions{{CrossCtx: 0, NSeq: 1, MaxBlocks: 1}, {CrossCtx: 8, NSeq: 0, MaxBlocks: 1}, {CrossCtx: 8, NSeq: 1, MaxBlocks: 0}} {
		if _, err := dm.NewBlockDrafter(target.Model, bad); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
	d, err := dm.NewBlockDrafter(target.Model, engine.BlockDrafterOptions{CrossCtx: 8, NSeq: 1, MaxBlocks: 1})
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := engine.NewHiddenRing(16, 512)
	wide, _ := engine.NewHiddenRing(16, 256)
	ring.Append(make([]float32, 512))
	wide.Append(make([]float32, 256))
	empty, _ := engine.NewHiddenRing(16, 512)
	for _, jobs := range [][]engine.BlockJob{
		nil, {{Seq: 1, Ring: ring, N: 4}}, {{Ring: ring, N: 1}}, {{Ring: ring, N: 17}}, {{Ring: ring, N: 4, Anchor: 512}},
		{{Ring: empty, N: 4}}, {{Ring: wide, N: 4}}, {{Ring: ring, N: 4}, {Ring: ring, N: 4}},
	} {
		if err := d.Draft(jobs); err == nil {
			t.Errorf("Draft(%+v) accepted", jobs)
		}
	}
}
