//go:build !purego

package kernels

// Stubs in attn_arm64.s (NEON).
//
// attnValuesF32NEON and attnValuesF16NEON set, for the first n columns (n a
// multiple of 8 and > 0) and nKeys > 0 value rows vStride bytes apart
// starting at v,
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
// Both round each product before adding it (no fused multiply-add), so
// they have the bits of attnValuesF32Generic / attnValuesF16Generic for
// any p, not only for f16-valued p as the AVX2 F16 kernel. dst must not
// overlap p or v.

//go:noescape
func attnValuesF32NEON(dst, p *float32, v *byte, vStride, nKeys, n int)

//go:noescape
func attnValuesF16NEON(dst, p *float32, v *byte, vStride, nKeys, n int)

// attnScoresF32NEON and attnScoresF16NEON set dst[j] =
// float32(dotF32NEON(k+j*kStride, q, n)) (dotF16NEON for F16) for j <
// nKeys, nKeys > 0, n a multiple of 8 and > 0, running that routine's
// instructions per key, so every score has the bits of vecDotF32NEON /
// vecDotF16NEON on its key without a Go call per key.

//go:noescape
func attnScoresF32NEON(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)

//go:noescape
func attnScoresF16NEON(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)

// registerAttnARM64 puts the NEON attention kernels in the neon row
// (neondot inherits them, with the F32/F16 vecDots the scores reproduce).
func registerAttnARM64(t *levelTables) {
	neon := &t[NEON]
	neon.attnValues[F32] = attnValuesF32ARM64
	neon.attnValues[F16] = attnValuesF16ARM64
	neon.attnScores[F32] = attnScoresF32ARM64
	neon.attnScores[F16] = attnScoresF16ARM64
}

// attnValuesF32ARM64 runs the assembly over the columns up to the last
// multiple of 8 and the generic loop over the rest (columns are
// independent, so the split does not change any bits).
func attnValuesF32ARM64(dst, p []float32, v []byte, vStride int) {
	n8 := len(dst) &^ 7
	if n8 == 0 || len(p) == 0 {
		attnValuesF32Generic(dst, p, v, vStride)
		return
	}
	attnValuesF32NEON(&dst[0], &p[0], &v[0], vStride, len(p), n8)
	if n8 < len(dst) {
		attnValuesF32Generic(dst[n8:], p, v[4*n8:], vStride)
	}
}

func attnValuesF16ARM64(dst, p []float32, v []byte, vStride int) {
	n8 := len(dst) &^ 7
	if n8 == 0 || len(p) == 0 {
		attnValuesF16Generic(dst, p, v, vStride)
		return
	}
	attnValuesF16NEON(&dst[0], &p[0], &v[0], vStride, len(p), n8)
	if n8 < len(dst) {
		attnValuesF16Generic(dst[n8:], p, v[2*n8:], vStride)
	}
}

// attnScoresF32ARM64 is AttnScores for F32 keys: the assembly when n is
// a multiple of 8 (where vecDotF32NEON is dotF32NEON alone, then the
// float32 rounding), otherwise a vecDotF32NEON call per key.
func attnScoresF32ARM64(dst []float32, k []byte, kStride int, q []byte, n int) {
	if len(dst) == 0 {
		return
	}
	if n == 0 || n&7 != 0 {
		for j := range dst {
			dst[j] = vecDotF32NEON(n, k[j*kStride:], q)
		}
		return
	}
	attnScoresF32NEON(&dst[0], &k[0], kStride, &q[0], len(dst), n)
}

func attnScoresF16ARM64(dst []float32, k []byte, kStride int, q []byte, n int) {
	if len(dst) == 0 {
		return
	}
	if n == 0 || n&7 != 0 {
		for j := range dst {
			dst[j] = vecDotF16NEON(n, k[j*kStride:], q)
		}
		return
	}
	attnScoresF16NEON(&dst[0], &k[0], kStride, &q[0], len(dst), n)
}
