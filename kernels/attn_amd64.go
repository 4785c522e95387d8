//go:build !purego

package kernels

// Stubs in attn_amd64.s (AVX2+FMA+F16C). Each sets, for the first n
// columns (n a multiple of 8 and > 0) and nKeys >= 0 value rows vStride
// bytes apart starting at v,
//
//	for d := 0; d < n; d++ {
//		acc := float32(0)
//		for j := 0; j < nKeys; j++ {
//			acc += float32(p[j] * V_j[d])
//		}
//		dst[d] = acc
//	}
//
// keeping 64 (then 8) columns of acc in registers across all the rows.
// attnValuesF32AVX2 multiplies and adds separately, so it has the bits of
// attnValuesF32Generic; attnValuesF16AVX2 uses FMA, which has the bits of
// attnValuesF16Generic whenever every p[j] is an f16 value (the product of
// two f16 values is exact in float32). dst must not overlap p or v.

//go:noescape
func attnValuesF32AVX2(dst, p *float32, v *byte, vStride, nKeys, n int)

//go:noescape
func attnValuesF16AVX2(dst, p *float32, v *byte, vStride, nKeys, n int)

// attnScoresF16AVX2 sets dst[j] = dotF16AVX2(k+j*kStride, q, n) for j <
// nKeys (n a multiple of 8 and > 0), running that routine's instructions
// per key, so every score has the bits of vecDotF16AMD64.
//
//go:noescape
func attnScoresF16AVX2(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)

// attnScoresF16AMD64 is AttnScores for F16 keys: the assembly when n is a
// multiple of 8 (where vecDotF16AMD64 is dotF16AVX2 alone), otherwise a
// vecDotF16AMD64 call per key.
func attnScoresF16AMD64(dst []float32, k []byte, kStride int, q []byte, n int) {
	if n == 0 || n&7 != 0 {
		for j := range dst {
			dst[j] = vecDotF16AMD64(n, k[j*kStride:], q)
		}
		return
	}
	attnScoresF16AVX2(&dst[0], &k[0], kStride, &q[0], len(dst), n)
}

// registerAttnAMD64 puts the AVX2 attention kernels in the avx2 row (the
// levels above inherit them, with the F16 vecDot attnScoresF16AMD64
// reproduces).
func registerAttnAMD64(t *levelTables) {
	avx2 := &t[AVX2]
	avx2.attnValues[F32] = attnValuesF32AMD64
	avx2.attnValues[F16] = attnValuesF16AMD64
	avx2.attnScores[F16] = attnScoresF16AMD64
}

// attnValuesF32AMD64 runs the assembly over the columns up to the last
// multiple of 8 and the generic loop over the rest (columns are
// independent, so the split does not change any bits).
func attnValuesF32AMD64(dst, p []float32, v []byte, vStride int) {
	n8 := len(dst) &^ 7
	if n8 == 0 || len(p) == 0 {
		attnValuesF32Generic(dst, p, v, vStride)
		return
	}
	attnValuesF32AVX2(&dst[0], &p[0], &v[0], vStride, len(p), n8)
	if n8 < len(dst) {
		attnValuesF32Generic(dst[n8:], p, v[4*n8:], vStride)
	}
}

func attnValuesF16AMD64(dst, p []float32, v []byte, vStride int) {
	n8 := len(dst) &^ 7
	if n8 == 0 || len(p) == 0 {
		attnValuesF16Generic(dst, p, v, vStride)
		return
	}
	attnValuesF16AVX2(&dst[0], &p[0], &v[0], vStride, len(p), n8)
	if n8 < len(dst) {
		attnValuesF16Generic(dst[n8:], p, v[2*n8:], vStride)
	}
}
