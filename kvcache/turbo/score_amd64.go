//go:build !purego

package turbo

import "unsafe"

// scoreKernel (score_amd64.s) scores n one-block rows against four queries
// (q: 4×128 float32), storing the first nq sums of row r at
// dst + j·dstStride + 4r (bytes). Blocks are read through the 4-byte
// windows of the ExpandRows kernels, all inside the block.
type scoreKernel func(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

// AVX-512: the TCQ types assemble 16 levels per ZMM from the level-pair
// table; the scalar types decode 32 per step with VPERMPS.

//go:noescape
func scoreTCQ3x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTCQ2x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo2x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo3x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo4x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

// The AVX2 forms: 8 values per YMM, two accumulators per query (values
// 16i.. and 16i+8..) added before the horizontal sum.

//go:noescape
func scoreTCQ3x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTCQ2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo3x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

//go:noescape
func scoreTurbo4x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)

// scoreKernels[level][t-Turbo3] is the kernel for a type at an assembly
// level; an entry is set only where it measured no slower than expanding
// and dotting (score.go).
var scoreKernels = [expandAVX512 + 1][Turbo2TCQ - Turbo3 + 1]scoreKernel{
	expandAVX2: {
		Turbo3 - Turbo3: scoreTurbo3x4AVX2, Turbo4 - Turbo3: scoreTurbo4x4AVX2, Turbo2 - Turbo3: scoreTurbo2x4AVX2,
		Turbo3TCQ - Turbo3: scoreTCQ3x4AVX2, Turbo2TCQ - Turbo3: scoreTCQ2x4AVX2,
	},
	expandAVX512: {
		Turbo3 - Turbo3: scoreTurbo3x4AVX512, Turbo4 - Turbo3: scoreTurbo4x4AVX512, Turbo2 - Turbo3: scoreTurbo2x4AVX512,
		Turbo3TCQ - Turbo3: scoreTCQ3x4AVX512, Turbo2TCQ - Turbo3: scoreTCQ2x4AVX512,
	},
}

func fusedScores(t Type) bool {
	return scoreImpl >= levelAVX2 && t.Valid() && scoreKernels[scoreImpl][t-Turbo3] != nil
}

// scoreRowsAsm runs the kernel for t at the current level; the caller has
// checked the bounds and that fusedScores(t) holds.
func scoreRowsAsm(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	k := scoreKernels[scoreImpl][t-Turbo3]
	k(unsafe.SliceData(dst), 4*dstStride, unsafe.SliceData(q), unsafe.SliceData(src), stride, m, nq)
}
