package qwen35

import (
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/kernels"
)

// moeScratch holds the shared routed-expert scratch plus the shared
// expert's buffers, sized once per session.
type moeScratch struct {
	moe.Scratch
	ye     []float32 // nb × n_embd shared-expert outputs
	sg, su []float32 // nb × n_ff_shared
}

func (hp *hparams) moeShape() moe.Shape {
	return moe.Shape{NEmbd: hp.nEmbd, NExpert: hp.nExpert, NUsed: hp.nExpertUsed, NFFExp: hp.nFFExp, WeightsScale: hp.expertWeightsScale}
}

func newMoEScratch(hp *hparams, nb int) moeScratch {
	f := func(n int) []float32 { return make([]float32, n) }
	return moeScratch{Scratch: moe.NewScratch(hp.moeShape(), nb),
		ye: f(nb * hp.nEmbd), sg: f(nb * hp.nFFShared), su: f(nb * hp.nFFShared)}
}

// moeFFN sets proj = Σ_slots w·expert(xn) + sigmoid(shInp·xn)·shared(xn):
// the routed experts are package moe's (softmax, top k renormalised), the
// shared expert is added after them as ggml's graph does.
func (s *session) moeFFN(e *moeWeights, n int) {
	s.moe.Forward(s.pool, s.buf.act, e.routed, s.buf.proj, s.buf.xn, n)
	s.sharedExpert(e, n)
}

// sharedExpert adds sigmoid(shInp·xn)·shared(xn) to proj.
func (s *session) sharedExpert(e *moeWeights, n int) {
	hp := &s.m.hp
	ms := &s.moe
	w := hp.nEmbd
	moe.SwiGLU(s.pool, s.buf.act, e.shGate, e.shUp, e.shDown, s.buf.xn, ms.sg, ms.su, ms.ye, n)
	for t := range n {
		gate := sigmoid(kernels.Dot(e.shInp, row(s.buf.xn, t, w)))
		out, y := row(s.buf.proj, t, w), row(ms.ye, t, w)
		for c := range out {
			out[c] += float32(y[c] * gate)
		}
	}
}

func (m *Model) loadMoE(b *binder) *moeWeights {
	hp := &m.hp
	e := &moeWeights{
		shGate: b.mat("ffn_gate_shexp.weight", hp.nEmbd, hp.nFFShared),
		shUp:   b.mat("ffn_up_shexp.weight", hp.nEmbd, hp.nFFShared),
		shDown: b.mat("ffn_down_shexp.weight", hp.nFFShared, hp.nEmbd),
		shInp:  b.vec("ffn_gate_inp_shexp.weight", hp.nEmbd),
	}
	if b.err == nil {
		e.routed, b.err = moe.Load(b.w, b.il, hp.moeShape())
	}
	if b.err != nil {
		return nil
	}
	return e
}
