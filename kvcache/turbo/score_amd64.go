//go:build !purego

package turbo

import "unsafe"

// scoreTCQ3x4 and scoreTCQ2x4 (score_amd64.s): AVX-512 fused scoring of n
// one-block rows against four queries (q: 4×128 float32), storing the
// first nq sums of row r at dst + j·dstStride + 4r (bytes).

//go:noescape
func scoreTCQ3x4(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTCQ2x4(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

// scoreTCQ3x4AVX2 and scoreTCQ2x4AVX2 are the AVX2 forms: 8 values per
// YMM, two accumulators per query (values 16i.. and 16i+8..) added before
// the horizontal sum.

//go:noescape
func scoreTCQ3x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTCQ2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

func fusedScores(t Type) bool {
	return expandImpl >= expandAVX2 && (t == Turbo3TCQ || t == Turbo2TCQ)
}

func scoreRowsAsm(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	d, qp, s := unsafe.SliceData(dst), unsafe.SliceData(q), unsafe.SliceData(src)
	switch {
	case expandImpl == expandAVX512 && t == Turbo3TCQ:
		scoreTCQ3x4(d, 4*dstStride, qp, s, stride, m, nq)
	case expandImpl == expandAVX512:
		scoreTCQ2x4(d, 4*dstStride, qp, s, stride, m, nq)
	case t == Turbo3TCQ:
		scoreTCQ3x4AVX2(d, 4*dstStride, qp, s, stride, m, nq)
	default:
		scoreTCQ2x4AVX2(d, 4*dstStride, qp, s, stride, m, nq)
	}
}
