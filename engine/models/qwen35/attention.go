package qwen35

import (
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// attention runs a gated full-attention layer over the batch (xn holds the
// normalised input) and leaves its output projection in proj:
// q and gate come interleaved per head from attn_q ([q(hd) | gate(hd)] for
// head h at 2h·hd), q and k get per-head RMSNorm and NEOX rotary on the
// first n_rot dims, attention is causal GQA over the KV cache, and its
// output is multiplied by sigmoid(gate) before attn_output.
func (s *session) attention(a *attnWeights, b *engine.Batch) {
	hp := &s.m.hp
	n := b.Len()
	s.project(a.wq, s.buf.qg, s.buf.xn, n, true)
	s.project(a.wk, s.buf.k, s.buf.xn, n, !sameActs(a.wq, a.wk))
	s.project(a.wv, s.buf.v, s.buf.xn, n, !sameActs(a.wk, a.wv))
	hd, qDim, kvDim := hp.headDim, hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	for i := range n {
		qg, q := row(s.buf.qg, i, 2*qDim), row(s.buf.q, i, qDim)
		rope := row(s.buf.rope, i, hp.rope.NRot)
		for h := range hp.nHead {
			head := q[h*hd : (h+1)*hd]
			copy(head, qg[2*h*hd:2*h*hd+hd])
			s.prepareHead(head, a.qNorm, rope)
		}
		k := row(s.buf.k, i, kvDim)
		for h := range hp.nHeadKV {
			s.prepareHead(k[h*hd:(h+1)*hd], a.kNorm, rope)
		}
		s.cache.Store(a.index, int(b.Seq[i]), int(b.Pos[i]), k, row(s.buf.v, i, kvDim))
	}
	engine.AttendTree(s.pool, s.buf.attnOut, s.buf.q, b.Seq, b.Pos, b.Parent, s.cache, a.index, s.shape, s.attn)
	for i := range n {
		qg, out := row(s.buf.qg, i, 2*qDim), row(s.buf.attnOut, i, qDim)
		for h := range hp.nHead {
			gate := qg[2*h*hd+hd : 2*(h+1)*hd]
			o := out[h*hd : (h+1)*hd]
			for j, g := range gate {
				o[j] *= sigmoid(g)
			}
		}
	}
	s.project(a.wo, s.buf.proj, s.buf.attnOut, n, true)
}

// prepareHead applies the per-head RMSNorm and the partial rotation in
// place.
func (s *session) prepareHead(head, norm, rope []float32) {
	hp := &s.m.hp
	kernels.RMSNorm(head, head, hp.eps)
	kernels.Mul(head, head, norm)
	kernels.RopeApply(head, rope, hp.rope.NRot, true)
}

// sigmoid is 1/(1+e^-x) in float32 (ggml_sigmoid's formula).
func sigmoid(x float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x)))) }

// softplus is ggml's logf(1+expf(x)) with the sum rounded to float32 as
// there, and x itself above 20.
func softplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log(float64(1 + float32(math.Exp(float64(x))))))
}
