// Package recycle is the buun fork's token-recycling drafter (after Luo et
// al., 2024): a table from each token to its best K successors, seeded from
// bigram counts and overwritten with the target's own top-K candidates at
// every verified position; drafts walk the table greedily.
package recycle

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("recycle", func(c *spec.Config) (spec.Strategy, error) { return New(DefaultK, c.NMax), nil })
}

// DefaultK is buun's recycle_k.
const DefaultK = 8

type succ struct {
	tok   int32
	score float32
}

// Recycle is the strategy. The table is shared by all sequences (it
// describes the model, not a text); per sequence only the count of
// History tokens already folded in is kept. Bigram observations add 1 to a
// successor's score; a verified target row replaces the token's list with
// the row's top K logits, which outrank counts as in buun. A draft takes
// the top successor from Last on, up to NMax tokens, stopping at a token
// with no entry.
type Recycle struct {
	k, nMax int
	table   map[int32][]succ
	done    []int
}

// New returns a recycle strategy keeping k successors, drafting ≤ nMax.
func New(k, nMax int) *Recycle {
	return &Recycle{k: max(k, 1), nMax: max(nMax, 1), table: map[int32][]succ{}}
}

func (s *Recycle) Name() string          { return "recycle" }
func (s *Recycle) Observe(*engine.Batch) {}
func (s *Recycle) Accept(int, int)       {}

func (s *Recycle) seqDone(i int) *int {
	for i >= len(s.done) {
		s.done = append(s.done, 0)
	}
	return &s.done[i]
}

func (s *Recycle) Begin(seq int, prompt []int32) {
	s.bigrams(prompt, 0)
	*s.seqDone(seq) = len(prompt)
}

// bigrams counts the pairs of h whose second token is at index ≥ from.
func (s *Recycle) bigrams(h []int32, from int) {
	for i := max(from, 1); i < len(h); i++ {
		s.observe(h[i-1], h[i])
	}
}

func (s *Recycle) observe(a, b int32) {
	l := s.table[a]
	for i := range l {
		if l[i].tok == b {
			l[i].score++
			for i > 0 && l[i].score > l[i-1].score {
				l[i], l[i-1] = l[i-1], l[i]
				i--
			}
			return
		}
	}
	if len(l) < s.k {
		s.table[a] = append(l, succ{b, 1})
		l = s.table[a]
		for i := len(l) - 1; i > 0 && l[i].score > l[i-1].score; i-- {
			l[i], l[i-1] = l[i-1], l[i]
		}
	}
}

func (s *Recycle) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		d := s.seqDone(r.Seq)
		if *d > len(r.History) {
			*d = 0
		}
		s.bigrams(r.History, *d)
		*d = len(r.History)
		tok := r.Last
		for len(r.Draft) < min(r.NMax, s.nMax) {
			l := s.table[tok]
			if len(l) == 0 {
				break
			}
			tok = l[0].tok
			r.Draft = append(r.Draft, tok)
		}
	}
}

// Verified replaces, for each kept row, the list of the row's input token
// with the target's top K tokens by logit.
func (s *Recycle) Verified(seq int, tokens []int32, kept int, logits func(i int) []float32) {
	for i := range min(kept, len(tokens)) {
		row := logits(i)
		l := s.table[tokens[i]][:0]
		for id, v := range row {
			if len(l) < s.k {
				l = append(l, succ{int32(id), v})
			} else if v > l[len(l)-1].score {
				l[len(l)-1] = succ{int32(id), v}
			} else {
				continue
			}
			for j := len(l) - 1; j > 0 && l[j].score > l[j-1].score; j-- {
				l[j], l[j-1] = l[j-1], l[j]
			}
		}
		s.table[tokens[i]] = l
	}
}
