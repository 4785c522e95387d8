package eagle3

import (
	"math"

	"github.com/waggle-llm/waggle/spec"
)

// topK is the candidate count of mainline's draft sampler: the drafted
// token is the best of its top-10, and --spec-draft-p-min compares that
// token's probability within the ten.
const topK = 10

// Draft drafts for every request in one drafter pass per depth: the first
// writes the pending pairs and seeds each sequence with (Last, the
// feature of its last committed position); each later one feeds every
// sequence still drafting its newest token with the state the drafter
// output for it (docs/reference/eagle3.md §3.2).
func (s *Strategy) Draft(reqs []*spec.Request) {
	s.jobs = s.jobs[:0]
	for _, r := range reqs {
		st := s.seq(r.Seq)
		if st == nil {
			continue
		}
		if !st.current(r.History) {
			s.resync(st, r.History)
		}
		// The seed sits at NPast-1, step k at NPast-1+k: all inside the
		// drafter's context.
		n := min(r.NMax, s.p.NMax, s.nCtx-r.NPast)
		if n <= 0 || r.NPast == 0 {
			continue
		}
		pMin := s.p.PMin
		if r.PMin >= 0 {
			pMin = r.PMin // the request's speculative.p_min
		}
		j := job{r: r, st: st, n: n, pMin: pMin}
		s.plan(&j)
		s.jobs = append(s.jobs, j)
	}
	if len(s.jobs) == 0 || !s.flush(s.jobs) {
		return
	}
	for i := range s.jobs {
		if j := &s.jobs[i]; j.live {
			j.st.seedAt, j.st.seedTok = j.r.NPast-1, j.r.Last
		}
	}
	for step := 0; s.extend(step); step++ {
	}

	for i := range s.jobs {
		if r := s.jobs[i].r; len(r.Draft) < s.p.NMin {
			r.Draft = r.Draft[:0]
		}
	}
}

// extend takes each live job's token from its last output and, if it
// drafts on, decodes (token, state) at its next position. It reports
// whether a pass ran.
func (s *Strategy) extend(step int) bool {
	s.resetBatch()
	for i := range s.jobs {
		j := &s.jobs[i]
		if !j.live {
			continue
		}
		if j.tree {
			s.grow(j, step)
			continue
		}
		if s.observe != nil {
			s.observe(j.r.Seq, step, s.dr.Logits(j.out), s.dr.Next(j.out))
		}
		tok, ok := s.pick(s.dr.Logits(j.out), j.pMin)
		if !ok {
			j.live = false
			continue
		}
		j.r.Draft = append(j.r.Draft, tok)
		if len(j.r.Draft) >= j.n {
			j.live = false
			continue
		}
		prev := j.out
		j.out = s.nOut
		s.addRow(j.st, tok, j.r.NPast+step, s.dr.Next(prev), true)
	}
	if s.batch.Len() == 0 {
		return false
	}
	err := s.dr.Decode(&s.batch, s.feats)
	s.resetBatch()
	if err != nil {
		for i := range s.jobs {
			if j := &s.jobs[i]; j.live && j.tree {
				j.st.tree.finish(j.r) // the tree grown so far
			}
			s.jobs[i].live = false
		}
		return false
	}
	return true
}

// plan makes j a tree when branches are asked for (--spec-branch-budget
// or the request's speculative.branch_budget) and the target verifies
// trees: depth j.n, k candidates per expansion (--spec-draft-top-k, at
// least 2) and at most n + branches nodes (within the verify batch's
// room and the k + (n-1)·k² candidates the growth yields).
func (s *Strategy) plan(j *job) {
	b := s.p.BranchBudget
	if j.r.BranchBudget >= 0 {
		b = j.r.BranchBudget
	}
	if b <= 0 || !j.r.AllowTree {
		return
	}
	k := max(s.p.TopK, 2)
	budget := min(j.n+b, max(j.r.Budget, j.n), k+(j.n-1)*k*k)
	j.tree = true
	j.st.tree.start(k, j.n, budget)
}

// pick returns the target id of the best draft logit (the lower id on a
// tie) and whether it clears --spec-draft-p-min: its probability among
// the top-10 candidates, as mainline's top-k sampler computes it.
func (s *Strategy) pick(logits []float32, pMin float32) (int32, bool) {
	best := 0
	for i, v := range logits {
		if v > logits[best] || (v == logits[best] && s.target(i) < s.target(best)) {
			best = i
		}
	}
	if pMin > 0 && topProb(logits, best) < pMin {
		return 0, false
	}
	return s.target(best), true
}

func (s *Strategy) target(i int) int32 {
	if s.d2t == nil {
		return int32(i)
	}
	return s.d2t[i]
}

// topProb is the softmax probability of logits[best] among the topK
// largest logits.
func topProb(logits []float32, best int) float32 {
	var top [topK]float32
	n := 0
	for _, v := range logits {
		if n < topK {
			top[n] = v
			n++
		} else if v <= top[topK-1] {
			continue
		} else {
			top[topK-1] = v
		}
		for k := n - 1; k > 0 && top[k] > top[k-1]; k-- {
			top[k], top[k-1] = top[k-1], top[k]
		}
	}
	m := float64(logits[best])
	sum := 0.0
	for _, v := range top[:n] {
		sum += math.Exp(float64(v) - m)
	}
	return float32(1 / sum)
}

// resync re-aligns st with history, the tokens the sequence holds: it
// keeps the common prefix and takes the rest of history as tokens whose
// features were never seen (they pair with zero features, which costs
// acceptance, never correctness).
func (s *Strategy) resync(st *sequence, history []int32) {
	if st.stagedN > 0 {
		s.flush(nil)
	}
	j := 0
	for j < len(st.toks) && j < len(history) && st.toks[j] == history[j] {
		j++
	}
	if j < len(history) {
		st.cut(j, history[j])
	} else {
		st.cut(j, -1)
	}
	st.toks = append(st.toks, history[j:]...)
}
