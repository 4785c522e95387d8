package qwen35

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// moeScratch holds the routing and the gathered rows of a MoE feed-forward
// over up to nb tokens, sized once per session.
type moeScratch struct {
	probs   []float32 // nb × n_expert router softmax
	sel     []int     // nb × k chosen experts, most probable first
	wts     []float32 // nb × k their renormalised weights
	pairs   []int     // token·k+slot pairs grouped by expert
	start   []int     // n_expert+1 offsets into pairs
	xe      []float32 // gathered input rows of one expert
	ge, ue  []float32 // nb × n_ff_exp
	ye      []float32 // nb × n_embd expert (or shared-expert) outputs
	slotOut []float32 // nb × k × n_embd per-slot outputs
	sg, su  []float32 // nb × n_ff_shared
}

func newMoEScratch(hp *hparams, nb int) moeScratch {
	k := hp.nExpertUsed
	f := func(n int) []float32 { return make([]float32, n) }
	return moeScratch{
		probs: f(nb * hp.nExpert), sel: make([]int, nb*k), wts: f(nb * k),
		pairs: make([]int, nb*k), start: make([]int, hp.nExpert+1),
		xe: f(nb * hp.nEmbd), ge: f(nb * hp.nFFExp), ue: f(nb * hp.nFFExp),
		ye: f(nb * hp.nEmbd), slotOut: f(nb * k * hp.nEmbd),
		sg: f(nb * hp.nFFShared), su: f(nb * hp.nFFShared),
	}
}

// moeFFN sets proj = Σ_slots w·expert(xn) + sigmoid(shInp·xn)·shared(xn):
// softmax routing over all experts, the top k renormalised to sum 1 (and
// scaled by expert_weights_scale when the file has one), SwiGLU experts
// applied to only the tokens routed to them, slot outputs summed most
// probable first as ggml's build_moe_ffn adds its views.
func (s *session) moeFFN(e *moeWeights, n int) {
	hp := &s.m.hp
	ms := &s.moe
	s.route(e, n)
	for ex := range hp.nExpert {
		s.runExpert(e, ex)
	}
	k, w := hp.nExpertUsed, hp.nEmbd
	for t := range n {
		out := row(s.buf.proj, t, w)
		clear(out)
		for j := range k {
			wt, y := ms.wts[t*k+j], ms.slotOut[(t*k+j)*w:(t*k+j+1)*w]
			for c := range out {
				out[c] += float32(wt * y[c])
			}
		}
	}
	s.sharedExpert(e, n)
}

// route computes the router softmax, the top-k choice and the expert →
// (token, slot) lists.
func (s *session) route(e *moeWeights, n int) {
	hp := &s.m.hp
	ms := &s.moe
	ne, k := hp.nExpert, hp.nExpertUsed
	s.project(e.router, ms.probs, s.buf.xn, n, true)
	clear(ms.start)
	for t := range n {
		p := row(ms.probs, t, ne)
		kernels.SoftMax(p)
		sel, wts := ms.sel[t*k:(t+1)*k], ms.wts[t*k:(t+1)*k]
		var sum float32
		for j := range k {
			best := -1
			for x := range ne {
				if !chosen(sel[:j], x) && (best < 0 || p[x] > p[best]) {
					best = x
				}
			}
			sel[j], wts[j] = best, p[best]
			sum += p[best]
			ms.start[best+1]++
		}
		sum = max(sum, 6.103515625e-5) // ggml clamps the sum before dividing
		for j := range wts {
			wts[j] /= sum
			if hp.expertWeightsScale != 0 {
				wts[j] *= hp.expertWeightsScale
			}
		}
	}
	for x := range ne {
		ms.start[x+1] += ms.start[x]
	}
	fill := ms.start[:ne] // reuse as cursors, restored below
	for t := range n {
		for j, x := range ms.sel[t*k : (t+1)*k] {
			ms.pairs[fill[x]] = t*k + j
			fill[x]++
		}
	}
	for x := ne - 1; x > 0; x-- { // cursors ended at the next start
		ms.start[x] = ms.start[x-1]
	}
	ms.start[0] = 0
}

func chosen(sel []int, x int) bool {
	for _, y := range sel {
		if y == x {
			return true
		}
	}
	return false
}

// runExpert evaluates expert ex on the tokens routed to it (gathered into
// contiguous rows) and scatters its outputs to their slots.
func (s *session) runExpert(e *moeWeights, ex int) {
	hp := &s.m.hp
	ms := &s.moe
	pairs := ms.pairs[ms.start[ex]:ms.start[ex+1]]
	m := len(pairs)
	if m == 0 {
		return
	}
	k, w := hp.nExpertUsed, hp.nEmbd
	for r, pr := range pairs {
		copy(row(ms.xe, r, w), row(s.buf.xn, pr/k, w))
	}
	s.swiGLU(e.gate[ex], e.up[ex], e.down[ex], ms.xe, ms.ge, ms.ue, ms.ye, m)
	for r, pr := range pairs {
		copy(ms.slotOut[pr*w:(pr+1)*w], row(ms.ye, r, w))
	}
}

// swiGLU sets out = down(silu(gate·x) ⊙ up·x) for m rows of x, using g and
// u as the hidden buffers.
func (s *session) swiGLU(gate, up, down *engine.Matrix, x, g, u, out []float32, m int) {
	s.project(gate, g, x, m, true)
	s.project(up, u, x, m, !sameActs(gate, up))
	gs, us := g[:m*gate.Rows], u[:m*up.Rows]
	kernels.SwiGLU(gs, gs, us)
	s.project(down, out, g, m, true)
}

// sharedExpert adds sigmoid(shInp·xn)·shared(xn) to proj.
func (s *session) sharedExpert(e *moeWeights, n int) {
	hp := &s.m.hp
	ms := &s.moe
	w := hp.nEmbd
	s.swiGLU(e.shGate, e.shUp, e.shDown, s.buf.xn, ms.sg, ms.su, ms.ye, n)
	for t := range n {
		gate := sigmoid(kernels.Dot(e.shInp, row(s.buf.xn, t, w)))
		out, y := row(s.buf.proj, t, w), row(ms.ye, t, w)
		for c := range out {
			out[c] += float32(y[c] * gate)
		}
	}
}
