// Package dflash is the dflash speculative strategy: a DFlash block
// drafter (engine.BlockDrafterModel) proposes a whole block from the
// target's hidden states in one forward pass, verified flat or as a DDTree
// (docs/reference/dflash-ddtree.md; docs/speculative.md).
//
// Per sequence it keeps the target's captured rows of every committed
// token in a 4096-row engine.HiddenRing (spec.HiddenReader.Committed); a
// draft attends to the newest CrossCtx of them. All sequences that want a
// draft in a cycle run through the drafter in one batched pass, each
// block with its own window and the single-slot mask (so a block drafted
// with others is the block drafted alone, unlike BeeLlama's multi-slot
// causal mask).
package dflash

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("dflash", func(c *spec.Config) (spec.Strategy, error) { return New(c.DFlash) })
}

// RingSize is the rows of target hidden states kept per sequence
// (BeeLlama's RING_SIZE), at most the context length.
const RingSize = 4096

// Strategy is the dflash strategy.
type Strategy struct {
	p       spec.DFlashParams
	info    engine.BlockInfo
	drafter engine.BlockDrafter
	topK    int // candidates per depth of a tree
	blocks  int // the most blocks one drafter pass runs
	seqs    []seqState
	pick    *picker
	jobs    []engine.BlockJob
	pend    []pending
	tr      tree
	ids     [][]int32   // per block row: its candidates (tree drafts)
	vals    [][]float32 // and their values
	passes  int         // drafter passes run
	stats   treeStats
}

// treeStats count the drafts made: flat ones, trees and their nodes.
type treeStats struct {
	flat, trees, main, branch int
}

// Summary is the strategy's line for the end of a run (spec.Summarizer):
// drafter passes, flat drafts, and DDTrees with their main-path and branch
// nodes (BeeLlama logs each tree: "ddtree: built tree with N nodes (M main
// + K branch, budget T)").
func (s *Strategy) Summary() string {
	t := s.stats
	return fmt.Sprintf("dflash: %d drafter passes, %d flat drafts, %d trees of %d nodes (%d main + %d branch)",
		s.passes, t.flat, t.trees, t.main+t.branch, t.main, t.branch)
}

// Passes returns how many drafter forward passes the strategy has run
// (one per cycle however many sequences draft, up to the drafter's
// block capacity).
func (s *Strategy) Passes() int { return s.passes }

// seqState is one sequence's ring and BeeLlama's length adapter.
type seqState struct {
	ring    *engine.HiddenRing
	toks    []int32 // the token of each position the ring covers (by position)
	adapt   int     // adaptive_n_draft, 0: none yet
	lowRuns int     // consecutive low-acceptance verifies
	last    int     // length of the last flat draft
	q       [][]float32
	cands   [][]int32
}

// pending is a request the current pass drafts for.
type pending struct {
	r     *spec.Request
	tree  bool
	n     int // block length (anchor included)
	shape treeShape
	k     int
	budg  int
}

// New binds the drafter to its target.
func New(p spec.DFlashParams) (*Strategy, error) {
	dm, ok := p.Model.(engine.BlockDrafterModel)
	if p.Model == nil || !ok {
		return nil, fmt.Errorf("dflash needs a DFlash drafter (--spec-draft-model with a dflash-draft GGUF)")
	}
	if p.Target == nil {
		return nil, fmt.Errorf("dflash needs the target model")
	}
	info := dm.Block()
	nseq := max(p.NSeq, 1)
	blocks := nseq
	if p.MaxSlots > 0 {
		blocks = min(blocks, p.MaxSlots)
	}
	d, err := dm.NewBlockDrafter(p.Target, engine.BlockDrafterOptions{CrossCtx: p.CrossCtx, NSeq: nseq, MaxBlocks: blocks, Threads: p.Threads})
	if err != nil {
		return nil, err
	}
	k := p.TopK
	if p.BranchBudget > 0 {
		k = max(k, 2)
	}
	s := &Strategy{p: p, info: info, drafter: d, topK: max(k, 1), blocks: blocks, seqs: make([]seqState, nseq),
		ids: make([][]int32, info.BlockSize), vals: make([][]float32, info.BlockSize)}
	for r := range s.ids {
		s.ids[r] = make([]int32, max(k, 2))
		s.vals[r] = make([]float32, max(k, 2))
	}
	s.pick = newPicker(max(k, 2), p.Temp, !p.LogitWeights, p.Seed)
	return s, nil
}

func (s *Strategy) Name() string          { return "dflash" }
func (s *Strategy) Observe(*engine.Batch) {}

// Taps are the drafter's target taps (spec.HiddenReader).
func (s *Strategy) Taps() []engine.Tap { return s.info.Taps }

// Begin checks the ring against the prompt: when a position's token
// differs from the prompt's (a sequence restored from elsewhere), the
// rows cannot condition a draft, so the ring is emptied and refills from
// the next committed token.
func (s *Strategy) Begin(seq int, prompt []int32) {
	st := s.seq(seq)
	if st == nil || st.ring == nil {
		return
	}
	r := st.ring
	for p := r.Start(); p < min(r.End(), len(prompt)); p++ {
		if st.toks[p] != prompt[p] {
			r.Reset(r.End())
			return
		}
	}
}

// Committed appends the rows of the tokens seq committed (spec.HiddenReader).
func (s *Strategy) Committed(seq, pos int, toks []int32, row func(k int) []float32) {
	st := s.seq(seq)
	if st == nil {
		return
	}
	if st.ring == nil {
		r, err := engine.NewHiddenRing(RingSize, s.info.NEmbd*len(s.info.Taps))
		if err != nil {
			return
		}
		st.ring = r
	}
	r := st.ring
	r.Truncate(pos)
	if r.End() != pos {
		r.Reset(pos) // a gap: rows of the positions between are unknown
	}
	for k, tok := range toks {
		p := pos + k
		for len(st.toks) <= p {
			st.toks = append(st.toks, -1)
		}
		st.toks[p] = tok
		r.Append(row(k))
	}
}

// seq returns seq's state, nil when seq does not draft
// (--spec-dflash-max-slots) or is out of range.
func (s *Strategy) seq(seq int) *seqState {
	if seq < 0 || seq >= len(s.seqs) || (s.p.MaxSlots > 0 && seq >= s.p.MaxSlots) {
		return nil
	}
	return &s.seqs[seq]
}

// Accept runs BeeLlama's length adapter after a flat draft that had at
// least one token accepted (dflash-ddtree.md §4.2).
func (s *Strategy) Accept(seq, n int) {
	st := s.seq(seq)
	if st == nil || n == 0 || st.last == 0 {
		return
	}
	f := float32(n) / float32(st.last)
	full := s.info.BlockSize - 1
	switch {
	case f < 0.3:
		st.lowRuns++
		if st.lowRuns >= 3 {
			base := full
			if st.adapt > 0 {
				base = st.adapt
			}
			st.adapt, st.lowRuns = max(1, base/2), 0
		}
	default:
		st.lowRuns = 0
		if f > 0.6 && st.adapt > 0 {
			st.adapt = min(full, st.adapt+1)
		}
	}
}
