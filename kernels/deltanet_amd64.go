//go:build !purego

package kernels

// Stubs in deltanet_amd64.s (AVX2; the avx512 levels run them too, except
// for the state update, which has a 16-lane form) and their registration.

// gatedDeltaAVX2 advances dv state rows of dk floats each, like
// gatedDeltaStepGeneric when out is non-nil and like
// gatedDeltaUpdateGeneric when it is nil, with 8-lane sums in the order
// the .s file describes (within tolDeltaStep of the Go loops, and
// identical for the two entry points). Preconditions: dk a multiple of 8,
// dk, dv > 0, s holds dk·dv floats, q and k dk, v and out dv; out must not
// alias the others. The Go wrappers check them.
//
//go:noescape
func gatedDeltaAVX2(s, q, k, v, out *float32, dk, dv int, decay, beta float32)

// convTapsAVX2 sets, for c < n, out[c] = Σ_{j<K-1} w[j*n+c]·state[j*n+c]
// + w[(K-1)*n+c]·x[c], each product rounded and the sum taken from 0 in
// tap order: bit for bit the pre-activation of convSiLUStepGeneric. n is
// a multiple of 8 and > 0, K >= 1 (state unused, may be nil, when K == 1);
// out must not alias the inputs.
//
//go:noescape
func convTapsAVX2(out, state, x, w *float32, n, kTaps int)

// deltaDotsAVX2 sets out[r] = Σ_i rows[r*n+i]·x[i] for r < m with fused
// multiply-adds in eight lanes, within tolDeltaOps of deltaDotsGeneric.
// m > 0, n a multiple of 8 and > 0, rows m·n floats.
//
//go:noescape
func deltaDotsAVX2(out, rows, x *float32, m, n int)

// deltaAxpysAVX2 sets y[i] += Σ_r w[r]·rows[r*n+i] for i < n, adding the
// rows in order with fused multiply-adds, within tolDeltaOps of
// deltaAxpysGeneric. m > 0, n a multiple of 8 and > 0, rows m·n floats;
// y must not overlap rows.
//
//go:noescape
func deltaAxpysAVX2(y, rows, w *float32, m, n int)

// gatedDeltaAVX512 is gatedDeltaAVX2 in 16 lanes, dk a multiple of 16;
// within tolDeltaStep, identical for its two entry points.
//
//go:noescape
func gatedDeltaAVX512(s, q, k, v, out *float32, dk, dv int, decay, beta float32)

// gatedDelta512 runs gatedDeltaAVX512 where dk is a multiple of 16 and
// gatedDeltaAVX2 otherwise (the registry's contract is dk%8 == 0).
func gatedDelta512(s, q, k, v, out *float32, dk, dv int, decay, beta float32) {
	if dk%16 == 0 {
		gatedDeltaAVX512(s, q, k, v, out, dk, dv, decay, beta)
		return
	}
	gatedDeltaAVX2(s, q, k, v, out, dk, dv, decay, beta)
}

// registerDeltaNetAMD64 puts the AVX2 delta-rule kernels in the avx2 row
// and the 16-lane state update in the avx512 row (avx512vnni inherits it).
func registerDeltaNetAMD64(t *levelTables) {
	avx2 := deltaKernels{
		gated:      gatedDeltaAVX2,
		convTaps:   convTapsAVX2,
		dots:       deltaDotsAVX2,
		axpys:      deltaAxpysAVX2,
		sumSquares: sumSquaresAVX2,
		scaleTo:    scaleToAVX2,
	}
	avx512 := avx2
	avx512.gated = gatedDelta512
	t[AVX2].delta, t[AVX512].delta = &avx2, &avx512
}
