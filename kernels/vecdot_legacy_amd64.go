//go:build !purego

package kernels

// registerLegacyQuantsAMD64 adds the amd64 assembly for the Q4_0, Q4_1,
// Q5_0, Q5_1 and Q8_0 dots (single- and multi-column, legacy_dot_amd64.s)
// and the q8_0/q8_1 activation quantizers (legacy_quant_amd64.s) to the
// avx2 row, and the VNNI (VPDPBUSD) dots to the avx512vnni row. avx512
// and, for the quantizers, avx512vnni inherit the AVX2 routines, which are
// already the fastest form there (the 512-bit forms would need a second
// scale per register for no fewer loads).
func registerLegacyQuantsAMD64(t *levelTables) {
	avx2, avx512 := &t[AVX2], &t[AVX512VNNI]
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
	avx512.vecDot[Q4_0] = vecDotQ4_0AVX512
	avx512.vecDot[Q4_1] = vecDotQ4_1AVX512
	avx512.vecDot[Q5_0] = vecDotQ5_0AVX512
	avx512.vecDot[Q5_1] = vecDotQ5_1AVX512
	avx512.vecDot[Q8_0] = vecDotQ8_0AVX512
	avx512.vecDotN[Q4_0] = legacyDotN(vecDotQ4_0AVX512, vecDotNQ4_0AVX512, 34)
	avx512.vecDotN[Q4_1] = legacyDotN(vecDotQ4_1AVX512, vecDotNQ4_1AVX512, 36)
	avx512.vecDotN[Q5_0] = legacyDotN(vecDotQ5_0AVX512, vecDotNQ5_0AVX512, 34)
	avx512.vecDotN[Q5_1] = legacyDotN(vecDotQ5_1AVX512, vecDotNQ5_1AVX512, 36)
	avx512.vecDotN[Q8_0] = legacyDotN(vecDotQ8_0AVX512, vecDotNQ8_0AVX512, 34)
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
