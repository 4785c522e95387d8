package eagle3_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// pathEval evaluates the drafter along any path after a committed
// history, one token at a time as a chain drafts: the seed (Last, the
// last committed feature), then each path token fed the previous state.
type pathEval struct {
	dr    engine.FeatureDrafter
	nPast int
	last  int32
	seedG []float32
	memo  map[string][2][]float32
	d2t   []int32
}

func newPathEval(t *testing.T, target *engine.Loaded, fm engine.FeatureDrafterModel, history []int32, last int32) *pathEval {
	t.Helper()
	dr, err := fm.NewFeatureDrafter(target.Model, engine.SessionOptions{NCtx: 256, NBatch: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	sess := newTapped(t, target.Model, fm.Features().Layers, engine.SessionOptions{NCtx: 256, NBatch: 256, Threads: 1})
	var b engine.Batch
	for i, tok := range history {
		b.Add(tok, int32(i), 0, false)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	d, in := fm.Features().NEmbd, len(fm.Features().Layers)*fm.Features().TargetEmbd
	x := make([]float32, 0, len(history)*in)
	for i := range history {
		x = append(x, sess.Row(i)...)
	}
	g := make([]float32, len(history)*d)
	dr.Fuse(g, x, len(history))
	b.Reset()
	for p := 0; p < len(history)-1; p++ {
		b.Add(history[p+1], int32(p), 0, false)
	}
	if err := dr.Decode(&b, g); err != nil {
		t.Fatal(err)
	}
	n := len(history)
	return &pathEval{dr: dr, nPast: n, last: last, seedG: g[(n-1)*d : n*d], memo: map[string][2][]float32{}, d2t: dr.DraftVocab()}
}

// at returns the drafter's logits (draft vocabulary) and state after path
// (empty: the seed's), decoding the seed and the path as a chain with
// each token fed the state before it.
func (pe *pathEval) at(t *testing.T, path []int32) ([]float32, []float32) {
	t.Helper()
	key := fmt.Sprint(path)
	if v, ok := pe.memo[key]; ok {
		return v[0], v[1]
	}
	feats := append([]float32(nil), pe.seedG...)
	for i := range path {
		_, h := pe.at(t, path[:i])
		feats = append(feats, h...)
	}
	if err := pe.dr.Truncate(0, pe.nPast-1); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	toks := append([]int32{pe.last}, path...)
	for i, tok := range toks {
		b.Add(tok, int32(pe.nPast-1+i), 0, i == len(toks)-1)
	}
	if err := pe.dr.Decode(&b, feats); err != nil {
		t.Fatal(err)
	}
	v := [2][]float32{append([]float32(nil), pe.dr.Logits(0)...), append([]float32(nil), pe.dr.Next(0)...)}
	pe.memo[key] = v
	return v[0], v[1]
}

// refTree grows the tree by the reference's rule with every node
// evaluated along its own path, and returns the picked nodes' paths.
func refTree(t *testing.T, pe *pathEval, k, depth, budget int) []string {
	type node struct {
		path  []int32
		score float64
		id    int
		par   int
	}
	var all []node
	children := func(par int, path []int32, base float64) []int {
		logits, _ := pe.at(t, path)
		lse := 0.0
		m := math.Inf(-1)
		for _, v := range logits {
			m = math.Max(m, float64(v))
		}
		for _, v := range logits {
			lse += math.Exp(float64(v) - m)
		}
		lse = m + math.Log(lse)
		idx := make([]int, len(logits))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return logits[idx[a]] > logits[idx[b]] })
		var out []int
		for _, i := range idx[:k] {
			tok := int32(i)
			if pe.d2t != nil {
				tok = pe.d2t[i]
			}
			all = append(all, node{path: append(slices.Clone(path), tok), score: base + float64(float32(logits[i])-float32(lse)), id: len(all), par: par})
			out = append(out, len(all)-1)
		}
		return out
	}
	best := func(ids []int) []int {
		sort.SliceStable(ids, func(a, b int) bool { return all[ids[a]].score > all[ids[b]].score })
		if len(ids) > k {
			ids = ids[:k]
		}
		return ids
	}
	frontier := best(children(-1, nil, 0))
	for level := 2; level <= depth; level++ {
		var next []int
		for _, f := range frontier {
			next = append(next, children(f, all[f].path, all[f].score)...)
		}
		frontier = best(next)
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return all[order[a]].score > all[order[b]].score })
	picked := map[int]bool{}
	var paths []string
	for _, i := range order {
		if len(paths) == budget {
			break
		}
		if all[i].par < 0 || picked[all[i].par] {
			picked[i] = true
			paths = append(paths, fmt.Sprint(all[i].path))
		}
	}
	sort.Strings(paths)
	return paths
}

// treePaths lists the root-to-node paths of a tree draft.
func treePaths(draft, parent []int32) []string {
	var out []string
	for i := range draft {
		var p []int32
		for j := int32(i); j >= 0; j = parent[j] {
			p = append([]int32{draft[j]}, p...)
		}
		out = append(out, fmt.Sprint(p))
	}
	sort.Strings(out)
	return out
}

// TestTreeIsTheReferenceGrowth grows trees with the strategy (depths 1-4,
// 2-4 candidates per expansion, several budgets) after a committed
// history, and the same trees by the reference rule with every node
// evaluated along its own path one token at a time: the trees must be
// the same, node for node; the draft lists each parent before its
// children, with the main chain first.
func TestTreeIsTheReferenceGrowth(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dl := drafter(t, "stories260K-eagle3-f32.gguf")
	prompt := []int32{1, 385, 328, 432, 261, 376, 268, 414, 422, 395, 326, 439}
	for _, c := range []struct{ depth, k, branch int }{{3, 3, 6}, {1, 4, 3}, {4, 2, 10}, {2, 4, 40}} {
		t.Run(fmt.Sprintf("depth %d k %d branch %d", c.depth, c.k, c.branch), func(t *testing.T) {
			p := spec.DefaultEagle3()
			p.Model, p.Target, p.NMax, p.TopK, p.BranchBudget = dl.Model, target.Model, c.depth, c.k, c.branch
			p.Session = engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1}
			s := newEagle3(t, p)
			sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1})
			r := prefill(t, sess, s, 0, prompt, 0)
			req := &spec.Request{Seq: 0, NMax: c.depth, NPast: r.nPast, Last: r.idLast, History: r.history, Draft: make([]int32, 0, 64),
				AllowTree: true, Budget: 64, BranchBudget: -1, PMin: -1}
			s.Draft([]*spec.Request{req})
			if len(req.Parent) != len(req.Draft) || len(req.Draft) == 0 {
				t.Fatalf("draft %v parents %v", req.Draft, req.Parent)
			}
			main := 0
			for i, par := range req.Parent {
				if par >= int32(i) {
					t.Fatalf("node %d has parent %d, not before it", i, par)
				}
				if par == int32(i)-1 && main == i {
					main++
				}
			}
			if main != c.depth && len(req.Draft) >= c.depth {
				t.Errorf("main chain of %d nodes, depth %d (parents %v)", main, c.depth, req.Parent)
			}
			fm := dl.Model.(engine.FeatureDrafterModel)
			pe := newPathEval(t, target, fm, r.history, r.idLast)
			budget := min(c.depth+c.branch, c.k+(c.depth-1)*c.k*c.k)
			want := refTree(t, pe, c.k, c.depth, budget)
			if got := treePaths(req.Draft, req.Parent); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("tree paths:\n%v\nreference:\n%v", got, want)
			}
		})
	}
}

func newEagle3(t *testing.T, p spec.Eagle3Params) *eagle3.Strategy {
	t.Helper()
	s, err := eagle3.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
