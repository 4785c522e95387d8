//go:build !purego

package kernels

// registerKQuantsARM64 adds the arm64 assembly for the Q2_K..Q6_K dots and
// their VecDotN to the neon and neondot tables.
func registerKQuantsARM64(t *levelTables) {
	neon, neondot := &t[NEON], &t[NEONDot]
	neon.vecDot[Q2_K] = vecDotQ2_KNEON
	neon.vecDot[Q3_K] = vecDotQ3_KNEON
	neon.vecDot[Q4_K] = vecDotQ4_KNEON
	neon.vecDot[Q5_K] = vecDotQ5_KNEON
	neon.vecDot[Q6_K] = vecDotQ6_KNEON
	neon.vecDotN[Q2_K] = vecDotNQ2_KNEON
	neon.vecDotN[Q3_K] = vecDotNQ3_KNEON
	neon.vecDotN[Q4_K] = vecDotNQ4_KNEON
	neon.vecDotN[Q5_K] = vecDotNQ5_KNEON
	neon.vecDotN[Q6_K] = vecDotNQ6_KNEON
	neondot.vecDot[Q2_K] = vecDotQ2_KNEONDot
	neondot.vecDot[Q3_K] = vecDotQ3_KNEONDot
	neondot.vecDot[Q4_K] = vecDotQ4_KNEONDot
	neondot.vecDot[Q5_K] = vecDotQ5_KNEONDot
	neondot.vecDot[Q6_K] = vecDotQ6_KNEONDot
	neondot.vecDotN[Q2_K] = vecDotNQ2_KNEONDot
	neondot.vecDotN[Q3_K] = vecDotNQ3_KNEONDot
	neondot.vecDotN[Q4_K] = vecDotNQ4_KNEONDot
	neondot.vecDotN[Q5_K] = vecDotNQ5_KNEONDot
	neondot.vecDotN[Q6_K] = vecDotNQ6_KNEONDot
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

// vecDotNQ6_KNEON is the vecDotNFunc for Q6_K: each weight super-block is
// unpacked once for up to 4 columns, and out[c] equals vecDotQ6_KNEON of
// column c bit for bit. Columns past len(out) recompute column 0 and are
// not stored.
//
//go:noescape
func vecDotNQ6_KNEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ6_KNEONDot is vecDotNQ6_KNEON with SDOT.
//
//go:noescape
func vecDotNQ6_KNEONDot(n int, w, x []byte, xStride int, out []float32)

// vecDotQ5_KNEON is vecDotQ5_KQ8_KGeneric computed like vecDotQ4_KNEON (one
// exact integer total per super-block for the scaled quants and one for
// the mins, then accP += (f16(d)*x.d)*isum, accM -= (f16(dmin)*x.d)*summ,
// returning accM + accP), with the fifth bit of each value from qh; within
// tolVecDotImpl of generic's 8-lane rounding. w holds n/256 q5_K blocks of
// 176 bytes, x n/256 q8_K blocks.
//
//go:noescape
func vecDotQ5_KNEON(n int, w, x []byte) float32

// vecDotQ5_KNEONDot is vecDotQ5_KNEON with SDOT (bit-identical results).
//
//go:noescape
func vecDotQ5_KNEONDot(n int, w, x []byte) float32

// vecDotQ3_KNEON is vecDotQ3_KQ8_KGeneric with one exact integer total per
// super-block, isum = sum_s scale_s * dot(q3_s, x_s) over the 16 sub-blocks
// of 16 (q3 = 2 low bits | hmask bit << 2, minus 4; scales 6-bit minus 32),
// and sumf += (f16(d)*x.d) * float32(isum); within tolVecDotImpl of
// generic's 8-lane rounding. w holds n/256 q3_K blocks of 110 bytes, x
// n/256 q8_K blocks.
//
//go:noescape
func vecDotQ3_KNEON(n int, w, x []byte) float32

// vecDotQ3_KNEONDot is vecDotQ3_KNEON with SDOT (bit-identical results).
//
//go:noescape
func vecDotQ3_KNEONDot(n int, w, x []byte) float32

// vecDotQ2_KNEON is vecDotQ2_KQ8_KGeneric, bit for bit: per super-block the
// exact totals isum = sum_s (sc_s&15) * dot(q2_s, x_s) and
// summs = sum_s (sc_s>>4) * bsums[s], then
// sumf += float32(dall*isum) - float32(dmin*summs) with dall = x.d*f16(d)
// and dmin = x.d*f16(dmin). w holds n/256 q2_K blocks of 84 bytes, x n/256
// q8_K blocks.
//
//go:noescape
func vecDotQ2_KNEON(n int, w, x []byte) float32

// vecDotQ2_KNEONDot is vecDotQ2_KNEON with SDOT.
//
//go:noescape
func vecDotQ2_KNEONDot(n int, w, x []byte) float32

// vecDotNQ5_KNEON is the vecDotNFunc for Q5_K, as vecDotNQ4_KNEON: out[c]
// equals vecDotQ5_KNEON of column c bit for bit.
//
//go:noescape
func vecDotNQ5_KNEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ5_KNEONDot is vecDotNQ5_KNEON with SDOT.
//
//go:noescape
func vecDotNQ5_KNEONDot(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ2_KNEON and vecDotNQ3_KNEON are the vecDotNFuncs for Q2_K and
// Q3_K: each weight super-block is unpacked once for up to 4 columns, and
// out[c] equals the one-column kernel's result on column c bit for bit.
// Columns past len(out) recompute column 0 and are not stored.
//
//go:noescape
func vecDotNQ2_KNEON(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ3_KNEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ2_KNEONDot and vecDotNQ3_KNEONDot are the SDOT versions.
//
//go:noescape
func vecDotNQ2_KNEONDot(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ3_KNEONDot(n int, w, x []byte, xStride int, out []float32)
