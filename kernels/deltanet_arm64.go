//go:build !purego

package kernels

// Stubs in deltanet_arm64.s (plain Advanced SIMD, so neon and neondot run
// the same code) and their registration. The
// contracts are those of the AVX2 stubs in deltanet_amd64.go; the lane
// orders below are what differs.

// gatedDeltaNEON advances dv state rows of dk floats each, like
// gatedDeltaStepGeneric when out is non-nil and like
// gatedDeltaUpdateGeneric when it is nil: products rounded (FMUL, then
// FADD, never FMLA, as in the AVX2 step), the two sums over a row kept in
// eight lanes (lane i%8) and folded pairwise at the end; within
// tolDeltaStep of the Go loops and identical for the two entry points.
// Preconditions: dk a multiple of 8, dk, dv > 0, s holds dk·dv floats, q
// and k dk, v and out dv; out must not alias the others.
//
//go:noescape
func gatedDeltaNEON(s, q, k, v, out *float32, dk, dv int, decay, beta float32)

// convTapsNEON is convTapsAVX2 (deltanet_amd64.go) in NEON: bit for bit the
// pre-activation of convSiLUStepGeneric. n a multiple of 8 and > 0.
//
//go:noescape
func convTapsNEON(out, state, x, w *float32, n, kTaps int)

// deltaDotsNEON sets out[r] = Σ_i rows[r*n+i]·x[i] for r < m with FMLA in
// eight lanes, within tolDeltaOps of deltaDotsGeneric. m > 0, n a multiple
// of 8 and > 0.
//
//go:noescape
func deltaDotsNEON(out, rows, x *float32, m, n int)

// deltaAxpysNEON sets y[i] += Σ_r w[r]·rows[r*n+i] for i < n, the rows
// added in order with FMLA, within tolDeltaOps of deltaAxpysGeneric. m > 0,
// n a multiple of 8 and > 0; y must not overlap rows.
//
//go:noescape
func deltaAxpysNEON(y, rows, w *float32, m, n int)

// registerDeltaNetARM64 puts the NEON delta-rule kernels in the neon row
// (neondot inherits them).
func registerDeltaNetARM64(t *levelTables) {
	t[NEON].delta = &deltaKernels{
		gated:      gatedDeltaNEON,
		convTaps:   convTapsNEON,
		dots:       deltaDotsNEON,
		axpys:      deltaAxpysNEON,
		sumSquares: sumSquaresNEON,
		scaleTo:    scaleToNEON,
	}
}
