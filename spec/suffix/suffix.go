// Package suffix is a SuffixDecoding drafter (the buun fork's port of
// Snowflake ArcticInference, arXiv 2411.04975): a suffix trie over the
// context, truncated at MaxDepth, with occurrence counts; drafts follow the
// most frequent continuation of the longest-scoring matched suffix.
package suffix

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("suffix", func(c *spec.Config) (spec.Strategy, error) { return New(DefaultParams(c.NMax)), nil })
}

// Params are buun's defaults (no flags there either).
type Params struct {
	MaxDepth   int     // trie depth (64)
	SpecFactor float64 // draft budget per matched token (2.0)
	SpecOffset float64 // budget offset (0)
	MinProb    float64 // stop when the path probability falls below (0.1)
	NMax       int     // longest draft
}

// DefaultParams returns buun's defaults with the given draft cap.
func DefaultParams(nMax int) Params {
	return Params{MaxDepth: 64, SpecFactor: 2, SpecOffset: 0, MinProb: 0.1, NMax: max(nMax, 1)}
}

// node is a trie node; its children form a list in insertion order (first,
// last, and each child's next sibling; -1 ends), so a new node costs no
// allocation beyond the amortized growth of the node slice.
type node struct {
	tok, count        int32
	first, last, next int32
}

// trie holds every suffix of the indexed tokens up to MaxDepth. Appending a
// token extends each active node (the suffixes ending at the previous
// token, shorter than MaxDepth) by one child: O(MaxDepth) per token and
// at most MaxDepth nodes per token.
type trie struct {
	nodes  []node
	active []int32
	next   []int32
	n      int // tokens indexed
	last   int32
}

func newTrie() *trie { return &trie{nodes: []node{{tok: -1, first: -1, last: -1, next: -1}}} }

func (t *trie) child(n int32, tok int32) int32 {
	for k := t.nodes[n].first; k >= 0; k = t.nodes[k].next {
		if t.nodes[k].tok == tok {
			return k
		}
	}
	return -1
}

// addChild appends a new child with tok to n's list and returns it.
func (t *trie) addChild(n int32, tok int32) int32 {
	k := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{tok: tok, first: -1, last: -1, next: -1})
	if p := t.nodes[n].last; p >= 0 {
		t.nodes[p].next = k
	} else {
		t.nodes[n].first = k
	}
	t.nodes[n].last = k
	return k
}

func (t *trie) push(tok int32, maxDepth int) {
	t.next = t.next[:0]
	t.active = append(t.active, 0) // the root starts the one-token suffix
	for _, a := range t.active {
		k := t.child(a, tok)
		if k < 0 {
			k = t.addChild(a, tok)
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

// Suffix is the strategy; one trie per sequence over its History.
type Suffix struct {
	p    Params
	seqs []*trie
}

// New returns a suffix strategy.
func New(p Params) *Suffix { return &Suffix{p: p} }

func (s *Suffix) Name() string          { return "suffix" }
func (s *Suffix) Observe(*engine.Batch) {}
func (s *Suffix) Accept(int, int)       {}

func (s *Suffix) seq(i int) *trie {
	for i >= len(s.seqs) {
		s.seqs = append(s.seqs, nil)
	}
	if s.seqs[i] == nil {
		s.seqs[i] = newTrie()
	}
	return s.seqs[i]
}

// Begin rebuilds the sequence's trie from the prompt.
func (s *Suffix) Begin(seq int, prompt []int32) {
	s.seq(seq)
	s.seqs[seq] = newTrie()
	for _, t := range prompt {
		s.seqs[seq].push(t, s.p.MaxDepth)
	}
}

func (s *Suffix) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		t := s.seq(r.Seq)
		if len(r.History) < t.n || (t.n > 0 && r.History[t.n-1] != t.last) {
			s.seqs[r.Seq] = newTrie()
			t = s.seqs[r.Seq]
		}
		for _, tok := range r.History[t.n:] {
			t.push(tok, s.p.MaxDepth)
		}
		s.draft(t, r)
	}
}

// draft tries every match length ℓ whose suffix occurs in the trie and
// keeps the path with the best expected accepted length. The trie indexes
// History, so the node of the context's suffix of length ℓ (which ends
// with Last) is the Last-child of the node of History's suffix of length
// ℓ-1: t.active holds those, longest first, and the root stands for ℓ-1
// = 0. That is one child lookup per ℓ instead of a walk of ℓ from the
// root.
func (s *Suffix) draft(t *trie, r *spec.Request) {
	bestScore, bestStart, bestN := 0.0, int32(-1), 0
	var bestPath [256]int32
	var path [256]int32
	for l := 1; l < s.p.MaxDepth && l <= r.Len(); l++ {
		parent := int32(0)
		if l > 1 {
			if l-1 > len(t.active) {
				break // no indexed suffix of History is that long
			}
			parent = t.active[len(t.active)-(l-1)]
		}
		n := t.child(parent, r.Last)
		if n < 0 {
			break
		}
		budget := min(r.NMax, s.p.NMax, int(float64(l)*s.p.SpecFactor+s.p.SpecOffset), len(path), s.p.MaxDepth-l)
		prob, score, k := 1.0, 0.0, 0
		for k < budget {
			top := t.nodes[n].first
			if top < 0 {
				break
			}
			for c := t.nodes[top].next; c >= 0; c = t.nodes[c].next {
				if t.nodes[c].count > t.nodes[top].count {
					top = c
				}
			}
			prob *= float64(t.nodes[top].count) / float64(t.nodes[n].count)
			if prob < s.p.MinProb {
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
