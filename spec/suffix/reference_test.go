package suffix

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

// The reference below is the straightforward form this package had first:
// child slices per node and, per match length, a walk from the root. The
// strategy's drafts must equal it token for token.

type refNode struct {
	tok   int32
	count int32
	kids  []int32 // node indices
}

// trie holds every suffix of the indexed tokens up to MaxDepth. Appending a
// token extends each active node (the suffixes ending at the previous
// token, shorter than MaxDepth) by one child: O(MaxDepth) per token and
// at most MaxDepth nodes per token.
type refTrie struct {
	nodes  []refNode
	active []int32
	next   []int32
	n      int // tokens indexed
	last   int32
}

func newRefTrie() *refTrie { return &refTrie{nodes: []refNode{{tok: -1}}} }

func (t *refTrie) child(n int32, tok int32) int32 {
	for _, k := range t.nodes[n].kids {
		if t.nodes[k].tok == tok {
			return k
		}
	}
	return -1
}

func (t *refTrie) push(tok int32, maxDepth int) {
	t.next = t.next[:0]
	t.active = append(t.active, 0) // the root starts the one-token suffix
	for depth, a := range t.active {
		_ = depth
		k := t.child(a, tok)
		if k < 0 {
			k = int32(len(t.nodes))
			t.nodes = append(t.nodes, refNode{tok: tok})
			t.nodes[a].kids = append(t.nodes[a].kids, k)
		}
		t.nodes[k].count++
		t.next = append(t.next, k)
	}
	t.nodes[0].count++
	// Keep suffixes shorter than maxDepth; active is ordered longest first.
	if len(t.next) >= maxDepth {
		t.next = t.next[len(t.next)-maxDepth+1:]
	}
	t.active, t.next = t.next, t.active
	t.n++
	t.last = tok
}

// refDraft (the implementation before the active-list lookup) tries every match length ℓ whose suffix occurs in the trie and
// keeps the path with the best expected accepted length.
func refDraft(p Params, t *refTrie, r *spec.Request) {
	bestScore, bestStart, bestN := 0.0, int32(-1), 0
	var bestPath [256]int32
	var path [256]int32
	for l := 1; l < p.MaxDepth && l <= r.Len(); l++ {
		n := int32(0)
		for i := r.Len() - l; i < r.Len() && n >= 0; i++ {
			n = t.child(n, r.Context(i))
		}
		if n < 0 {
			break
		}
		budget := min(r.NMax, p.NMax, int(float64(l)*p.SpecFactor+p.SpecOffset), len(path), p.MaxDepth-l)
		prob, score, k := 1.0, 0.0, 0
		for k < budget {
			kids := t.nodes[n].kids
			if len(kids) == 0 {
				break
			}
			top := kids[0]
			for _, c := range kids[1:] {
				if t.nodes[c].count > t.nodes[top].count {
					top = c
				}
			}
			prob *= float64(t.nodes[top].count) / float64(t.nodes[n].count)
			if prob < p.MinProb {
				break
			}
			path[k] = t.nodes[top].tok
			score += prob
			k++
			n = top
		}
		if k > 0 && score >= bestScore {
			bestScore, bestStart, bestN = score, int32(l), k
			copy(bestPath[:k], path[:k])
		}
	}
	if bestStart > 0 {
		r.Draft = append(r.Draft, bestPath[:bestN]...)
	}
}

// TestDraftsEqualReference: on random streams with repeats (small
// vocabularies, copied spans), every draft of the strategy equals the
// reference's, for several trie depths and draft caps.
func TestDraftsEqualReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		vocab := int32(2 + r.IntN(12))
		var h []int32
		for len(h) < 300 {
			if len(h) > 8 && r.IntN(3) == 0 {
				at := r.IntN(len(h) - 4)
				h = append(h, h[at:at+2+r.IntN(min(20, len(h)-at-2))]...)
			} else {
				h = append(h, r.Int32N(vocab))
			}
		}
		p := Params{MaxDepth: []int{4, 16, 64}[trial%3], SpecFactor: 2, MinProb: 0.1, NMax: 1 + r.IntN(24)}
		s := New(p)
		s.Begin(0, h[:10])
		ref := newRefTrie()
		for i := 10; i < len(h); i++ {
			req := &spec.Request{NMax: p.NMax, History: h[:i-1], Last: h[i-1]}
			s.Draft([]*spec.Request{req})
			for ref.n < i-1 {
				ref.push(h[ref.n], p.MaxDepth)
			}
			want := &spec.Request{NMax: p.NMax, History: h[:i-1], Last: h[i-1]}
			refDraft(p, ref, want)
			if !slices.Equal(req.Draft, want.Draft) {
				t.Fatalf("trial %d (depth %d, vocab %d) at %d: draft %v, reference %v", trial, p.MaxDepth, vocab, i, req.Draft, want.Draft)
			}
		}
	}
}

// TestPushAllocatesAmortized: indexing a token allocates nothing beyond the
// node slice's growth (no per-node child slices).
func TestPushAllocatesAmortized(t *testing.T) {
	tr := newTrie()
	tr.nodes = make([]node, 1, 1<<16)
	tr.nodes[0] = node{tok: -1, first: -1, last: -1, next: -1}
	tr.active, tr.next = make([]int32, 0, 64), make([]int32, 0, 64)
	r := rand.New(rand.NewPCG(1, 1))
	if a := testing.AllocsPerRun(500, func() { tr.push(r.Int32N(50), 64) }); a != 0 {
		t.Errorf("push: %v allocations per token", a)
	}
}
