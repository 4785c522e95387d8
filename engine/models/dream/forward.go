package dream

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/kernels"
)

// forward evaluates the planned rows layer by layer. Each projection is
// one matrix product over all rows. Every row's keys and values of a layer
// are stored before any row of that layer attends, and each row attends
// to every position of its sequence (AttendBatch's last position is the
// sequence's last, not the row's own), which is llama.cpp's non-causal
// mask: same sequence only, everything visible.
func (d *denoiser) forward() {
	hp := &d.m.hp
	r := &d.rows
	n := len(r.tokens)
	for i, tok := range r.tokens {
		d.m.tokEmbd.DequantizeRow(row(d.x, i, hp.nEmbd), int(tok))
		kernels.RopeCache(row(d.rope, i, hp.rope.NRot), int(r.pos[i]), &hp.rope)
	}
	for il := range d.m.layers {
		l := &d.m.layers[il]
		d.attention(l, il, n)
		d.feedForward(l, n)
	}
}

// row returns the i-th row of width w of a buffer.
func row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// normRows writes RMSNorm(x_i)·weight into row i of d.xn for n rows.
func (d *denoiser) normRows(weight []float32, n int) {
	e := d.m.hp.nEmbd
	for i := range n {
		xn := row(d.xn, i, e)
		kernels.RMSNorm(xn, row(d.x, i, e), d.m.hp.eps)
		kernels.Mul(xn, xn, weight)
	}
}

// attention runs layer il's attention block over n rows and adds its
// output to the residual stream.
func (d *denoiser) attention(l *layer, il, n int) {
	hp := &d.m.hp
	r := &d.rows
	d.normRows(l.attnNorm, n)
	moe.Project(d.pool, d.act, l.wq, d.q, d.xn, n, true)
	moe.Project(d.pool, d.act, l.wk, d.k, d.xn, n, !moe.SameActs(l.wq, l.wk))
	moe.Project(d.pool, d.act, l.wv, d.v, d.xn, n, !moe.SameActs(l.wk, l.wv))
	qDim, kvDim := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	for i := range n {
		q, k, v := row(d.q, i, qDim), row(d.k, i, kvDim), row(d.v, i, kvDim)
		addBias(q, l.bq)
		addBias(k, l.bk)
		addBias(v, l.bv)
		rope := row(d.rope, i, hp.rope.NRot)
		d.prepareHeads(q, l.qNorm, rope)
		d.prepareHeads(k, l.kNorm, rope)
		d.cache.Store(il, int(r.seq[i]), int(r.pos[i]), k, v)
	}
	engine.AttendBatch(d.pool, d.attnOut, d.q, r.seq, r.last, d.cache, il, d.shape, d.attn)
	moe.Project(d.pool, d.act, l.wo, d.proj, d.attnOut, n, true)
	d.addResidual(n)
}

// prepareHeads applies the optional per-head RMSNorm and the rotation to
// every head of x in place.
func (d *denoiser) prepareHeads(x, headNorm, rope []float32) {
	hp := &d.m.hp
	for h := 0; h < len(x); h += hp.headDim {
		head := x[h : h+hp.headDim]
		if headNorm != nil {
			kernels.RMSNorm(head, head, hp.eps)
			kernels.Mul(head, head, headNorm)
		}
		kernels.RopeApply(head, rope, hp.rope.NRot, d.m.v.neox)
	}
}

func addBias(x, bias []float32) {
	if bias != nil {
		kernels.Add(x, x, bias)
	}
}

// addResidual adds the first n rows of d.proj to the residual stream.
func (d *denoiser) addResidual(n int) {
	e := d.m.hp.nEmbd
	kernels.Add(d.x[:n*e], d.x[:n*e], d.proj[:n*e])
}

// feedForward adds the dense SwiGLU or the routed experts to the residual
// stream of n rows.
func (d *denoiser) feedForward(l *layer, n int) {
	d.normRows(l.ffnNorm, n)
	if l.experts != nil {
		d.experts.Forward(d.pool, d.act, l.experts, d.proj, d.xn, n)
	} else {
		moe.SwiGLU(d.pool, d.act, l.gate, l.up, l.down, d.xn, d.gate, d.up, d.proj, n)
	}
	d.addResidual(n)
}

// outputHead computes the logits of the wanted canvas positions, chunk by
// chunk, and hands each row to visit: the final norm of the row that
// predicts the position (the one before it with shifted logits), then the
// output matrix over the chunk's rows.
func (d *denoiser) outputHead(cs []engine.Canvas, visit func(k, i int, logits []float32)) {
	hp := &d.m.hp
	r := &d.rows
	d.outRows, d.outCanv, d.outPos = d.outRows[:0], d.outCanv[:0], d.outPos[:0]
	shift := 0
	if d.m.diff.ShiftLogits {
		shift = 1
	}
	for k, c := range cs {
		p := len(d.prefix[c.Seq])
		for i := range c.Tokens {
			if c.Need != nil && !c.Need[i] {
				continue
			}
			d.outRows = append(d.outRows, r.first[k]+p+i-shift-r.start[k])
			d.outCanv, d.outPos = append(d.outCanv, k), append(d.outPos, i)
		}
	}
	e, nv := hp.nEmbd, hp.nVocab
	for c0 := 0; c0 < len(d.outRows); c0 += d.outChunk {
		m := min(d.outChunk, len(d.outRows)-c0)
		for j := range m {
			xn := row(d.xn, j, e)
			kernels.RMSNorm(xn, row(d.x, d.outRows[c0+j], e), hp.eps)
			kernels.Mul(xn, xn, d.m.outputNorm)
		}
		moe.Project(d.pool, d.act, d.m.output, d.logits, d.xn, m, true)
		for j := range m {
			visit(d.outCanv[c0+j], d.outPos[c0+j], d.logits[j*nv:(j+1)*nv])
		}
	}
}
