//go:build !purego

package kernels

// registerKQuantsARM64 adds the arm64 assembly for the Q4_K and Q6_K dots
// and the Q4_K VecDotN to the neon and neondot tables.
func registerKQuantsARM64(neon, neondot *kernelTable) {
	neon.vecDot[Q4_K] = vecDotQ4_KNEON
	neon.vecDot[Q6_K] = vecDotQ6_KNEON
	neon.vecDotN[Q4_K] = vecDotNQ4_KNEON
	neondot.vecDot[Q4_K] = vecDotQ4_KNEONDot
	neondot.vecDot[Q6_K] = vecDotQ6_KNEONDot
	neondot.vecDotN[Q4_K] = vecDotNQ4_KNEONDot
}

// vecDotQ4_KNEON is vecDotQ4_KQ8_KGeneric with the integer part computed
// as one exact total per super-block instead of 8 lanes:
//
//	isum := sum_s sc_s * dot(q4_s, x_s)               // int32, exact
//	summ := sum_s min_s * (bsums[2s] + bsums[2s+1])   // int32, exact
//	accP += (f16(d)*x.d) * float32(isum)
//	accM -= (f16(dmin)*x.d) * float32(summ)
//
// returning accM + accP. The float result differs from generic's (which
// rounds 8 lane products per super-block) within tolVecDotImpl. w holds
// n/256 q4_K blocks of 144 bytes, x n/256 q8_K blocks of 292 bytes.
//
//go:noescape
func vecDotQ4_KNEON(n int, w, x []byte) float32

// vecDotQ4_KNEONDot is vecDotQ4_KNEON with SDOT (bit-identical results).
//
//go:noescape
func vecDotQ4_KNEONDot(n int, w, x []byte) float32

// vecDotNQ4_KNEON is the vecDotNFunc for Q4_K: each weight super-block is
// unpacked once for up to 4 columns, and out[c] equals vecDotQ4_KNEON of
// column c bit for bit (the same float steps, in vector lanes). Columns past
// len(out) recompute column 0 and are not stored.
//
//go:noescape
func vecDotNQ4_KNEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ4_KNEONDot is vecDotNQ4_KNEON with SDOT.
//
//go:noescape
func vecDotNQ4_KNEONDot(n int, w, x []byte, xStride int, out []float32)

// vecDotQ6_KNEON is vecDotQ6_KQ8_KGeneric with one exact integer total per
// super-block, isum = sum_s scale_s * dot(q6_s - 32, x_s) over the 16
// sub-blocks of 16, and sumf += (f16(d)*x.d) * float32(isum); within
// tolVecDotImpl of generic's 8-lane rounding. w holds n/256 q6_K blocks of
// 210 bytes, x n/256 q8_K blocks.
//
//go:noescape
func vecDotQ6_KNEON(n int, w, x []byte) float32

// vecDotQ6_KNEONDot is vecDotQ6_KNEON with SDOT (bit-identical results).
//
//go:noescape
func vecDotQ6_KNEONDot(n int, w, x []byte) float32
