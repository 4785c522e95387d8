package llama

import (
	"errors"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// errTreeOffload refuses tree-masked batches when layers run on the GPU:
// the device's attention knows only the causal mask.
var errTreeOffload = errors.New("llama: tree-masked batches (DDTree verification) are not supported with GPU layers; use -ngl 0 or flat drafts")

func invSqrt(n int) float32 { return float32(1 / math.Sqrt(float64(n))) }

// forward evaluates a validated batch of T tokens layer by layer. Each
// projection is one matrix product over all T tokens (activations quantized
// once, then MatMul on the session's pool), so a prompt reads every weight
// once per batch rather than once per token; a decode step is the same
// path with T = 1. Every token's keys and values of a layer are stored
// before any token of that layer attends, so a token sees the earlier
// tokens of its own batch through the cache.
//
// With GPU layers, the layers from s.nCPU on and maybe the head run on the
// device (offload.go); the error is the device's.
func (s *session) forward(b *engine.Batch) error {
	hp := &s.m.hp
	if s.gpu != nil && len(b.Parent) > 0 {
		return errTreeOffload
	}
	s.ropePos = b.RopePositions(s.ropePos)
	for i, tok := range b.Tokens {
		s.m.tokEmbd.DequantizeRow(s.row(s.x, i, hp.nEmbd), int(tok))
		kernels.RopeCache(s.row(s.rope, i, hp.rope.NRot), int(s.ropePos[i]), &hp.rope)
	}
	s.taps.Begin(b.Len())
	s.taps.Capture(engine.LayerInput(0), s.x)
	for il := range s.nCPU {
		l := &s.m.layers[il]
		s.attention(l, il, b)
		s.feedForward(l, b.Len())
		s.capture(il, b)
		s.taps.Capture(engine.LayerOutput(il), s.x)
	}
	if s.gpu != nil {
		return s.offloadForward(b)
	}
	s.outputHead(b)
	return nil
}

// row returns the i-th row of width w of a batch buffer.
func (s *session) row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// normRows writes RMSNorm(x_i)·weight into row i of s.xn for the first n
// rows of x.
func (s *session) normRows(x, weight []float32, n int) {
	e := s.m.hp.nEmbd
	for i := range n {
		xn := s.row(s.xn, i, e)
		kernels.RMSNorm(xn, s.row(x, i, e), s.m.hp.eps)
		kernels.Mul(xn, xn, weight)
	}
}

// project computes dst row i = m·(src row i) for n rows of src (m.Cols
// wide). quantize says whether s.act must be refilled from src; a caller
// that just quantized the same rows for a matrix of the same vec-dot type
// passes false.
func (s *session) project(m *engine.Matrix, dst, src []float32, n int, quantize bool) {
	if quantize {
		m.QuantizeActs(s.pool, s.act, src, m.Cols, n)
	}
	m.MulMat(s.pool, dst, m.Rows, s.act, n)
}

// sameActs reports whether b can reuse the activations quantized for a.
func sameActs(a, b *engine.Matrix) bool {
	return a.Type.VecDotType() == b.Type.VecDotType() && a.Cols == b.Cols
}

// attention runs the attention block of layer il for the whole batch and
// adds its output to the residual stream.
func (s *session) attention(l *layer, il int, b *engine.Batch) {
	hp := &s.m.hp
	n := b.Len()
	s.normRows(s.x, l.attnNorm, n)
	s.project(l.wq, s.q, s.xn, n, true)
	s.project(l.wk, s.k, s.xn, n, !sameActs(l.wq, l.wk))
	s.project(l.wv, s.v, s.xn, n, !sameActs(l.wk, l.wv))
	qDim, kvDim := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	for i := range n {
		q, k, v := s.row(s.q, i, qDim), s.row(s.k, i, kvDim), s.row(s.v, i, kvDim)
		addBias(q, l.bq)
		addBias(k, l.bk)
		addBias(v, l.bv)
		rope := s.row(s.rope, i, hp.rope.NRot)
		s.prepareHeads(q, l.qNorm, rope)
		s.prepareHeads(k, l.kNorm, rope)
		s.cache.Store(il, int(b.Seq[i]), int(b.Pos[i]), k, v)
	}
	engine.AttendTree(s.pool, s.attnOut, s.q, b.Seq, b.Pos, b.Parent, s.cache, il, s.shape, s.attn)
	s.project(l.wo, s.proj, s.attnOut, n, true)
	s.addResidual(n)
}

// addResidual adds the first n rows of s.proj to the residual stream.
func (s *session) addResidual(n int) {
	x, p := s.x[:n*s.m.hp.nEmbd], s.proj[:n*s.m.hp.nEmbd]
	kernels.Add(x, x, p)
}

// prepareHeads applies the optional per-head RMSNorm and the rotation to
// every head of x in place.
func (s *session) prepareHeads(x, headNorm, rope []float32) {
	hp := &s.m.hp
	for h := 0; h < len(x); h += hp.headDim {
		head := x[h : h+hp.headDim]
		if headNorm != nil {
			kernels.RMSNorm(head, head, hp.eps)
			kernels.Mul(head, head, headNorm)
		}
		kernels.RopeApply(head, rope, hp.rope.NRot, s.m.v.neox)
	}
}

func addBias(x, bias []float32) {
	if bias != nil {
		kernels.Add(x, x, bias)
	}
}

// feedForward adds down(silu(gate·xn) * up·xn) (or, for qwen3moe, the
// routed experts' weighted sum) to the residual stream of the first n
// tokens.
func (s *session) feedForward(l *layer, n int) {
	s.normRows(s.x, l.ffnNorm, n)
	if l.experts != nil {
		s.experts.Forward(s.pool, s.act, l.experts, s.proj, s.xn, n)
		s.addResidual(n)
		return
	}
	s.project(l.gate, s.gate, s.xn, n, true)
	s.project(l.up, s.up, s.xn, n, !sameActs(l.gate, l.up))
	g, u := s.gate[:n*s.m.hp.nFF], s.up[:n*s.m.hp.nFF]
	kernels.SwiGLU(g, g, u)
	s.project(l.down, s.proj, s.gate, n, true)
	s.addResidual(n)
}

// capture copies the residual stream of the output tokens after layer il
// when that layer was asked for.
func (s *session) capture(il int, b *engine.Batch) {
	if len(s.opts.CaptureLayers) == 0 {
		return
	}
	for _, want := range s.opts.CaptureLayers {
		if want == il {
			s.copyOutputs(il, s.x)
		}
	}
}

// copyOutputs stores the output tokens' rows of buf as hidden state key.
func (s *session) copyOutputs(key int, buf []float32) {
	w := s.m.hp.nEmbd
	h := grow(s.hidden[key], len(s.outIdx)*w)
	for k, i := range s.outIdx {
		copy(h[k*w:(k+1)*w], s.row(buf, i, w))
	}
	s.hidden[key] = h
}

// outputHead normalises the output tokens into rows 0..k of s.xn and
// computes their logits with one matrix product over only those rows
// (none for DecodeEmbeddings, which reads the normalised rows).
func (s *session) outputHead(b *engine.Batch) {
	hp := &s.m.hp
	nOut := len(s.outIdx)
	wantFinal := false
	for _, l := range s.opts.CaptureLayers {
		wantFinal = wantFinal || l == -1
	}
	for k, i := range s.outIdx {
		x, xn := s.row(s.x, i, hp.nEmbd), s.row(s.xn, k, hp.nEmbd)
		kernels.RMSNorm(xn, x, hp.eps)
		kernels.Mul(xn, xn, s.m.outputNorm)
		if wantFinal {
			copy(x, xn) // the residual row is no longer needed
		}
	}
	if wantFinal {
		s.copyOutputs(-1, s.x)
	}
	if s.embedOnly {
		return
	}
	s.logits = grow(s.logits, nOut*hp.nVocab)
	if nOut > 0 {
		s.project(s.m.output, s.logits, s.xn, nOut, true)
	}
}

// grow returns buf resliced to n, reallocating only when it is too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}
