package moe

import "github.com/waggle-llm/waggle/kernels"

// route computes the router softmax, the top-k choice and the expert →
// (token, slot) lists.
func (s *Scratch) route(e *Weights, xn []float32, n int) {
	ne, k := s.sh.NExpert, s.sh.NUsed
	Project(s.pool, s.act, e.Router, s.probs, xn, n, true)
	clear(s.start)
	for t := range n {
		p := row(s.probs, t, ne)
		kernels.SoftMax(p)
		sel, wts := s.sel[t*k:(t+1)*k], s.wts[t*k:(t+1)*k]
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
			s.start[best+1]++
		}
		sum = max(sum, 6.103515625e-5) // ggml clamps the sum before dividing
		for j := range wts {
			if !s.sh.Unnormalised {
				wts[j] /= sum
			}
			if s.sh.WeightsScale != 0 {
				wts[j] *= s.sh.WeightsScale
			}
		}
	}
	for x := range ne {
		s.start[x+1] += s.start[x]
	}
	fill := s.start[:ne] // reuse as cursors, restored below
	for t := range n {
		for j, x := range s.sel[t*k : (t+1)*k] {
			s.pairs[fill[x]] = t*k + j
			fill[x]++
		}
	}
	for x := ne - 1; x > 0; x-- { // cursors ended at the next start
		s.start[x] = s.start[x-1]
	}
	s.start[0] = 0
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
func (s *Scratch) runExpert(e *Weights, xn []float32, ex int) {
	pairs := s.pairs[s.start[ex]:s.start[ex+1]]
	m := len(pairs)
	if m == 0 {
		return
	}
	k, w := s.sh.NUsed, s.sh.NEmbd
	for r, pr := range pairs {
		copy(row(s.xe, r, w), row(xn, pr/k, w))
	}
	SwiGLU(s.pool, s.act, e.Gate[ex], e.Up[ex], e.Down[ex], s.xe, s.ge, s.ue, s.ye, m)
	for r, pr := range pairs {
		copy(s.slotOut[pr*w:(pr+1)*w], row(s.ye, r, w))
	}
}
