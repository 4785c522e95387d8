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

func fusedScores(t Type) bool {
	return expandImpl == expandAVX512 && (t == Turbo3TCQ || t == Turbo2TCQ)
}

func scoreRowsAsm(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	d, qp, s := unsafe.SliceData(dst), unsafe.SliceData(q), unsafe.SliceData(src)
	if t == Turbo3TCQ {
		scoreTCQ3x4(d, 4*dstStride, qp, s, stride, m, nq)
		return
	}
	scoreTCQ2x4(d, 4*dstStride, qp, s, stride, m, nq)
}

// fusedValues: no value kernel yet on amd64 (see accum.go).
func fusedValues(Type) bool { return false }

func accumulateRowsAsm(t Type, acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	accumulateRowsGo(t, acc, accStride, p, pStride, nq, src, stride, m)
}
