package engine

import (
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// AttentionScratch holds the per-session buffers of Attend, sized once for
// the session's context so the decode loop never allocates.
type AttentionScratch struct {
	scores []float32 // one score per cached position
	qconv  []byte    // one query head in the key cache's vec-dot format
	probs  []byte    // probabilities in the value cache's format
	vrow   []float32 // one dequantized value row (non-f32 caches)
}

// NewAttentionScratch sizes scratch for nCtx positions of heads of headDim.
func NewAttentionScratch(nCtx, headDim int, typeK, typeV kvcache.Type) *AttentionScratch {
	return &AttentionScratch{
		scores: make([]float32, nCtx),
		qconv:  make([]byte, typeK.DType().VecDotType().RowBytes(headDim)),
		probs:  make([]byte, typeV.DType().RowBytes(nCtx)),
		vrow:   make([]float32, headDim),
	}
}

// AttentionShape describes the heads of one attention layer.
type AttentionShape struct {
	NHead, NHeadKV, HeadDim int
	Scale                   float32 // usually 1/sqrt(HeadDim)
}

// Attend computes causal softmax attention of one query position over the
// first n cached positions of (layer, seq), the way llama.cpp does without
// flash attention: scores = K·q (q converted to the key type's vec-dot
// format, so an f16 cache rounds q to f16), softmax(scale·scores), then
// out = Σ p_j·V_j with p rounded to the value type (f16 for an f16 cache).
// q and out hold NHead*HeadDim values; query head h reads KV head
// h/(NHead/NHeadKV) (grouped-query attention).
func Attend(out, q []float32, c *kvcache.Cache, layer, seq, n int, sh AttentionShape, s *AttentionScratch) {
	o := c.Options()
	kt, vt := o.TypeK.DType(), o.TypeV.DType()
	hd := sh.HeadDim
	group := sh.NHead / sh.NHeadKV
	keys, values := c.Keys(layer, seq, n), c.Values(layer, seq, n)
	kRow, vRow := kt.RowBytes(o.NKV), vt.RowBytes(o.NKV)
	kHead, vHead := kt.RowBytes(hd), vt.RowBytes(hd)
	scores := s.scores[:n]
	for h := range sh.NHead {
		g := h / group
		kernels.QuantizeRow(kt.VecDotType(), s.qconv, q[h*hd:(h+1)*hd])
		for j := range n {
			off := j*kRow + g*kHead
			scores[j] = kernels.VecDot(kt, hd, keys[off:off+kHead], s.qconv)
		}
		kernels.Scale(scores, sh.Scale)
		kernels.SoftMax(scores)
		weightedValues(out[h*hd:(h+1)*hd], scores, values, vt, vRow, g*vHead, vHead, s)
	}
}

// weightedValues accumulates dst = Σ_j p_j·V_j[head] over the value rows.
func weightedValues(dst, p []float32, values []byte, vt kernels.DType, vRow, headOff, vHead int, s *AttentionScratch) {
	clear(dst)
	if vt == kernels.F32 {
		for j, pj := range p {
			off := j*vRow + headOff
			row := f32View(values[off : off+vHead])
			for d, v := range row {
				dst[d] += pj * v
			}
		}
		return
	}
	// Round the probabilities to the value format first, as ggml's mul_mat
	// converts its f32 operand to the f16 vec-dot type.
	pq := s.probs[:vt.RowBytes(len(p))]
	kernels.QuantizeRow(vt, pq, p)
	pr := s.scores[:len(p)]
	kernels.DequantizeRow(vt, pr, pq)
	for j, pj := range pr {
		off := j*vRow + headOff
		kernels.DequantizeRow(vt, s.vrow, values[off:off+vHead])
		for d, v := range s.vrow {
			dst[d] += pj * v
		}
	}
}
