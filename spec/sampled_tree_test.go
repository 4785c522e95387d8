package spec_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
)

// treeFixed is fixedSession that also verifies trees: every row has the
// same logits, so any kept path is as good as any other.
type treeFixed struct{ fixedSession }

func (f *treeFixed) TreeLimit() int { return 0 }

func (f *treeFixed) KeepPath(seq, root int, path []int32) error {
	f.lens[seq] = root + 1 + len(path)
	return nil
}

// qDrafter is a stochastic drafter: at every depth it draws k tokens
// without replacement from the fixed distribution q, with its own RNG.
// As a tree (tree true) the root gets all k as children and each first
// child gets the next depth's k; flat, it drafts one token per depth.
type qDrafter struct {
	q     []float32
	k     int
	depth int
	tree  bool
	rng   *rand.Rand
	qs    [][]float32
	cands [][]int32
}

func (d *qDrafter) Name() string          { return "const" }
func (d *qDrafter) Begin(int, []int32)    {}
func (d *qDrafter) Accept(int, int)       {}
func (d *qDrafter) Observe(*engine.Batch) {}

func (d *qDrafter) draw() []int32 {
	w := append([]float32(nil), d.q...)
	var out []int32
	for range d.k {
		var s float32
		for _, v := range w {
			s += v
		}
		u := d.rng.Float32() * s
		i := 0
		for ; i < len(w)-1 && u >= w[i]; i++ {
			u -= w[i]
		}
		out = append(out, int32(i))
		w[i] = 0
	}
	return out
}

func (d *qDrafter) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		d.qs, d.cands = d.qs[:0], d.cands[:0]
		parent := int32(-1)
		for range min(d.depth, r.NMax) {
			c := d.draw()
			d.qs, d.cands = append(d.qs, d.q), append(d.cands, c)
			if !d.tree {
				r.Draft = append(r.Draft, c[0])
				continue
			}
			first := int32(len(r.Draft))
			for _, x := range c {
				r.Draft = append(r.Draft, x)
				r.Parent = append(r.Parent, parent)
			}
			parent = first
		}
		r.Q, r.Cand = d.qs, d.cands
	}
}

// sampledTokens runs the Speculator with a qDrafter over runs seeds and
// returns the histogram of the emitted token at position pos.
func sampledTokens(t *testing.T, runs, pos int, tree bool, choose spec.ChooseFunc) []int {
	logits := make([]float32, len(targetP))
	for i, p := range targetP {
		logits[i] = float32(math.Log(p))
	}
	q := []float32{0.05, 0.5, 0.05, 0.3, 0.05, 0.05}
	counts := make([]int, len(targetP))
	drafted := 0
	for seed := 1; seed <= runs; seed++ {
		sess := &treeFixed{fixedSession{logits: logits, lens: map[int]int{}}}
		d := &qDrafter{q: q, k: 1, depth: 3, tree: tree, rng: rand.New(rand.NewPCG(uint64(seed), 7))}
		if tree {
			d.k = 3
		}
		sp := spec.New(sess, spec.NewChainOf(d), &spec.Config{NMax: 3, Adaptive: spec.AdaptiveParams{}})
		if choose != nil {
			spec.SetChoose(sp, choose)
		}
		p := sample.DefaultParams()
		p.Temp, p.TopK, p.TopP, p.MinP, p.Seed = 1, 0, 1, 0, uint32(seed)
		smp, err := sample.New(p, len(targetP))
		if err != nil {
			t.Fatal(err)
		}
		sl := &spec.Slot{Sampler: smp}
		var out []int32
		if _, err := sp.Generate(sl, []int32{0, 1, 2}, pos+4, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
			t.Fatal(err)
		}
		counts[out[pos]]++
		drafted += sl.DraftN
	}
	if drafted == 0 {
		t.Fatal("nothing was drafted: the test would not test verification")
	}
	return counts
}

// TestSampledStochasticDrafts checks exact sampled verification of a
// stochastic drafter, flat (one draw per depth, the standard rule) and as
// a tree (three draws without replacement per depth): the emitted tokens
// at the first and second verified positions follow the target's
// softmax, although the drafter proposes from a very different q. Test of
// the test: BeeLlama's rule, which emits the target's own sample on
// rejection instead of a residual draw, must fail.
func TestSampledStochasticDrafts(t *testing.T) {
	const runs = 4000
	for _, tree := range []bool{false, true} {
		for _, pos := range []int{1, 2} {
			counts := sampledTokens(t, runs, pos, tree, nil)
			x := chiSquare(counts, runs)
			t.Logf("tree %v position %d: counts %v chi2 %.2f", tree, pos, counts, x)
			if x > chiCritical {
				t.Errorf("tree %v position %d: chi-square %.2f > %.2f: not the target distribution", tree, pos, x, chiCritical)
			}
		}
		counts := sampledTokens(t, runs, 1, tree, spec.ChooseBeeLlama)
		x := chiSquare(counts, runs)
		t.Logf("tree %v, BeeLlama's rule: counts %v chi2 %.2f", tree, counts, x)
		if x <= chiCritical {
			t.Errorf("tree %v: BeeLlama's biased rule passed the chi-square test (%.2f)", tree, x)
		}
	}
}
