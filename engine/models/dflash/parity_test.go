package dflash_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/dflash"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

func load(t testing.TB, path string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Require(t, path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func goldenFile(t testing.TB, p string) *golden.DFlash {
	t.Helper()
	g, err := golden.LoadDFlash(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens-dflash", p+".json")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bind loads g's target and drafter and binds them.
func bind(t testing.TB, g *golden.DFlash, o engine.BlockDrafterOptions) (engine.BlockDrafter, *engine.Loaded, engine.BlockDrafterModel) {
	t.Helper()
	dir := testenv.ModelsDir(t)
	target := load(t, filepath.Join(dir, g.Config.Target))
	dl := load(t, filepath.Join(dir, "drafters", g.Config.Drafter))
	dm, ok := dl.Model.(engine.BlockDrafterModel)
	if !ok {
		t.Fatalf("%s is not a block drafter", g.Config.Drafter)
	}
	d, err := dm.NewBlockDrafter(target.Model, o)
	if err != nil {
		t.Fatal(err)
	}
	return d, target, dm
}

// TestDrafterParity feeds BeeLlama's captured target rows (the prompt's,
// then each step's appended rows) to the drafter and compares, at every
// step, the top-20 logits of every drafted row (within 1e-4) and the
// drafted ids with BeeLlama's.
func TestDrafterParity(t *testing.T) {
	for _, p := range []string{"p1", "p2", "p3"} {
		t.Run(p, func(t *testing.T) {
			g := goldenFile(t, p)
			d, _, dm := bind(t, g, engine.BlockDrafterOptions{CrossCtx: g.Config.CrossCtx, NSeq: 1, MaxBlocks: 1})
			info := dm.Block()
			if info.BlockSize != g.Config.BlockSize || info.MaskToken != g.Config.MaskTokenID || len(info.Taps) != len(g.Config.Taps) {
				t.Fatalf("block info %+v differs from the golden's config", info)
			}
			ring, err := engine.NewHiddenRing(4096, len(g.PromptRows[0]))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range g.PromptRows {
				ring.Append(r)
			}
			worst := 0.0
			for _, st := range g.Steps {
				if err := d.Draft([]engine.BlockJob{{Seq: 0, Ring: ring, Anchor: st.Anchor, N: st.NDraft + 1}}); err != nil {
					t.Fatal(err)
				}
				if got := d.CrossLen(0); got != st.CrossLen {
					t.Fatalf("step %d: window of %d rows, BeeLlama's %d", st.Step, got, st.CrossLen)
				}
				for i, top := range st.FlatRowsTop20 {
					worst = max(worst, checkTop(t, fmt.Sprintf("step %d row %d", st.Step, i+1), d.Logits(0, i+1), top, st.Draft[i]))
				}
				for _, r := range st.AppendedRows {
					ring.Append(r)
				}
			}
			t.Logf("max |Δlogit| %.3g over %d steps", worst, len(g.Steps))
		})
	}
}

// checkTop compares logits with BeeLlama's top-20 [id, logit] pairs and
// the argmax with the drafted id.
func checkTop(t *testing.T, what string, logits []float32, top [][2]float64, draft int32) float64 {
	t.Helper()
	worst := 0.0
	for _, p := range top {
		worst = max(worst, math.Abs(float64(logits[int(p[0])])-p[1]))
	}
	if worst > 1e-4 {
		t.Errorf("%s: top-20 logits differ from BeeLlama's by %.3g", what, worst)
	}
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	if int32(best) != draft {
		t.Errorf("%s: argmax %d, BeeLlama drafted %d", what, best, draft)
	}
	return worst
}
