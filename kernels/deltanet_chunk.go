package kernels

import (
	"fmt"
	"math"
)

// DeltaChunkScratchLen returns the float32 scratch GatedDeltaChunk needs for
// value heads of width dv: the chunk's δ rows, its cumulative log-decays,
// the decay of each token to the end of the chunk, and one token's row of
// decay ratios and of weights.
func DeltaChunkScratchLen(dv int) int {
	return DeltaChunkSize*dv + 4*DeltaChunkSize
}

// GatedDeltaChunk runs n tokens of one head through the gated delta rule in
// chunks of DeltaChunkSize tokens, with the same result as n calls of
// GatedDeltaStep (decay_t = exp(g[t]), beta[t]) within tolDeltaChunk. The
// token rows are contiguous for the head: q and k hold n rows of dk, v and
// out n rows of dv, g (log-decays, usually ≤ 0) and beta one value per
// token.
//
// Within a chunk starting from state S0, with Γ_t = g_0+…+g_t, the state
// after token t is S_t = e^{Γ_t}·S0 + Σ_{s≤t} e^{Γ_t-Γ_s}·k_s·δ_sᵀ, so
// the deltas solve the unit lower-triangular system
//
//	δ_t + β_t·Σ_{s<t} e^{Γ_t-Γ_s}(k_t·k_s)·δ_s = β_t·(v_t - e^{Γ_t}·S0ᵀk_t)
//
// by forward substitution, the outputs are
// o_t = e^{Γ_t}·S0ᵀq_t + Σ_{s≤t} e^{Γ_t-Γ_s}(k_s·q_t)·δ_s and the state
// moves once per chunk. Decay ratios are formed as exp(Γ_t-Γ_s) ≤ 1, never
// as a quotient, so strong decay underflows to 0 instead of overflowing.
//
// Every product over dk or dv runs through two primitives, deltaDots (one
// vector against a run of rows) and deltaAxpys (a weighted sum of rows
// added to a vector), which the AVX2 and NEON paths implement with fused
// multiply-adds when dk and dv are multiples of 8; the Go references round
// each product and sum in index order.
//
// Preconditions (panics otherwise): n > 0, dk = len(q)/n = len(k)/n,
// dv = len(v)/n = len(out)/n with exact division, len(s) == dk*dv,
// len(g) >= n, len(beta) >= n, len(scratch) >= DeltaChunkScratchLen(dv).
// out must not alias the inputs.
func GatedDeltaChunk(s, q, k, v, out, g, beta []float32, n int, scratch []float32) {
	if n <= 0 || len(q)%n != 0 || len(v)%n != 0 {
		panic(fmt.Sprintf("kernels: GatedDeltaChunk n=%d len(q)=%d len(v)=%d", n, len(q), len(v)))
	}
	dk, dv := len(q)/n, len(v)/n
	if dk == 0 || dv == 0 || len(k) != n*dk || len(out) != n*dv || len(s) != dk*dv ||
		len(g) < n || len(beta) < n || len(scratch) < DeltaChunkScratchLen(dv) {
		panic(fmt.Sprintf("kernels: GatedDeltaChunk lengths s=%d q=%d k=%d v=%d out=%d g=%d beta=%d scratch=%d (n=%d)",
			len(s), len(q), len(k), len(v), len(out), len(g), len(beta), len(scratch), n))
	}
	for t0 := 0; t0 < n; t0 += DeltaChunkSize {
		c := min(DeltaChunkSize, n-t0)
		deltaChunk(s, q[t0*dk:(t0+c)*dk], k[t0*dk:(t0+c)*dk], v[t0*dv:(t0+c)*dv], out[t0*dv:(t0+c)*dv],
			g[t0:t0+c], beta[t0:t0+c], dk, dv, scratch)
	}
}

// deltaChunk is one chunk of c ≤ DeltaChunkSize tokens (see GatedDeltaChunk).
func deltaChunk(s, q, k, v, out, g, beta []float32, dk, dv int, scratch []float32) {
	c := len(g)
	delta := scratch[:c*dv]
	cum := scratch[DeltaChunkSize*dv:][:c]
	a := scratch[DeltaChunkSize*dv+DeltaChunkSize:][:c]
	w := scratch[DeltaChunkSize*dv+2*DeltaChunkSize:][:c]
	r := scratch[DeltaChunkSize*dv+3*DeltaChunkSize:][:c]
	var acc float64
	for t := range c {
		acc += float64(g[t])
		cum[t] = float32(acc)
	}
	// δ right-hand sides: β_t (v_t - e^{Γ_t} S0ᵀk_t); outputs start as
	// e^{Γ_t} S0ᵀq_t.
	for t := range c {
		dt, ot, vt := delta[t*dv:(t+1)*dv], out[t*dv:(t+1)*dv], v[t*dv:(t+1)*dv]
		deltaDots(dt, s, k[t*dk:(t+1)*dk])
		deltaDots(ot, s, q[t*dk:(t+1)*dk])
		e, bt := expf(cum[t]), beta[t]
		for j := range dt {
			dt[j] = bt * (vt[j] - float32(e*dt[j]))
			ot[j] *= e
		}
	}
	// Per token t, with r_u = e^{Γ_t-Γ_u} (u ≤ t), computed once: forward
	// substitution δ_t -= Σ_{u<t} β_t r_u (k_t·k_u) δ_u, which needs only
	// the earlier δ, then the output o_t += Σ_{u≤t} r_u (k_u·q_t) δ_u.
	for t := range c {
		for u := range t + 1 {
			r[u] = expf(cum[t] - cum[u])
		}
		if t > 0 {
			wt := w[:t]
			deltaDots(wt, k[:t*dk], k[t*dk:(t+1)*dk])
			for u := range wt {
				wt[u] = -(beta[t] * r[u] * wt[u])
			}
			deltaAxpys(delta[t*dv:(t+1)*dv], delta[:t*dv], wt)
		}
		wt := w[:t+1]
		deltaDots(wt, k[:(t+1)*dk], q[t*dk:(t+1)*dk])
		for u := range wt {
			wt[u] = r[u] * wt[u]
		}
		deltaAxpys(out[t*dv:(t+1)*dv], delta[:(t+1)*dv], wt)
	}
	// State: S ← e^{Γ_last} S0 + Σ_u e^{Γ_last-Γ_u} k_u δ_uᵀ, row by row.
	last := cum[c-1]
	eLast := expf(last)
	for u := range c {
		a[u] = expf(last - cum[u])
	}
	for j := range dv {
		row := s[j*dk : (j+1)*dk]
		active.scale(row, eLast)
		for u := range c {
			w[u] = a[u] * delta[u*dv+j]
		}
		deltaAxpys(row, k[:c*dk], w)
	}
}

// expf is a correctly rounded float32 exponential.
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// deltaDots sets out[r] = Σ_i rows[r*n+i]·x[i] for r < len(out), n =
// len(x): one vector against len(out) consecutive rows of n floats.
// Callers guarantee len(rows) >= len(out)*n and n > 0.
func deltaDots(out, rows, x []float32) { deltaDotsImpl(out, rows, x) }

// deltaAxpys sets y[i] += Σ_r w[r]·rows[r*n+i] for i < n = len(y), the
// rows added in order r = 0, 1, …: a weighted sum of len(w) consecutive
// rows of n floats. Callers guarantee len(rows) >= len(w)*n and n > 0.
func deltaAxpys(y, rows, w []float32) { deltaAxpysImpl(y, rows, w) }

// deltaDotsGeneric rounds every product to float32 and sums in index
// order, the reference the assembly is held to within tolDeltaOps.
func deltaDotsGeneric(out, rows, x []float32) {
	n := len(x)
	for r := range out {
		row := rows[r*n : (r+1)*n : (r+1)*n]
		var sum float32
		for i, xv := range x {
			sum += float32(row[i] * xv)
		}
		out[r] = sum
	}
}

// deltaAxpysGeneric adds the rows one after the other, every product
// rounded before its addition.
func deltaAxpysGeneric(y, rows, w []float32) {
	n := len(y)
	for r, wr := range w {
		row := rows[r*n : (r+1)*n : (r+1)*n]
		for i := range y {
			y[i] += float32(wr * row[i])
		}
	}
}
