package llama

import (
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

func invSqrt(n int) float32 { return float32(1 / math.Sqrt(float64(n))) }

// forward evaluates a validated batch layer by layer: every token's keys and
// values of a layer are stored before any token of that layer attends, so a
// token sees the earlier tokens of its own batch through the cache.
func (s *session) forward(b *engine.Batch) {
	hp := &s.m.hp
	n := b.Len()
	for i, tok := range b.Tokens {
		s.m.tokEmbd.DequantizeRow(s.row(s.x, i, hp.nEmbd), int(tok))
		kernels.RopeCache(s.row(s.rope, i, hp.rope.NRot), int(b.Pos[i]), &hp.rope)
	}
	for il := range s.m.layers {
		l := &s.m.layers[il]
		for i := range n {
			s.attentionInput(l, il, b, i)
		}
		for i := range n {
			s.attentionOutput(l, il, b, i)
			s.feedForward(l, s.row(s.x, i, hp.nEmbd))
		}
		s.capture(il, b)
	}
	s.outputHead(b)
}

// row returns the i-th row of width w of a batch buffer.
func (s *session) row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// norm writes RMSNorm(x)·weight into s.xn and returns it.
func (s *session) norm(x, weight []float32) []float32 {
	xn := s.xn[:len(x)]
	kernels.RMSNorm(xn, x, s.m.hp.eps)
	kernels.Mul(xn, xn, weight)
	return xn
}

// attentionInput projects token i to q, k, v, applies biases, q/k norms and
// rotary, stores k and v in the cache and keeps q for attentionOutput.
func (s *session) attentionInput(l *layer, il int, b *engine.Batch, i int) {
	hp := &s.m.hp
	xn := s.norm(s.row(s.x, i, hp.nEmbd), l.attnNorm)
	q := s.row(s.q, i, hp.nHead*hp.headDim)
	l.wq.MulVec(q, xn, s.act)
	l.wk.MulVec(s.k, xn, s.act)
	l.wv.MulVec(s.v, xn, s.act)
	addBias(q, l.bq)
	addBias(s.k, l.bk)
	addBias(s.v, l.bv)
	rope := s.row(s.rope, i, hp.rope.NRot)
	s.prepareHeads(q, l.qNorm, rope)
	s.prepareHeads(s.k, l.kNorm, rope)
	s.cache.Store(il, int(b.Seq[i]), int(b.Pos[i]), s.k, s.v)
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

// attentionOutput attends token i over its sequence, projects the result
// and adds it to the residual stream.
func (s *session) attentionOutput(l *layer, il int, b *engine.Batch, i int) {
	hp := &s.m.hp
	q := s.row(s.q, i, hp.nHead*hp.headDim)
	engine.Attend(s.attnOut, q, s.cache, il, int(b.Seq[i]), int(b.Pos[i])+1, s.shape, s.attn)
	l.wo.MulVec(s.proj, s.attnOut, s.act)
	x := s.row(s.x, i, hp.nEmbd)
	kernels.Add(x, x, s.proj)
}

// feedForward adds down(silu(gate·xn) * up·xn) to the residual x.
func (s *session) feedForward(l *layer, x []float32) {
	xn := s.norm(x, l.ffnNorm)
	l.gate.MulVec(s.gate, xn, s.act)
	l.up.MulVec(s.up, xn, s.act)
	kernels.SwiGLU(s.gate, s.gate, s.up)
	l.down.MulVec(s.proj, s.gate, s.act)
	kernels.Add(x, x, s.proj)
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

// outputHead normalises the output tokens and computes their logits.
func (s *session) outputHead(b *engine.Batch) {
	hp := &s.m.hp
	s.logits = grow(s.logits, len(s.outIdx)*hp.nVocab)
	wantFinal := false
	for _, l := range s.opts.CaptureLayers {
		wantFinal = wantFinal || l == -1
	}
	for k, i := range s.outIdx {
		x := s.row(s.x, i, hp.nEmbd)
		xn := s.norm(x, s.m.outputNorm)
		if wantFinal {
			copy(x, xn) // the residual row is no longer needed
		}
		s.m.output.MulVec(s.row(s.logits, k, hp.nVocab), xn, s.act)
	}
	if wantFinal {
		s.copyOutputs(-1, s.x)
	}
}

// grow returns buf resliced to n, reallocating only when it is too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}
