//go:build !purego

package turbo

import "unsafe"

// scoreTCQ3NEON and scoreTCQ2NEON (score_arm64.s): NEON fused scoring of
// n >= 0 one-block rows, srcStride bytes apart, against four queries (q:
// 4×128 float32, all four read), storing the first nq (1..4) sums of row r
// at dst + j·dstStride + 4r (dstStride in bytes). The sums are float32,
// 4-lane fused multiply-adds in 16 chains and a fixed tree, within tolScore
// of scoreRowsGo. Every load lies inside its block or q.

//go:noescape
func scoreTCQ3NEON(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTCQ2NEON(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

// fusedTCQ reports whether t has fused NEON kernels (ScoreRows4,
// AccumulateRows4) at a family's level impl: the TCQ types, whose pair
// table would otherwise be evicted by the expansion's stores (see
// score.go), at the NEON level.
func fusedTCQ(t Type, impl int) bool {
	return impl == levelNEON && (t == Turbo3TCQ || t == Turbo2TCQ)
}

// fusedScores: TCQ and, from row records (scalar_arm64.go, with the
// instruction counts), the scalar types, all at the NEON level.
func fusedScores(t Type) bool {
	return fusedTCQ(t, scoreImpl) || (scoreImpl == levelNEON && isScalar(t))
}

func scoreRowsAsm(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	if isScalar(t) {
		scoreScalar(t, dst, dstStride, q, nq, src, stride, m)
		return
	}
	d, qp, s := unsafe.SliceData(dst), unsafe.SliceData(q), unsafe.SliceData(src)
	if t == Turbo3TCQ {
		scoreTCQ3NEON(d, 4*dstStride, qp, s, stride, m, nq)
		return
	}
	scoreTCQ2NEON(d, 4*dstStride, qp, s, stride, m, nq)
}
