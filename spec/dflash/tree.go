package dflash

import "math"

// DDTree construction (dflash-ddtree.md §7), BeeLlama's algorithm: the
// main chain of each row's best token, then best-first branches from a
// max-heap of cumulative weights, reproduced down to the heap's tie order
// (stdHeap).

// treeShape is one tree's sizes for a cycle (§7.1).
type treeShape struct {
	mainLen, branch int
	horizon         int
}

// shapeTree computes main-path length and branch count for a tree of at
// most budget nodes, with nMax the draft cap this cycle, nMaxBase the cap
// before the adaptive controller, blockSize the drafter's block and k
// candidates per row.
func shapeTree(budget, nMax, nMaxBase, blockSize, k int) treeShape {
	horizon := min(nMax, blockSize-1)
	orig := min(nMaxBase, blockSize-1)
	b := 0
	if k > 1 && budget > orig && orig > 0 {
		ratio := float32(budget-orig) / float32(orig)
		b = min(int(math.Round(float64(float32(horizon)*ratio))), max(0, budget-horizon))
		b = max(0, b)
	}
	return treeShape{mainLen: min(horizon, max(1, budget-b)), branch: b, horizon: horizon}
}

// tree is a built DDTree: node k (1-based) has token tokens[k-1], depth
// depths[k-1], value vals[k-1] and parent parents[k] (node 0 is the root,
// parents[0] = -1).
type tree struct {
	tokens  []int32
	depths  []int
	vals    []float32
	parents []int
	mainLen int
	heap    stdHeap
}

func (t *tree) reset() {
	t.tokens, t.depths, t.vals = t.tokens[:0], t.depths[:0], t.vals[:0]
	t.parents = append(t.parents[:0], -1)
	t.mainLen = 0
	t.heap = t.heap[:0]
}

// add appends a node and returns its index.
func (t *tree) add(tok int32, parent, depth int, v float32) int {
	t.tokens = append(t.tokens, tok)
	t.parents = append(t.parents, parent)
	t.depths = append(t.depths, depth)
	t.vals = append(t.vals, v)
	return len(t.tokens)
}

// hasChild reports whether node parent already has a child holding tok.
func (t *tree) hasChild(parent int, tok int32) bool {
	for k, p := range t.parents[1:] {
		if p == parent && t.tokens[k] == tok {
			return true
		}
	}
	return false
}

// build makes the tree of at most budget nodes from the candidates of
// block rows 1…: ids[d][r] and vals[d][r] are rank r's token and value at
// depth d (k per row).
func (t *tree) build(sh treeShape, budget, k int, ids [][]int32, vals [][]float32) {
	t.reset()
	parent := 0
	for d := 1; d <= sh.horizon && d <= sh.mainLen && len(t.tokens) < budget; d++ {
		parent = t.add(ids[d][0], parent, d, vals[d][0])
	}
	t.mainLen = len(t.tokens)
	if k < 2 || sh.branch <= 0 {
		return
	}
	var cum float32
	for d := 1; d <= t.mainLen; d++ {
		t.heap.push(heapEntry{w: cum + vals[d][1], parent: d - 1, depth: d, rank: 1})
		cum += vals[d][0]
	}
	for len(t.heap) > 0 && len(t.tokens)-t.mainLen < sh.branch {
		e := t.heap.pop()
		tok := ids[e.depth][e.rank]
		if tok < 0 || t.hasChild(e.parent, tok) {
			continue
		}
		node := t.add(tok, e.parent, e.depth, vals[e.depth][e.rank])
		if e.rank+1 < k {
			t.heap.push(heapEntry{w: e.w - vals[e.depth][e.rank] + vals[e.depth][e.rank+1], parent: e.parent, depth: e.depth, rank: e.rank + 1})
		}
		if e.depth < sh.horizon {
			t.heap.push(heapEntry{w: e.w + vals[e.depth+1][0], parent: node, depth: e.depth + 1, rank: 0})
		}
	}
}

// heapEntry is a candidate branch node: cumulative weight w, parent node,
// depth and rank of its token in that depth's candidates.
type heapEntry struct {
	w                   float32
	parent, depth, rank int
}

// stdHeap is a max-heap on w that orders ties exactly as libstdc++'s
// std::priority_queue (push_heap / pop_heap with __adjust_heap), so that
// trees built from equal weights match BeeLlama's.
type stdHeap []heapEntry

func (h *stdHeap) push(e heapEntry) {
	*h = append(*h, e)
	h.up(len(*h)-1, 0, e)
}

// up is __push_heap: move the hole at hole up while its parent is less
// than e, then put e there.
func (h stdHeap) up(hole, top int, e heapEntry) {
	parent := (hole - 1) / 2
	for hole > top && h[parent].w < e.w {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = e
}

// pop is pop_heap then pop_back: the top leaves, the last entry is sifted
// down from the root by __adjust_heap.
func (h *stdHeap) pop() heapEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	if n > 0 {
		last := s[n]
		s[n] = s[0]
		s[:n].adjust(0, last)
	}
	*h = s[:n]
	return top
}

// adjust is __adjust_heap(first, hole, len, value).
func (h stdHeap) adjust(hole int, e heapEntry) {
	n, top, child := len(h), hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if h[child].w < h[child-1].w {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	h.up(hole, top, e)
}
