package spec

import "github.com/waggle-llm/waggle/engine/sample"

// walk verifies a tree draft, or a flat draft of a stochastic drafter
// (Request.Parent, Request.Q), and returns the emitted tokens and the
// accepted nodes (indices into the draft, root to leaf). Row row of the
// last Decode is Last's, row row+1+j draft token j's. From Last, the target
// chooses a token at the current node; when it is a child of the node the
// walk moves there and goes on, otherwise the token is the cycle's last
// (after a fully accepted path it is the bonus token). Every emitted token
// is Accepted by the sampler in order.
//
// A greedy sampler chooses its own pick, so the output is plain greedy
// decoding's; so does a sampler whose chain draws inside (no
// Distribution: Mirostat, XTC, adaptive-p), each row sampled as plain
// decoding samples it. Otherwise the choice at a node is sp.choose over
// the node's candidates (chooseExact), which emits a token distributed
// exactly as the target's sampler chain at that row.
func (sp *Speculator) walk(sl *Slot, r *Request, row int, out, path []int32) ([]int32, []int32) {
	smp := sl.Sampler
	cur, depth := int32(-1), 0
	for {
		logits := sp.Sess.Logits(row + 1 + int(cur))
		var tok int32
		if smp.Greedy() || !smp.HasDistribution() {
			tok = smp.Sample(logits)
		} else {
			cands, q := sp.candidates(r, cur, depth)
			var ok bool
			tok, ok = sp.choose(sp, smp, logits, cands, q)
			if len(cands) > 0 {
				if ok {
					sl.SampledAccepted++
				} else {
					sl.SampledResidual++
				}
			}
		}
		smp.Accept(tok)
		out = append(out, tok)
		next := r.child(cur, tok)
		if next < 0 {
			return out, path
		}
		path = append(path, next)
		cur, depth = next, depth+1
	}
}

// child returns the index of node cur's child holding tok (cur -1: Last),
// or -1.
func (r *Request) child(cur, tok int32) int32 {
	if !r.IsTree() {
		if int(cur+1) < len(r.Draft) && r.Draft[cur+1] == tok {
			return cur + 1
		}
		return -1
	}
	for j := cur + 1; int(j) < len(r.Draft); j++ {
		if r.Parent[j] == cur && r.Draft[j] == tok {
			return j
		}
	}
	return -1
}

// candidates returns what the drafter proposed after node cur at depth
// depth+1: the tokens it drew there and the distribution it drew them
// from, or, for a deterministic drafter, cur's children in draft order
// with no distribution (point masses).
func (sp *Speculator) candidates(r *Request, cur int32, depth int) ([]int32, []float32) {
	if r.Q != nil {
		if depth < len(r.Q) {
			return r.Cand[depth], r.Q[depth]
		}
		return nil, nil
	}
	sp.kids = sp.kids[:0]
	for j := cur + 1; int(j) < len(r.Draft); j++ {
		if (r.IsTree() && r.Parent[j] == cur) || (!r.IsTree() && j == cur+1) {
			sp.kids = append(sp.kids, r.Draft[j])
		}
	}
	return sp.kids, nil
}

// chooseExact is speculative sampling with several candidates drawn
// without replacement (recursive rejection sampling): with p the target's
// distribution after its sampler chain and q the drafter's (a point mass
// on each candidate when q is nil), candidate x_i is accepted with
// probability min(1, p(x_i)/q(x_i)); on rejection p becomes the
// normalised residual max(0, p − q) and q loses x_i (renormalised: the
// next candidate was drawn without it). If every candidate is rejected, a
// token is drawn from the residual. The result is distributed exactly as
// p, whatever q and however many candidates; it reports whether a
// candidate was accepted. Draws use the sampler's RNG. O(vocabulary) per
// rejected candidate.
func chooseExact(sp *Speculator, smp *sample.Sampler, logits []float32, cands []int32, q []float32) (int32, bool) {
	dist := smp.Distribution(logits)
	if len(cands) == 0 {
		return smp.SampleFrom(dist), false
	}
	pd := sp.dense(&sp.pd, len(logits))
	for _, c := range dist {
		pd[c.ID] += c.P
	}
	var qd []float32
	if q != nil {
		qd = sp.dense(&sp.qd, len(logits))
		copy(qd, q)
	}
	for _, x := range cands {
		if x < 0 || int(x) >= len(pd) {
			continue
		}
		px, qx := pd[x], float32(1)
		if qd != nil {
			qx = qd[x]
		}
		if px > 0 && qx > 0 && (px >= qx || coin(smp, px/qx)) {
			return x, true
		}
		if qd == nil {
			pd[x] = 0
		} else {
			for v := range pd {
				pd[v] = max(0, pd[v]-qd[v])
			}
			qd[x] = 0
			normalize(qd)
		}
		if !normalize(pd) {
			return x, true // p ≤ q everywhere: only rounding can get here
		}
	}
	sp.pc = sp.pc[:0]
	for v, p := range pd {
		if p > 0 {
			sp.pc = append(sp.pc, sample.Candidate{ID: int32(v), P: p})
		}
	}
	return smp.SampleFrom(sp.pc), false
}

// coin returns true with probability a, drawn with the sampler's RNG.
func coin(smp *sample.Sampler, a float32) bool {
	c := [2]sample.Candidate{{ID: 1, P: a}, {ID: 0, P: 1 - a}}
	return smp.SampleFrom(c[:]) == 1
}

// normalize scales p to sum 1; false when it sums to zero.
func normalize(p []float32) bool {
	var s float64
	for _, v := range p {
		s += float64(v)
	}
	if s <= 0 {
		return false
	}
	inv := float32(1 / s)
	for i := range p {
		p[i] *= inv
	}
	return true
}

// dense returns *buf resized to n and zeroed.
func (sp *Speculator) dense(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}
