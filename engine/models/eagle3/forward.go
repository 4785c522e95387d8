package eagle3

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

func invSqrt(n int) float32 { return float32(1 / math.Sqrt(float64(n))) }

// row returns the i-th row of width w of a buffer.
func row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// Fuse computes g = fc·x' for n rows of fused target input x (3·D values
// each), x' being x itself or, with norm_before_fc, RMSNorm(x)·enc_norm
// over the whole row, or, with EAGLE 3.1's fc_norm, each D-wide slice
// normed with its own weight. g gets d values per row. Rows beyond NBatch
// are processed in further passes.
func (dr *Drafter) Fuse(g, x []float32, n int) {
	hp := &dr.m.hp
	in, d := nTaps*hp.targetEmbd, hp.nEmbd
	for start := 0; start < n; start += dr.opts.NBatch {
		c := min(dr.opts.NBatch, n-start)
		src := x[start*in : (start+c)*in]
		if dr.xin != nil {
			dr.normInput(src, c)
			src = dr.xin[:c*in]
		}
		dr.project(dr.m.fc, g[start*d:(start+c)*d], src, c, true)
	}
}

// normInput writes the normed fused input of n rows of x into dr.xin.
func (dr *Drafter) normInput(x []float32, n int) {
	hp := &dr.m.hp
	in, D := nTaps*hp.targetEmbd, hp.targetEmbd
	for i := range n {
		src, dst := row(x, i, in), row(dr.xin, i, in)
		if hp.normBeforeFC {
			kernels.RMSNorm(dst, src, hp.eps)
			kernels.Mul(dst, dst, dr.m.encNorm)
			continue
		}
		for k := range nTaps {
			s, t := src[k*D:(k+1)*D], dst[k*D:(k+1)*D]
			kernels.RMSNorm(t, s, hp.eps)
			kernels.Mul(t, t, dr.m.fcNorm[k])
		}
	}
}

// project computes dst row i = w·(src row i) for n rows (w.Cols wide);
// quantize says whether dr.act must be refilled from src.
func (dr *Drafter) project(w *engine.Matrix, dst, src []float32, n int, quantize bool) {
	if quantize {
		w.QuantizeActs(dr.pool, dr.act, src, w.Cols, n)
	}
	w.MulMat(dr.pool, dst, w.Rows, dr.act, n)
}

// sameActs reports whether b can reuse the activations quantized for a.
func sameActs(a, b *engine.Matrix) bool {
	return a.Type.VecDotType() == b.Type.VecDotType() && a.Cols == b.Cols
}

// Decode evaluates the batch: token i paired with feature row i of g (d
// values per row) at b.Pos[i] of sequence b.Seq[i] (see
// engine.FeatureDrafter). A tree batch (Batch.Parent) is evaluated as the
// engine's sessions evaluate one: a node attends to its root's prefix and
// its ancestors and rotates at its depth, which is how a tree of drafts
// is grown. A rejected batch leaves the drafter unchanged.
func (dr *Drafter) Decode(b *engine.Batch, g []float32) error {
	if len(g) < b.Len()*dr.m.hp.nEmbd {
		return fmt.Errorf("%s: %d feature values for a batch of %d tokens of width %d", arch, len(g), b.Len(), dr.m.hp.nEmbd)
	}
	if err := engine.PlanBatch(arch, b, dr.cache, dr.opts, dr.embd.Rows, dr.nextPos, nil); err != nil {
		return err
	}
	dr.outIdx = dr.outIdx[:0]
	for i, o := range b.Output {
		if o {
			dr.outIdx = append(dr.outIdx, i)
		}
	}
	dr.forward(b, g)
	for seq, n := range dr.nextPos {
		dr.cache.SetLen(seq, n)
	}
	return nil
}

// forward runs the block over a validated batch (docs/reference/eagle3.md
// §2.3): u = [RMSNorm(E[t])·attn_norm, RMSNorm(g)·hidden_norm]; q, k, v
// from u; the residual stream starts from g (or its normed form with
// norm_before_residual), takes the attention output, then a SwiGLU
// feed-forward; the outputs' pre-norm state h is kept and normed into the
// head.
func (dr *Drafter) forward(b *engine.Batch, g []float32) {
	hp := &dr.m.hp
	blk := &dr.m.blk
	d, n := hp.nEmbd, b.Len()
	for i, tok := range b.Tokens {
		e, u := row(dr.proj, i, d), row(dr.u, i, 2*d)
		dr.embd.DequantizeRow(e, int(tok))
		kernels.RMSNorm(u[:d], e, hp.eps)
		kernels.Mul(u[:d], u[:d], blk.attnNorm)
		kernels.RMSNorm(u[d:], row(g, i, d), hp.eps)
		kernels.Mul(u[d:], u[d:], blk.hiddenNorm)
		if hp.normBeforeResidual {
			copy(row(dr.s, i, d), u[d:])
		} else {
			copy(row(dr.s, i, d), row(g, i, d))
		}
	}
	dr.ropePos = b.RopePositions(dr.ropePos)
	for i := range n {
		kernels.RopeCache(row(dr.rope, i, hp.rope.NRot), int(dr.ropePos[i]), &hp.rope)
	}
	dr.attention(b)
	dr.feedForward(n)
	dr.outputs()
}

// attention adds the block's attention output to the residual stream.
func (dr *Drafter) attention(b *engine.Batch) {
	hp := &dr.m.hp
	blk := &dr.m.blk
	n := b.Len()
	dr.project(blk.wq, dr.q, dr.u, n, true)
	dr.project(blk.wk, dr.k, dr.u, n, !sameActs(blk.wq, blk.wk))
	dr.project(blk.wv, dr.v, dr.u, n, !sameActs(blk.wk, blk.wv))
	qd, kvd := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	for i := range n {
		q, k := row(dr.q, i, qd), row(dr.k, i, kvd)
		rope := row(dr.rope, i, hp.rope.NRot)
		for h := 0; h < qd; h += hp.headDim {
			kernels.RopeApply(q[h:h+hp.headDim], rope, hp.rope.NRot, false)
		}
		for h := 0; h < kvd; h += hp.headDim {
			kernels.RopeApply(k[h:h+hp.headDim], rope, hp.rope.NRot, false)
		}
		dr.cache.Store(0, int(b.Seq[i]), int(b.Pos[i]), k, row(dr.v, i, kvd))
	}
	engine.AttendTree(dr.pool, dr.attnOut, dr.q, b.Seq, b.Pos, b.Parent, dr.cache, 0, dr.shape, dr.attn)
	dr.project(blk.wo, dr.proj, dr.attnOut, n, true)
	dr.addResidual(n)
}

// feedForward adds down(silu(gate·xn)·up·xn), xn = RMSNorm(s)·ffn_norm, to
// the residual stream.
func (dr *Drafter) feedForward(n int) {
	hp := &dr.m.hp
	blk := &dr.m.blk
	d := hp.nEmbd
	for i := range n {
		xn := row(dr.xn, i, d)
		kernels.RMSNorm(xn, row(dr.s, i, d), hp.eps)
		kernels.Mul(xn, xn, blk.ffnNorm)
	}
	dr.project(blk.gate, dr.gate, dr.xn, n, true)
	dr.project(blk.up, dr.up, dr.xn, n, !sameActs(blk.gate, blk.up))
	gt, up := dr.gate[:n*hp.nFF], dr.up[:n*hp.nFF]
	kernels.SwiGLU(gt, gt, up)
	dr.project(blk.down, dr.proj, dr.gate, n, true)
	dr.addResidual(n)
}

func (dr *Drafter) addResidual(n int) {
	d := dr.m.hp.nEmbd
	s, p := dr.s[:n*d], dr.proj[:n*d]
	kernels.Add(s, s, p)
}

// outputs normalises the output rows, keeps the state each feeds back and
// computes their logits over the head's vocabulary in one product.
func (dr *Drafter) outputs() {
	hp := &dr.m.hp
	d, nOut := hp.nEmbd, len(dr.outIdx)
	dr.next = grow(dr.next, nOut*d)
	dr.logits = grow(dr.logits, nOut*dr.head.Rows)
	for k, i := range dr.outIdx {
		h, xn := row(dr.s, i, d), row(dr.xn, k, d)
		kernels.RMSNorm(xn, h, hp.eps)
		kernels.Mul(xn, xn, dr.m.outNorm)
		if hp.normOutput {
			copy(row(dr.next, k, d), xn)
		} else {
			copy(row(dr.next, k, d), h)
		}
	}
	if nOut > 0 {
		dr.project(dr.head, dr.logits, dr.xn, nOut, true)
	}
}

// grow returns buf resliced to n, reallocating only when it is too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}
