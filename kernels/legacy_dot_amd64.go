//go:build !purego

package kernels

// Assembly dot products of the legacy 32-value quant types against their
// activation blocks (legacy_dot_amd64.s), after ggml's x86 quants.c.
//
// Semantics, for the single-column form (the multi-column form computes
// out[c] for x[c*xStride:], c < len(out)):
//
//	for b := 0; b < n/32; b++ {
//		sumi := sum over the block's 32 values of int(qw[j]) * int(qx[j])
//		sum += scale_w(b) * scale_x(b) * float32(sumi)   // + mw*sx for Q4_1/Q5_1
//	}
//
// which is vecDotQ*Generic (vecdot_q4_0.go … vecdot_q8_0.go) up to the
// order of the float32 scale-and-accumulate steps: the integer block sums
// are exact, and four float32 chains (block b into chain b%4, the last
// n/32%4 blocks into chain 0, summed as (c0+c2)+(c1+c3); see
// legacy_dot_amd64.s) accumulate the scaled block sums (bound:
// tolVecDotImpl). The multi-column routines keep exactly this order per
// column, so out[c] has the bits of the single-column routine on column c
// (TestBatchInvariance).
//
// Preconditions, beyond the exported wrappers' length checks: n is a
// multiple of 32; for the multi-column form 1 <= len(out) <= MaxDotCols and
// column c's n/32 activation blocks start at x[c*xStride]. The
// multi-column routines always compute four columns (one weight unpack
// serves all four), reading column 0 again in place of the columns beyond
// len(out) and storing only len(out) results. Q4_0, Q5_0 and
// Q8_0 use the sign trick on the activations (y*sign(q)), so an activation
// quant of -128 gives ggml's wrapped result rather than the exact one;
// QuantizeRow never produces -128 (it keeps |q| <= 127), nor does ggml.
//
// The *AVX2 routines need AVX2+FMA+F16C; the *AVX512 ones additionally
// AVX-512 VL and VNNI (VPDPBUSD on 256-bit registers).

//go:noescape
func vecDotQ4_0AVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_0AVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ8_0AVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ4_1AVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_1AVX2(n int, w, x []byte) float32

//go:noescape
func vecDotNQ4_0AVX2(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_0AVX2(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ8_0AVX2(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ4_1AVX2(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_1AVX2(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotQ4_0AVX512(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_0AVX512(n int, w, x []byte) float32

//go:noescape
func vecDotQ8_0AVX512(n int, w, x []byte) float32

//go:noescape
func vecDotQ4_1AVX512(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_1AVX512(n int, w, x []byte) float32

//go:noescape
func vecDotNQ4_0AVX512(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_0AVX512(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ8_0AVX512(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ4_1AVX512(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_1AVX512(n int, w, x []byte, xStride int, out []float32)
