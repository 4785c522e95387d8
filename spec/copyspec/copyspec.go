// Package copyspec is the buun fork's copyspec drafter: find the last Gamma
// tokens earlier in the context through a rolling hash of every Gamma-token
// window, and copy what followed the match with the longest continuation.
package copyspec

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("copyspec", func(c *spec.Config) (spec.Strategy, error) { return New(DefaultGamma, c.NMax), nil })
}

// DefaultGamma is buun's copyspec_gamma: the window length matched.
const DefaultGamma = 6

const base = 1099511628211 // the FNV prime, as the rolling-hash base

// Copy is the copyspec strategy. Per sequence it indexes every window of
// the tokens seen so far (prompt and accepted output) by a polynomial
// rolling hash, one multiply-add per new token, mapping it to the
// positions just after the window. A draft hashes the context's last
// Gamma tokens, checks each hit token by token (hash collisions), and
// copies up to NMax tokens after the hit with the most tokens available
// (the earliest occurrence).
type Copy struct {
	gamma, nMax int
	pow         uint64 // base^(gamma-1)
	seqs        []*seqIndex
}

type seqIndex struct {
	toks  []int32
	hash  uint64
	index map[uint64][]int32
}

// New returns a copyspec strategy matching gamma tokens, drafting ≤ nMax.
func New(gamma, nMax int) *Copy {
	c := &Copy{gamma: max(gamma, 1), nMax: max(nMax, 1), pow: 1}
	for range c.gamma - 1 {
		c.pow *= base
	}
	return c
}

func (c *Copy) Name() string          { return "copyspec" }
func (c *Copy) Observe(*engine.Batch) {}
func (c *Copy) Accept(int, int)       {}

func (c *Copy) seq(i int) *seqIndex {
	for i >= len(c.seqs) {
		c.seqs = append(c.seqs, nil)
	}
	if c.seqs[i] == nil {
		c.seqs[i] = &seqIndex{index: map[uint64][]int32{}}
	}
	return c.seqs[i]
}

// Begin rebuilds the index from the prompt.
func (c *Copy) Begin(seq int, prompt []int32) {
	c.seq(seq)
	c.seqs[seq] = nil
	c.sync(c.seq(seq), prompt)
}

// sync indexes the tokens of h beyond those already indexed; a history
// that does not extend them starts over.
func (c *Copy) sync(st *seqIndex, h []int32) {
	if len(h) < len(st.toks) || (len(st.toks) > 0 && h[len(st.toks)-1] != st.toks[len(st.toks)-1]) {
		*st = seqIndex{index: map[uint64][]int32{}}
	}
	for _, t := range h[len(st.toks):] {
		n := len(st.toks)
		if n >= c.gamma {
			st.hash -= uint64(uint32(st.toks[n-c.gamma])) * c.pow
		}
		st.hash = st.hash*base + uint64(uint32(t))
		st.toks = append(st.toks, t)
		if n+1 >= c.gamma {
			st.index[st.hash] = append(st.index[st.hash], int32(n+1))
		}
	}
}

func (c *Copy) windowHash(r *spec.Request) uint64 {
	var h uint64
	for i := r.Len() - c.gamma; i < r.Len(); i++ {
		h = h*base + uint64(uint32(r.Context(i)))
	}
	return h
}

func (c *Copy) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		st := c.seq(r.Seq)
		c.sync(st, r.History)
		if r.Len() <= c.gamma {
			continue
		}
		best := -1
		for _, after := range st.index[c.windowHash(r)] {
			p := int(after)
			if p >= r.Len() || !c.matches(r, p) {
				continue
			}
			if best < 0 || p < best {
				best = p
			}
		}
		if best < 0 {
			continue
		}
		n := min(r.NMax, c.nMax, r.Len()-best)
		for i := range n {
			r.Draft = append(r.Draft, r.Context(best+i))
		}
	}
}

// matches checks the window ending before after against the context's tail.
func (c *Copy) matches(r *spec.Request, after int) bool {
	for i := 1; i <= c.gamma; i++ {
		if r.Context(after-i) != r.Context(r.Len()-i) {
			return false
		}
	}
	return true
}
