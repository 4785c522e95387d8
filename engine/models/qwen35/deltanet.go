package qwen35

import (
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// deltaNet runs a Gated DeltaNet layer over the batch (xn holds the
// normalised input) and leaves its output projection in proj
// (architectures.md §1.4): projections, gates, the causal conv with SiLU,
// L2-normalised q and k, the gated delta rule per value head, the gated
// RMSNorm with ssm_norm and SiLU(z), then ssm_out.
func (s *session) deltaNet(d *deltaWeights, n int) {
	hp := &s.m.hp
	s.project(d.wqkv, s.buf.qkv, s.buf.xn, n, true)
	s.project(d.wz, s.buf.z, s.buf.xn, n, !sameActs(d.wqkv, d.wz))
	s.gates(d, n)
	for ri := range s.plan.runs {
		s.convRun(d, ri)
	}
	qScale := float32(1 / math.Sqrt(float64(hp.dk)))
	qkDim := hp.hk * hp.dk
	for i := range n {
		c := row(s.buf.conv, i, hp.convDim)
		for h := range 2 * hp.hk {
			head := c[h*hp.dk : (h+1)*hp.dk]
			kernels.L2Norm(head, head, hp.eps)
		}
		kernels.Scale(c[:qkDim], qScale)
	}
	s.recordTape(d.index)
	s.delta.run(d.index)
	for i := range n {
		o, z := row(s.buf.o, i, hp.innerDim), row(s.buf.z, i, hp.innerDim)
		for h := range hp.hv {
			oh := o[h*hp.dv : (h+1)*hp.dv]
			kernels.GatedRMSNorm(oh, oh, d.norm, z[h*hp.dv:(h+1)*hp.dv], hp.eps)
		}
	}
	s.project(d.wOut, s.buf.proj, s.buf.o, n, true)
}

// gates computes, per token and value head, β = sigmoid(b) and the
// log-decay g = ssm_a·softplus(a + dt_bias) (ssm_a = -exp(A_log) < 0).
// qwen3next's fused ssm_ba holds, per K-head group, [b for the group's r
// value heads | a for the same heads].
func (s *session) gates(d *deltaWeights, n int) {
	hp := &s.m.hp
	hv := hp.hv
	if d.wBA != nil {
		s.project(d.wBA, s.buf.ba, s.buf.xn, n, !sameActs(d.wz, d.wBA))
		r := hv / hp.hk
		for i := range n {
			ba, beta, g := row(s.buf.ba, i, 2*hv), row(s.buf.beta, i, hv), row(s.buf.g, i, hv)
			for grp := range hp.hk {
				copy(beta[grp*r:(grp+1)*r], ba[2*grp*r:2*grp*r+r])
				copy(g[grp*r:(grp+1)*r], ba[2*grp*r+r:2*(grp+1)*r])
			}
		}
	} else {
		s.project(d.wBeta, s.buf.beta, s.buf.xn, n, !sameActs(d.wz, d.wBeta))
		s.project(d.wA, s.buf.g, s.buf.xn, n, !sameActs(d.wBeta, d.wA))
	}
	for i := range n {
		beta, g := row(s.buf.beta, i, hv), row(s.buf.g, i, hv)
		for h := range hv {
			beta[h] = sigmoid(beta[h])
			g[h] = d.ssmA[h] * softplus(g[h]+d.dtB[h])
		}
	}
}

// convRun runs run ri's tokens, in order, through the causal conv of layer
// d, updating the sequence's window and saving it at planned snapshot
// lengths; a taping run copies the window at its first taped length into
// the tape's base and records each later conv input.
func (s *session) convRun(d *deltaWeights, ri int) {
	hp := &s.m.hp
	r := &s.plan.runs[ri]
	state := s.rs.conv(r.seq, -1, d.index)
	s.snapConv(d, ri, r.start, state)
	for t, i := range s.plan.tokens(ri) {
		x := row(s.buf.qkv, i, hp.convDim)
		if l := r.start + t; r.tape && l >= r.first {
			if l == r.first {
				copy(s.rs.conv(r.seq, baseSlot, d.index), state)
			}
			copy(s.rs.row(r.seq, d.index, l-r.first), x)
		}
		if r.tree && s.parent[i] >= 0 {
			s.treeWindow(d, ri, i, state)
		}
		kernels.ConvSiLUStep(row(s.buf.conv, i, hp.convDim), state, x, d.convW, hp.convK)
		s.snapConv(d, ri, r.start+t+1, state)
	}
}

// recordTape copies, for every taped token of layer li, the recurrence
// inputs the replay needs onto the tape: the L2-normalised k and v (the
// conv output row past q, before q is scaled), the log-decay g and β.
func (s *session) recordTape(li int) {
	hp := &s.m.hp
	rs := s.rs
	qDim := hp.hk * hp.dk
	for ri := range s.plan.runs {
		r := &s.plan.runs[ri]
		if !r.tape {
			continue
		}
		toks := s.plan.tokens(ri)
		for t := r.first - r.start; t < r.n; t++ {
			i := toks[t]
			tr := rs.row(r.seq, li, r.start+t-r.first)
			copy(tr[rs.convD:rs.convD+rs.kvSz], row(s.buf.conv, i, hp.convDim)[qDim:])
			copy(tr[rs.convD+rs.kvSz:rs.convD+rs.kvSz+hp.hv], row(s.buf.g, i, hp.hv))
			copy(tr[rs.convD+rs.kvSz+hp.hv:], row(s.buf.beta, i, hp.hv))
		}
	}
}

func (s *session) snapConv(d *deltaWeights, ri, length int, state []float32) {
	r := &s.plan.runs[ri]
	if slot := s.plan.snapshot(ri, length); slot >= 0 {
		copy(s.rs.conv(r.seq, slot, d.index), state)
	}
	if length == r.ckptAt {
		copy(s.rs.conv(r.seq, ckptSlot(r.ckptC), d.index), state)
	}
}
