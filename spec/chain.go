package spec

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/waggle-llm/waggle/engine"
)

// Chain holds strategies in priority order. For each sequence wanting a
// draft the strategies are asked in turn; the first non-empty draft (at
// least NMin long) wins, and only the winner is later told how much of it
// was accepted, as in llama.cpp.
type Chain struct {
	strats  []Strategy
	stats   []*Stats
	winner  []int // per sequence: index of the strategy whose draft is out, or -1
	pending []*Request
}

// NewChain builds the strategies named in cfg.Types from the registry, in
// priority order. A name whose package is not linked in is an error.
func NewChain(cfg *Config) (*Chain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var strats []Strategy
	for _, name := range Order {
		if !contains(cfg.Types, name) {
			continue
		}
		f := factory(name)
		if f == nil {
			return nil, fmt.Errorf("spec: strategy %q is not linked into this program", name)
		}
		s, err := f(cfg)
		if err != nil {
			closeAll(strats)
			return nil, fmt.Errorf("spec: %s: %w", name, err)
		}
		strats = append(strats, s)
	}
	for _, t := range cfg.Types {
		if !contains(Order, t) {
			closeAll(strats)
			return nil, fmt.Errorf("spec: unknown speculative type %q", t)
		}
	}
	return NewChainOf(strats...), nil
}

// NewChainOf chains the given strategies in the order given (tests, custom
// wiring).
func NewChainOf(strats ...Strategy) *Chain {
	c := &Chain{strats: strats}
	for _, s := range strats {
		c.stats = append(c.stats, &Stats{Name: s.Name()})
	}
	return c
}

// Len is the number of strategies.
func (c *Chain) Len() int {
	if c == nil {
		return 0
	}
	return len(c.strats)
}

// Stats returns the live counters, one per strategy, in chain order.
func (c *Chain) Stats() []*Stats { return c.stats }

// Begin tells every strategy that seq starts generating after prompt.
func (c *Chain) Begin(seq int, prompt []int32) {
	c.setWinner(seq, -1)
	for i, s := range c.strats {
		t := time.Now()
		s.Begin(seq, prompt)
		c.stats[i].Begins.Add(1)
		c.stats[i].BeginNS.Add(int64(time.Since(t)))
	}
}

// Draft fills the requests' drafts (see Strategy.Draft), trimming each to
// its NMax and discarding drafts shorter than NMin. Shadow drafts (made to
// be compared with the emitted tokens, never verified) are neither counted
// in the statistics nor routed to Accept.
func (c *Chain) Draft(reqs []*Request) {
	for _, r := range reqs {
		r.Draft = r.Draft[:0]
		c.setWinner(r.Seq, -1)
	}
	for i, s := range c.strats {
		c.pending = c.pending[:0]
		for _, r := range reqs {
			if len(r.Draft) == 0 && r.NMax > 0 && (r.mask == 0 || r.mask&(1<<i) != 0) {
				c.pending = append(c.pending, r)
			}
		}
		if len(c.pending) == 0 {
			break
		}
		t := time.Now()
		s.Draft(c.pending)
		st := c.stats[i]
		st.Drafts.Add(1)
		st.DraftNS.Add(int64(time.Since(t)))
		for _, r := range c.pending {
			if r.IsTree() {
				r.Parent = r.Parent[:len(r.Draft)]
				if n := max(r.Budget, r.NMax); len(r.Draft) > n {
					r.Draft, r.Parent = r.Draft[:n], r.Parent[:n]
				}
			} else if len(r.Draft) > r.NMax {
				r.Draft = r.Draft[:r.NMax]
			}
			if len(r.Draft) < max(r.NMin, 1) {
				r.Draft, r.Parent = r.Draft[:0], r.Parent[:0]
				continue
			}
			if r.shadow {
				continue
			}
			c.setWinner(r.Seq, i)
			st.GenDrafts.Add(1)
			st.GenTokens.Add(int64(len(r.Draft)))
		}
	}
}

// Accept routes the number of accepted draft tokens of seq to the strategy
// whose draft was verified (nothing when seq had no draft).
func (c *Chain) Accept(seq, nAccepted int) {
	if seq >= len(c.winner) || c.winner[seq] < 0 {
		return
	}
	i := c.winner[seq]
	c.winner[seq] = -1
	st := c.stats[i]
	t := time.Now()
	c.strats[i].Accept(seq, nAccepted)
	st.Accepts.Add(1)
	st.AcceptNS.Add(int64(time.Since(t)))
	st.AccTokens.Add(int64(nAccepted))
	if nAccepted > 0 {
		st.AccDrafts.Add(1)
	}
}

// Winner returns the name of the strategy whose draft for seq is being
// verified, or "".
func (c *Chain) Winner(seq int) string {
	if seq >= len(c.winner) || c.winner[seq] < 0 {
		return ""
	}
	return c.strats[c.winner[seq]].Name()
}

// Summaries returns the Summary lines of the strategies that have one.
func (c *Chain) Summaries() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, s := range c.strats {
		if sm, ok := s.(Summarizer); ok {
			out = append(out, sm.Summary())
		}
	}
	return out
}

// Taps returns the taps the chain's hidden-state readers need (they must
// agree), or nil.
func (c *Chain) Taps() ([]engine.Tap, error) {
	if c == nil {
		return nil, nil
	}
	var taps []engine.Tap
	for _, s := range c.strats {
		if h, ok := s.(HiddenReader); ok {
			if taps != nil && !slicesEqual(taps, h.Taps()) {
				return nil, fmt.Errorf("spec: strategies read different target taps (%v, %v)", taps, h.Taps())
			}
			taps = h.Taps()
		}
	}
	return taps, nil
}

// Committed passes committed rows to the hidden-state readers
// (HiddenReader.Committed).
func (c *Chain) Committed(seq, pos int, toks []int32, row func(k int) []float32) {
	for _, s := range c.strats {
		if h, ok := s.(HiddenReader); ok {
			h.Committed(seq, pos, toks, row)
		}
	}
}

func slicesEqual(a, b []engine.Tap) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Observe shows a decoded target batch to every strategy.
func (c *Chain) Observe(b *engine.Batch) {
	for _, s := range c.strats {
		s.Observe(b)
	}
}

// Verified passes a sequence's verdict to the strategies that implement
// Verifier.
func (c *Chain) Verified(seq int, tokens []int32, kept int, logits func(i int) []float32) {
	for _, s := range c.strats {
		if v, ok := s.(Verifier); ok {
			v.Verified(seq, tokens, kept, logits)
		}
	}
}

// Close releases strategies that hold resources (a draft session) or save
// state (a dynamic lookup cache).
func (c *Chain) Close() error {
	if c == nil {
		return nil
	}
	return closeAll(c.strats)
}

func (c *Chain) setWinner(seq, i int) {
	for seq >= len(c.winner) {
		c.winner = append(c.winner, -1)
	}
	c.winner[seq] = i
}

func closeAll(strats []Strategy) error {
	var errs []error
	for _, s := range strats {
		if cl, ok := s.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
