//go:build !purego

package kernels

// Assembly dot products of the legacy 32-value quant types against their
// activation blocks (vecdot_legacy_amd64.s), after ggml's x86 quants.c.
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
// vecdot_legacy_amd64.s) accumulate the scaled block sums (bound:
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
// The *AVX2 routines need AVX2+FMA+F16C; the *VNNI ones additionally
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
func vecDotQ4_0VNNI(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_0VNNI(n int, w, x []byte) float32

//go:noescape
func vecDotQ8_0VNNI(n int, w, x []byte) float32

//go:noescape
func vecDotQ4_1VNNI(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_1VNNI(n int, w, x []byte) float32

//go:noescape
func vecDotNQ4_0VNNI(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_0VNNI(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ8_0VNNI(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ4_1VNNI(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_1VNNI(n int, w, x []byte, xStride int, out []float32)

// registerLegacyQuantsAMD64 adds the amd64 assembly for the Q4_0, Q4_1,
// Q5_0, Q5_1 and Q8_0 dots (single- and multi-column, vecdot_legacy_amd64.s)
// and the q8_0/q8_1 activation quantizers (quantize_q8_amd64.s) to the
// avx2 row, and the VNNI (VPDPBUSD) dots to the avx512vnni row. avx512
// and, for the quantizers, avx512vnni inherit the AVX2 routines, which are
// already the fastest form there (the 512-bit forms would need a second
// scale per register for no fewer loads).
func registerLegacyQuantsAMD64(t *levelTables) {
	avx2, vnni := &t[AVX2], &t[AVX512VNNI]
	avx2.vecDot[Q4_0] = vecDotQ4_0AVX2
	avx2.vecDot[Q4_1] = vecDotQ4_1AVX2
	avx2.vecDot[Q5_0] = vecDotQ5_0AVX2
	avx2.vecDot[Q5_1] = vecDotQ5_1AVX2
	avx2.vecDot[Q8_0] = vecDotQ8_0AVX2
	avx2.vecDotN[Q4_0] = legacyDotN(vecDotQ4_0AVX2, vecDotNQ4_0AVX2, 34)
	avx2.vecDotN[Q4_1] = legacyDotN(vecDotQ4_1AVX2, vecDotNQ4_1AVX2, 36)
	avx2.vecDotN[Q5_0] = legacyDotN(vecDotQ5_0AVX2, vecDotNQ5_0AVX2, 34)
	avx2.vecDotN[Q5_1] = legacyDotN(vecDotQ5_1AVX2, vecDotNQ5_1AVX2, 36)
	avx2.vecDotN[Q8_0] = legacyDotN(vecDotQ8_0AVX2, vecDotNQ8_0AVX2, 34)
	avx2.quantize[Q8_0] = quantizeRowQ8_0AVX2
	avx2.quantize[Q8_1] = quantizeRowQ8_1AVX2
	vnni.vecDot[Q4_0] = vecDotQ4_0VNNI
	vnni.vecDot[Q4_1] = vecDotQ4_1VNNI
	vnni.vecDot[Q5_0] = vecDotQ5_0VNNI
	vnni.vecDot[Q5_1] = vecDotQ5_1VNNI
	vnni.vecDot[Q8_0] = vecDotQ8_0VNNI
	vnni.vecDotN[Q4_0] = legacyDotN(vecDotQ4_0VNNI, vecDotNQ4_0VNNI, 34)
	vnni.vecDotN[Q4_1] = legacyDotN(vecDotQ4_1VNNI, vecDotNQ4_1VNNI, 36)
	vnni.vecDotN[Q5_0] = legacyDotN(vecDotQ5_0VNNI, vecDotNQ5_0VNNI, 34)
	vnni.vecDotN[Q5_1] = legacyDotN(vecDotQ5_1VNNI, vecDotNQ5_1VNNI, 36)
	vnni.vecDotN[Q8_0] = legacyDotN(vecDotQ8_0VNNI, vecDotNQ8_0VNNI, 34)
}

// legacyDotN returns the multi-column kernel: the four-column routine four
// for three or four columns, and one single-column dot per column for one
// or two. The four-column routine always does the work of four columns (it
// repeats column 0 for missing ones), and on one core two single-column
// dots, whose second pass finds the weight row in L1, are faster than it
// (see BenchmarkVecDotN). xb is the activation block size in bytes.
func legacyDotN(one vecDotFunc, four vecDotNFunc, xb int) vecDotNFunc {
	return func(n int, w, x []byte, xStride int, out []float32) {
		if len(out) >= 3 {
			four(n, w, x, xStride, out)
			return
		}
		xn := n / qk * xb
		for c := range out {
			out[c] = one(n, w, x[c*xStride:c*xStride+xn])
		}
	}
}
