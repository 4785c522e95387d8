package moe

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// Scratch holds the routing and the gathered rows of a MoE feed-forward
// over up to nb tokens, sized once per session; Forward does not allocate.
type Scratch struct {
	sh      Shape
	probs   []float32 // nb × n_expert router softmax
	sel     []int     // nb × k chosen experts, most probable first
	wts     []float32 // nb × k their renormalised weights
	pairs   []int     // token·k+slot pairs grouped by expert
	start   []int     // n_expert+1 offsets into pairs
	xe      []float32 // gathered input rows of one expert
	ge, ue  []float32 // nb × n_ff_exp
	ye      []float32 // nb × n_embd expert outputs
	slotOut []float32 // nb × k × n_embd per-slot outputs
	pool    *kernels.Pool
	act     []byte
}

// NewScratch sizes the buffers for batches of up to nb tokens.
func NewScratch(sh Shape, nb int) Scratch {
	k := sh.NUsed
	f := func(n int) []float32 { return make([]float32, n) }
	return Scratch{
		sh:    sh,
		probs: f(nb * sh.NExpert), sel: make([]int, nb*k), wts: f(nb * k),
		pairs: make([]int, nb*k), start: make([]int, sh.NExpert+1),
		xe: f(nb * sh.NEmbd), ge: f(nb * sh.NFFExp), ue: f(nb * sh.NFFExp),
		ye: f(nb * sh.NEmbd), slotOut: f(nb * k * sh.NEmbd),
	}
}

func row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

// Forward sets out row t = Σ_slots w·expert(xn row t) for n tokens. act is
// the caller's vec-dot activation buffer (large enough for n rows of any
// expert matrix), pool its thread pool. Slot outputs are summed most
// probable first, as ggml's build_moe_ffn adds its views.
func (s *Scratch) Forward(pool *kernels.Pool, act []byte, e *Weights, out, xn []float32, n int) {
	s.pool, s.act = pool, act
	s.route(e, xn, n)
	for ex := range s.sh.NExpert {
		s.runExpert(e, xn, ex)
	}
	k, w := s.sh.NUsed, s.sh.NEmbd
	for t := range n {
		o := row(out, t, w)
		clear(o)
		for j := range k {
			wt, y := s.wts[t*k+j], s.slotOut[(t*k+j)*w:(t*k+j+1)*w]
			for c := range o {
				o[c] += float32(wt * y[c])
			}
		}
	}
	s.pool, s.act = nil, nil
}

// Project computes dst row i = m·(src row i) for n rows; quantize says
// whether act must be refilled from src.
func Project(pool *kernels.Pool, act []byte, m *engine.Matrix, dst, src []float32, n int, quantize bool) {
	if quantize {
		m.QuantizeActs(pool, act, src, m.Cols, n)
	}
	m.MulMat(pool, dst, m.Rows, act, n)
}

// SameActs reports whether b can reuse the activations quantized for a.
func SameActs(a, b *engine.Matrix) bool {
	return a.Type.VecDotType() == b.Type.VecDotType() && a.Cols == b.Cols
}

// SwiGLU sets out = down(silu(gate·x) ⊙ up·x) for m rows of x, using g and
// u as the hidden buffers.
func SwiGLU(pool *kernels.Pool, act []byte, gate, up, down *engine.Matrix, x, g, u, out []float32, m int) {
	Project(pool, act, gate, g, x, m, true)
	Project(pool, act, up, u, x, m, !SameActs(gate, up))
	gs, us := g[:m*gate.Rows], u[:m*up.Rows]
	kernels.SwiGLU(gs, gs, us)
	Project(pool, act, down, out, g, m, true)
}
