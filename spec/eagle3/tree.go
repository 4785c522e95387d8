package eagle3

import (
	"math"
	"slices"

	"github.com/waggle-llm/waggle/spec"
)

// Tree drafting, as EAGLE-3's reference drafts (docs/reference/eagle3.md
// §3.5, EAGLE-2's dynamic tree): the seed's top-k tokens are the first
// depth; at each further depth the k best candidates so far by cumulative
// log-probability are expanded, each fed its parent's output state, and
// their top-k children become candidates; finally the best candidates
// overall (at most the budget, every one with its parent) form the tree
// the target verifies in one batch. The drafter evaluates a depth as a
// tree batch: the seed again as its root, then the expanded candidates'
// ancestors and the candidates themselves, each seeing only its own path.

// cand is one candidate of a growing tree.
type cand struct {
	tok    int32   // target id
	parent int32   // candidate index of the parent (-1: a child of Last)
	score  float32 // cumulative log-probability
	state  int32   // its output state in grower.states (-1: not evaluated)
	out    int     // its output row in the pass evaluating it
}

// grower is one sequence's tree in the making; its buffers are reused
// from draft to draft.
type grower struct {
	k, depth, budget int
	cands            []cand
	frontier         []int32   // candidates evaluated by the coming pass
	states           []float32 // output states: row 0 the seed's, then evaluated candidates'
	rows             []int32   // candidate → batch index of the coming pass (-1: not in it)
	order, picked    []int32   // finalize's scratch
	topIdx           []int32
	topVal           []float32
}

// start begins a tree of depth levels, k candidates per expansion and at
// most budget nodes.
func (g *grower) start(k, depth, budget int) {
	g.k, g.depth, g.budget = k, depth, budget
	g.cands, g.frontier, g.states = g.cands[:0], g.frontier[:0], g.states[:0]
}

// grow reads a tree job's outputs of the last pass (step 0: the seed's),
// adds their children as candidates and either finishes the tree into the
// request (the last depth, or no batch room) or adds the next depth's rows
// to the batch.
func (s *Strategy) grow(j *job, step int) {
	g := &j.st.tree
	if step == 0 {
		g.states = append(g.states, s.dr.Next(j.out)...)
		s.children(g, -1, 0, s.dr.Logits(j.out))
	} else {
		level := len(g.cands)
		for _, f := range g.frontier {
			c := &g.cands[f]
			c.state = int32(len(g.states) / s.d)
			g.states = append(g.states, s.dr.Next(c.out)...)
			s.children(g, f, c.score, s.dr.Logits(c.out))
		}
		g.frontier = g.frontier[:0]
		for i := level; i < len(g.cands); i++ {
			g.frontier = append(g.frontier, int32(i))
		}
	}
	if step == 0 {
		for i := range g.cands {
			g.frontier = append(g.frontier, int32(i))
		}
	}
	g.keepBest()
	if step+1 >= g.depth || !s.addTreeRows(j) {
		g.finish(j.r)
		j.live = false
	}
}

// children adds the k best tokens of logits as candidates under parent,
// scored base plus their log-probability.
func (s *Strategy) children(g *grower, parent int32, base float32, logits []float32) {
	g.topIdx, g.topVal = topKOf(logits, g.k, g.topIdx[:0], g.topVal[:0])
	lse := logSumExp(logits)
	for i, id := range g.topIdx {
		g.cands = append(g.cands, cand{tok: s.target(int(id)), parent: parent, score: base + g.topVal[i] - lse, state: -1})
	}
}

// keepBest trims the frontier to the k candidates of highest score (the
// earlier candidate on a tie).
func (g *grower) keepBest() {
	slices.SortStableFunc(g.frontier, func(a, b int32) int {
		sa, sb := g.cands[a].score, g.cands[b].score
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return int(a - b)
	})
	if len(g.frontier) > g.k {
		g.frontier = g.frontier[:g.k]
	}
	slices.Sort(g.frontier)
}

// addTreeRows adds the next depth's pass for j: the seed (Last, the
// feature of the last committed position) as the root at NPast-1, the
// frontier's ancestors and the frontier, each fed its parent's state. It
// reports false when the batch has no room for them.
func (s *Strategy) addTreeRows(j *job) bool {
	g := &j.st.tree
	g.rows = slices.Grow(g.rows[:0], len(g.cands))[:len(g.cands)]
	for i := range g.rows {
		g.rows[i] = -1
	}
	n := 0
	for _, f := range g.frontier {
		for c := f; c >= 0 && g.rows[c] == -1; c = g.cands[c].parent {
			g.rows[c] = -2 // in the pass
			n++
		}
	}
	if s.batch.Len()+1+n > s.dr.Options().NBatch {
		return false
	}
	last := j.r.NPast - 1
	if s.dr.SeqLen(j.st.id) > last {
		_ = s.dr.Truncate(j.st.id, last)
	}
	root := int32(s.batch.Len())
	s.addNode(j.st, j.r.Last, last, -1, s.featureOf(j.st, last), false)
	pos := last + 1
	for c := range g.cands {
		if g.rows[c] != -2 {
			continue
		}
		cd := &g.cands[c]
		parent, state := root, int32(0)
		if cd.parent >= 0 {
			parent, state = g.rows[cd.parent], g.cands[cd.parent].state
		}
		out := slices.Contains(g.frontier, int32(c))
		if out {
			cd.out = s.nOut
		}
		g.rows[c] = int32(s.batch.Len())
		s.addNode(j.st, cd.tok, pos, parent, g.states[int(state)*s.d:(int(state)+1)*s.d], out)
		pos++
	}
	return true
}

// finish writes the tree into r: the best candidates by score (at most
// the budget), each after its parent, the main chain (the best child at
// every depth) first so that its length is the draft's depth.
func (g *grower) finish(r *spec.Request) {
	g.order = g.order[:0]
	for i := range g.cands {
		g.order = append(g.order, int32(i))
	}
	slices.SortStableFunc(g.order, func(a, b int32) int {
		sa, sb := g.cands[a].score, g.cands[b].score
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return int(a - b)
	})
	g.rows = slices.Grow(g.rows[:0], len(g.cands))[:len(g.cands)]
	for i := range g.rows {
		g.rows[i] = -1 // draft index, once picked
	}
	g.picked = g.picked[:0]
	for _, c := range g.order {
		if len(g.picked) == g.budget {
			break
		}
		if p := g.cands[c].parent; p < 0 || g.rows[p] == -2 {
			g.rows[c] = -2
			g.picked = append(g.picked, c)
		}
	}
	// The main chain: from the root, the best picked child each time.
	g.order = g.order[:0]
	for at := int32(-1); ; {
		best := int32(-1)
		for _, c := range g.picked {
			if g.cands[c].parent == at && (best < 0 || g.cands[c].score > g.cands[best].score) {
				best = c
			}
		}
		if best < 0 {
			break
		}
		g.order = append(g.order, best)
		at = best
	}
	slices.Sort(g.picked)
	for _, c := range g.picked {
		if !slices.Contains(g.order, c) {
			g.order = append(g.order, c)
		}
	}
	r.Draft, r.Parent = r.Draft[:0], r.Parent[:0]
	for i, c := range g.order {
		g.rows[c] = int32(i)
	}
	for _, c := range g.order {
		r.Draft = append(r.Draft, g.cands[c].tok)
		p := int32(-1)
		if q := g.cands[c].parent; q >= 0 {
			p = g.rows[q]
		}
		r.Parent = append(r.Parent, p)
	}
}

// topKOf appends the indices and values of the k largest logits (by value,
// the lower index on a tie), largest first.
func topKOf(logits []float32, k int, idx []int32, val []float32) ([]int32, []float32) {
	for i, v := range logits {
		if len(idx) == k && v <= val[k-1] {
			continue
		}
		if len(idx) < k {
			idx, val = append(idx, 0), append(val, 0)
		}
		p := len(idx) - 1
		for p > 0 && v > val[p-1] {
			idx[p], val[p] = idx[p-1], val[p-1]
			p--
		}
		idx[p], val[p] = int32(i), v
	}
	return idx, val
}

func logSumExp(logits []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range logits {
		m = max(m, v)
	}
	sum := 0.0
	for _, v := range logits {
		sum += math.Exp(float64(v - m))
	}
	return m + float32(math.Log(sum))
}
