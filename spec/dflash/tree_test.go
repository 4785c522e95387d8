package dflash

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/dflash"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestTreeParity drafts every goldens-dflash step's full block from
// BeeLlama's target rows and builds DDTrees from its top-4 candidates,
// weighted by raw logits (BeeLlama's greedy values) and by log-softmax:
// both must be the golden trees node for node (token, parent, depth),
// values within 1e-4.
func TestTreeParity(t *testing.T) {
	dir := testenv.ModelsDir(t)
	for _, p := range []string{"p1", "p2", "p3"} {
		t.Run(p, func(t *testing.T) {
			g, err := golden.LoadDFlash(testenv.Require(t, filepath.Join(dir, "goldens-dflash", p+".json")))
			if err != nil {
				t.Fatal(err)
			}
			target, err := engine.LoadFile(filepath.Join(dir, g.Config.Target))
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close()
			dl, err := engine.LoadFile(filepath.Join(dir, "drafters", g.Config.Drafter))
			if err != nil {
				t.Fatal(err)
			}
			defer dl.Close()
			d, err := dl.Model.(engine.BlockDrafterModel).NewBlockDrafter(target.Model, engine.BlockDrafterOptions{CrossCtx: g.Config.CrossCtx, NSeq: 1, MaxBlocks: 1})
			if err != nil {
				t.Fatal(err)
			}
			ring, _ := engine.NewHiddenRing(4096, len(g.PromptRows[0]))
			for _, r := range g.PromptRows {
				ring.Append(r)
			}
			bs, k := g.Config.BlockSize, g.Config.TreeTopK
			budget := min(g.Config.NMax+g.Config.BranchBudget, g.Config.NMax*k, g.Config.TargetUBatch-1)
			for _, st := range g.Steps {
				if budget != st.TreeBudget {
					t.Fatalf("tree budget %d, BeeLlama's %d", budget, st.TreeBudget)
				}
				if err := d.Draft([]engine.BlockJob{{Ring: ring, Anchor: st.Anchor, N: bs}}); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					logProb bool
					want    golden.DFlashTree
				}{{false, st.TreeRawLogit}, {true, st.TreeLogSoft}} {
					pk := newPicker(k, 0, c.logProb, 1)
					ids, vals := make([][]int32, bs), make([][]float32, bs)
					for r := 1; r < bs; r++ {
						pk.pick(d.Logits(0, r), nil)
						ids[r], vals[r] = append([]int32(nil), pk.ids...), append([]float32(nil), pk.vals...)
					}
					var tr tree
					sh := shapeTree(budget, g.Config.NMax, g.Config.NMax, bs, k)
					tr.build(sh, budget, k, ids, vals)
					checkTree(t, st.Step, c.logProb, &tr, c.want)
				}
				for _, r := range st.AppendedRows {
					ring.Append(r)
				}
			}
		})
	}
}

func checkTree(t *testing.T, step int, logProb bool, tr *tree, want golden.DFlashTree) {
	t.Helper()
	if tr.mainLen != want.MainLen || len(tr.tokens) != len(want.Nodes) {
		t.Fatalf("step %d logProb %v: %d nodes (main %d), BeeLlama %d (main %d)", step, logProb, len(tr.tokens), tr.mainLen, len(want.Nodes), want.MainLen)
	}
	for i, n := range want.Nodes {
		if n.I != i+1 || tr.tokens[i] != n.Token || tr.parents[i+1] != n.Parent || tr.depths[i] != n.Depth {
			t.Fatalf("step %d logProb %v node %d: token %d parent %d depth %d, BeeLlama %+v", step, logProb, i+1, tr.tokens[i], tr.parents[i+1], tr.depths[i], n)
		}
		if d := float64(tr.vals[i]) - n.Value; d > 1e-4 || d < -1e-4 {
			t.Fatalf("step %d logProb %v node %d: value %g, BeeLlama %g", step, logProb, i+1, tr.vals[i], n.Value)
		}
	}
}

// TestStdHeapTieOrder: entries of equal weight leave the heap in the
// order libstdc++'s std::priority_queue gives them (this sequence of
// pushes and pops, run through g++ 13's priority_queue<E> with operator<
// on the weight only, printed 1 4 8 9 2 17 7 16 19 5 13 11 12 14 18 3 0
// 6 10 15), so trees built from tied weights are BeeLlama's.
func TestStdHeapTieOrder(t *testing.T) {
	ws := []float32{1, 2, 2, 1, 3, 2, 1, 2, 3, 3, 1, 2, 2, 2, 1, 0, 2, 3, 1, 2}
	want := []int{1, 4, 8, 9, 2, 17, 7, 16, 19, 5, 13, 11, 12, 14, 18, 3, 0, 6, 10, 15}
	var h stdHeap
	var got []int
	for i, w := range ws {
		h.push(heapEntry{w: w, rank: i})
		if i%3 == 2 {
			got = append(got, h.pop().rank)
		}
	}
	for len(h) > 0 {
		got = append(got, h.pop().rank)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pop order %v, libstdc++'s %v", got, want)
		}
	}
}
