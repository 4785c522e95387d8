package sample

import (
	"cmp"
	"slices"
)

// Candidate is one token still in the running, as in llama_token_data.
type Candidate struct {
	ID    int32
	Logit float32
	P     float32
}

// cands is the working candidate array of one Sample call plus llama.cpp's
// "sorted" flag: when set, c is in descending logit order and stages may use
// the first element as the maximum and keep prefixes. ident marks the
// untouched vocabulary order (c[i].ID == i for every i), which lets the
// stages that look tokens up by id index instead of scan.
type cands struct {
	c      []Candidate
	sorted bool
	ident  bool
}

// before is the total order used wherever llama.cpp sorts by logit: higher
// logit first, ties by lower id. llama.cpp's sorts are not stable, so for
// ties any order matches it; fixing one makes results reproducible.
func before(a, b Candidate) int {
	if a.Logit != b.Logit {
		if a.Logit > b.Logit {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.ID, b.ID)
}

// sortAll sorts the whole array in descending order.
func (cs *cands) sortAll() {
	slices.SortFunc(cs.c, before)
	cs.sorted, cs.ident = true, false
}

// sortTop moves the k best candidates to the front, in descending order, and
// leaves the rest behind them in unspecified order. The array keeps its
// length; callers that truncate set the length themselves. Costs O(n log k)
// in the worst case and about O(n) for typical logits.
func (cs *cands) sortTop(k int) {
	c := cs.c
	if k >= len(c) || k > len(c)/4 {
		cs.sortAll()
		return
	}
	cs.ident = false
	h := c[:k]
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for i := k; i < len(c); i++ {
		if c[i].Logit < h[0].Logit { // fast reject; before() settles ties
			continue
		}
		if before(c[i], h[0]) < 0 {
			h[0], c[i] = c[i], h[0]
			siftDown(h, 0)
		}
	}
	slices.SortFunc(h, before)
}

// siftDown restores a heap whose root is the worst candidate kept so far.
func siftDown(h []Candidate, i int) {
	n := len(h)
	for {
		w := i
		l, r := 2*i+1, 2*i+2
		if l < n && before(h[l], h[w]) > 0 {
			w = l
		}
		if r < n && before(h[r], h[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
