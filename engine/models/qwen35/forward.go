package qwen35

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// buffers are the batch-wide activations, row i belonging to batch token i.
type buffers struct {
	x, xn, proj []float32 // nb × n_embd: residual, normalised input, block output
	act         []byte    // nb rows of activations in a weight's vec-dot format

	// Full attention.
	qg      []float32 // nb × 2·nh·hd: projected [q | gate] per head
	q       []float32 // nb × nh·hd normalised, rotated queries
	k, v    []float32 // nb × nkv·hd
	attnOut []float32 // nb × nh·hd
	rope    []float32 // nb × n_rot cos/sin pairs

	// Gated DeltaNet.
	qkv   []float32 // nb × conv_dim projected, before the conv
	conv  []float32 // nb × conv_dim after conv+SiLU, q/k then normalised
	z     []float32 // nb × hv·dv output gate
	o     []float32 // nb × hv·dv recurrence output, then gated-normed
	ba    []float32 // nb × 2·hv raw beta and alpha projections
	g     []float32 // nb × hv log-decays
	beta  []float32 // nb × hv
	gateF []float32 // nb × n_ff (dense FFN gate)
	upF   []float32 // nb × n_ff
}

func newBuffers(m *Model, nb int) buffers {
	hp := &m.hp
	qDim, kvDim := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	f := func(w int) []float32 { return make([]float32, nb*w) }
	denseFF := hp.nFF // pinned by the dense FFN's tensors
	if m.v.moe {
		denseFF = 0 // feed_forward_length is informative only: nothing checked it
	}
	return buffers{
		x: f(hp.nEmbd), xn: f(hp.nEmbd), proj: f(hp.nEmbd), act: make([]byte, nb*m.maxActivationBytes()),
		qg: f(2 * qDim), q: f(qDim), k: f(kvDim), v: f(kvDim), attnOut: f(qDim), rope: f(hp.rope.NRot),
		qkv: f(hp.convDim), conv: f(hp.convDim), z: f(hp.innerDim), o: f(hp.innerDim),
		ba: f(2 * hp.hv), g: f(hp.hv), beta: f(hp.hv),
		gateF: f(denseFF), upF: f(denseFF),
	}
}

// maxActivationBytes is the largest vec-dot activation any matrix needs.
func (m *Model) maxActivationBytes() int {
	n := max(m.output.ActivationBytes(), m.tokEmbd.ActivationBytes())
	for i := range m.layers {
		for _, w := range m.layers[i].matrices() {
			n = max(n, w.ActivationBytes())
		}
	}
	return n
}

// matrices lists a layer's matrices (for scratch sizing).
func (l *layer) matrices() []*engine.Matrix {
	var ms []*engine.Matrix
	add := func(xs ...*engine.Matrix) {
		for _, x := range xs {
			if x != nil {
				ms = append(ms, x)
			}
		}
	}
	if a := l.attn; a != nil {
		add(a.wq, a.wk, a.wv, a.wo)
	}
	if d := l.delta; d != nil {
		add(d.wqkv, d.wz, d.wBeta, d.wA, d.wBA, d.wOut)
	}
	add(l.gate, l.up, l.down)
	if e := l.moe; e != nil {
		add(e.shGate, e.shUp, e.shDown)
		add(e.routed.Matrices()...)
	}
	return ms
}

// forward evaluates a validated, planned batch layer by layer; each
// projection is one matrix product over all tokens, as in the llama
// package.
func (s *session) forward(b *engine.Batch) {
	hp := &s.m.hp
	s.ropePos = b.RopePositions(s.ropePos)
	for i, tok := range b.Tokens {
		s.m.tokEmbd.DequantizeRow(row(s.buf.x, i, hp.nEmbd), int(tok))
		kernels.RopeCache(row(s.buf.rope, i, hp.rope.NRot), int(s.ropePos[i]), &hp.rope)
	}
	n := b.Len()
	s.taps.Begin(n)
	s.taps.Capture(engine.LayerInput(0), s.buf.x)
	for il := range s.m.layers {
		l := &s.m.layers[il]
		s.normRows(s.buf.x, l.attnNorm, n)
		if l.attn != nil {
			s.attention(l.attn, b)
		} else {
			s.deltaNet(l.delta, n)
		}
		s.addResidual(n)
		s.normRows(s.buf.x, l.postNorm, n)
		if l.moe != nil {
			s.moeFFN(l.moe, n)
		} else {
			s.denseFFN(l, n)
		}
		s.addResidual(n)
		s.capture(il)
		s.taps.Capture(engine.LayerOutput(il), s.buf.x)
	}
	s.outputHead()
}

// row returns the i-th row of width w of a batch buffer.
func row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// normRows writes RMSNorm(x_i)·weight into row i of xn for n rows. The
// stored weights already include Qwen's +1.
func (s *session) normRows(x, weight []float32, n int) {
	e := s.m.hp.nEmbd
	for i := range n {
		xn := row(s.buf.xn, i, e)
		kernels.RMSNorm(xn, row(x, i, e), s.m.hp.eps)
		kernels.Mul(xn, xn, weight)
	}
}

// project computes dst row i = m·(src row i) for n rows; quantize says
// whether the activations must be (re)converted for m.
func (s *session) project(m *engine.Matrix, dst, src []float32, n int, quantize bool) {
	if quantize {
		m.QuantizeActs(s.pool, s.buf.act, src, m.Cols, n)
	}
	m.MulMat(s.pool, dst, m.Rows, s.buf.act, n)
}

// sameActs reports whether b can reuse the activations quantized for a.
func sameActs(a, b *engine.Matrix) bool {
	return a.Type.VecDotType() == b.Type.VecDotType() && a.Cols == b.Cols
}

// addResidual adds the first n rows of proj to the residual stream.
func (s *session) addResidual(n int) {
	x, p := s.buf.x[:n*s.m.hp.nEmbd], s.buf.proj[:n*s.m.hp.nEmbd]
	kernels.Add(x, x, p)
}

// denseFFN sets proj = down(silu(gate·xn) ⊙ up·xn).
func (s *session) denseFFN(l *layer, n int) {
	s.project(l.gate, s.buf.gateF, s.buf.xn, n, true)
	s.project(l.up, s.buf.upF, s.buf.xn, n, !sameActs(l.gate, l.up))
	g, u := s.buf.gateF[:n*s.m.hp.nFF], s.buf.upF[:n*s.m.hp.nFF]
	kernels.SwiGLU(g, g, u)
	s.project(l.down, s.buf.proj, s.buf.gateF, n, true)
}

// capture copies the residual stream of the output tokens after layer il
// when that layer was asked for.
func (s *session) capture(il int) {
	for _, want := range s.opts.CaptureLayers {
		if want == il {
			s.copyOutputs(il, s.buf.x)
		}
	}
}

// copyOutputs stores the output tokens' rows of buf as hidden state key.
func (s *session) copyOutputs(key int, buf []float32) {
	w := s.m.hp.nEmbd
	h := grow(s.hidden[key], len(s.outIdx)*w)
	for k, i := range s.outIdx {
		copy(h[k*w:(k+1)*w], row(buf, i, w))
	}
	s.hidden[key] = h
}

// outputHead normalises the output tokens into rows 0..k of xn and
// computes their logits with one matrix product over those rows (none for
// DecodeEmbeddings, which reads the normalised rows).
func (s *session) outputHead() {
	hp := &s.m.hp
	nOut := len(s.outIdx)
	wantFinal := false
	for _, l := range s.opts.CaptureLayers {
		wantFinal = wantFinal || l == -1
	}
	for k, i := range s.outIdx {
		x, xn := row(s.buf.x, i, hp.nEmbd), row(s.buf.xn, k, hp.nEmbd)
		kernels.RMSNorm(xn, x, hp.eps)
		kernels.Mul(xn, xn, s.m.outputNorm)
		if wantFinal {
			copy(x, xn)
		}
	}
	if wantFinal {
		s.copyOutputs(-1, s.buf.x)
	}
	if s.embedOnly {
		return
	}
	s.logits = grow(s.logits, nOut*hp.nVocab)
	if nOut > 0 {
		s.project(s.m.output, s.logits, s.buf.xn, nOut, true)
	}
}

// grow returns buf resliced to n, reallocating only when it is too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}
