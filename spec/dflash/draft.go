package dflash

import (
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// Draft drafts for every request whose sequence has target rows up to its
// anchor, all blocks in one drafter pass (spec.Strategy).
func (s *Strategy) Draft(reqs []*spec.Request) {
	s.jobs, s.pend = s.jobs[:0], s.pend[:0]
	for _, r := range reqs {
		st := s.seq(r.Seq)
		if st == nil || st.ring == nil || st.ring.Len() == 0 || st.ring.End() != r.NPast {
			continue
		}
		p := s.plan(st, r)
		if p.n < 2 {
			continue
		}
		s.jobs = append(s.jobs, engine.BlockJob{Seq: r.Seq, Ring: st.ring, Anchor: r.Last, N: p.n})
		s.pend = append(s.pend, p)
	}
	for i := 0; i < len(s.jobs); i += s.blocks {
		j := min(i+s.blocks, len(s.jobs))
		if s.drafter.Draft(s.jobs[i:j]) != nil {
			continue // no draft: those sequences decode plainly this cycle
		}
		s.passes++
		for k := i; k < j; k++ {
			if s.pend[k].tree {
				s.selectTree(k-i, &s.pend[k])
			} else {
				s.selectFlat(k-i, &s.pend[k])
			}
		}
	}
}

// plan decides a request's draft: a DDTree when branches are asked for
// and the target verifies trees (the drafter then runs the full block),
// otherwise a flat draft of min(adapted length, NMax) tokens
// (dflash-ddtree.md §4.2, §7.1).
func (s *Strategy) plan(st *seqState, r *spec.Request) pending {
	bs := s.info.BlockSize
	b := s.p.BranchBudget
	if r.BranchBudget >= 0 {
		b = r.BranchBudget
	}
	if b > 0 && r.AllowTree {
		k := max(s.topK, 2)
		base := max(r.NMaxBase, r.NMax)
		budget := min(base+b, base*k, r.Budget)
		return pending{r: r, tree: true, n: bs, k: k, budg: budget, shape: shapeTree(budget, r.NMax, base, bs, k)}
	}
	n := bs - 1
	if st.adapt > 0 {
		n = st.adapt
	}
	return pending{r: r, n: min(n, r.NMax) + 1}
}

// selectFlat picks the flat draft from job j's rows 1…: each row's first
// candidate, stopping early below p_min from the second token on.
func (s *Strategy) selectFlat(j int, p *pending) {
	r, st := p.r, s.seq(p.r.Seq)
	sampled := s.p.Temp > 0
	if sampled {
		s.sampledRows(st, p.n-1)
	}
	pMin := s.p.PMin
	if r.PMin >= 0 {
		pMin = r.PMin
	}
	logPMin := float32(math.Log(float64(pMin)))
	for i := 1; i < p.n; i++ {
		var q []float32
		if sampled {
			q = st.q[i-1]
		}
		s.pick.pick(s.drafter.Logits(j, i), q)
		if pMin > 0 && i > 1 && s.pick.vals[0] < logPMin {
			break
		}
		r.Draft = append(r.Draft, s.pick.ids[0])
		if sampled {
			st.cands[i-1] = append(st.cands[i-1][:0], s.pick.ids[0])
		}
	}
	st.last = len(r.Draft)
	if len(r.Draft) > 0 {
		s.stats.flat++
	}
	if sampled {
		r.Q, r.Cand = st.q[:len(r.Draft)], st.cands[:len(r.Draft)]
	}
}

// selectTree builds the DDTree from the top-K candidates of job j's rows
// 1…horizon and lays it out as the request's draft (node k-1 of the
// draft is tree node k; the root is Last).
func (s *Strategy) selectTree(j int, p *pending) {
	r, st := p.r, s.seq(p.r.Seq)
	sampled := s.p.Temp > 0
	depth := p.shape.horizon
	if sampled {
		s.sampledRows(st, depth)
	}
	for d := 1; d <= depth; d++ {
		var q []float32
		if sampled {
			q = st.q[d-1]
		}
		s.pick.pick(s.drafter.Logits(j, d), q)
		copy(s.ids[d], s.pick.ids[:p.k])
		copy(s.vals[d], s.pick.vals[:p.k])
		if sampled {
			st.cands[d-1] = append(st.cands[d-1][:0], s.pick.ids[:p.k]...)
		}
	}
	s.tr.build(p.shape, p.budg, p.k, s.ids, s.vals)
	if s.tr.mainLen < max(r.NMin, 1) {
		return
	}
	for k, tok := range s.tr.tokens {
		r.Draft = append(r.Draft, tok)
		r.Parent = append(r.Parent, int32(s.tr.parents[k+1]-1))
	}
	s.stats.trees++
	s.stats.main += s.tr.mainLen
	s.stats.branch += len(s.tr.tokens) - s.tr.mainLen
	if sampled {
		r.Q, r.Cand = st.q[:depth], st.cands[:depth]
	}
}

// sampledRows makes room for n rows of drafter distributions.
func (s *Strategy) sampledRows(st *seqState, n int) {
	nv := s.p.Target.Info().NVocab
	for len(st.q) < n {
		st.q = append(st.q, make([]float32, nv))
		st.cands = append(st.cands, make([]int32, 0, s.topK))
	}
}
