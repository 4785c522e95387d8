//go:build !purego

package turbo

import "unsafe"

// Stubs in accum_amd64.s: fused value sums, AVX-512 (32-value slices) and
// AVX2 (16-value slices). In Go terms, for j < 4,
// i < BlockSize and r < n in order,
//
//	aj[i] += float32(pj[r] * v_r[i])
//
// where v_r is the block at src[r*srcStride:] decoded as decodeBlock does,
// every product rounded before the add (VMULPS, VADDPS), so the result is
// accumulateRowsGo's bit for bit. Each aj must hold 128 floats and each pj
// n; heads may alias one another only by being equal (an absent head is
// passed as head 0 and computes the same values). Blocks are read through
// the 4-byte windows of the ExpandRows kernels, all inside the block.
type accKernel func(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTurbo2AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTurbo3AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTurbo4AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTCQ3AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTCQ2AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTurbo2AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTurbo3AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTCQ3AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

//go:noescape
func accTCQ2AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)

// accKernels[level][t-Turbo3] is the kernel for a type at an assembly
// level; turbo4 has none at AVX2 (see accum_amd64.s).
var accKernels = [expandAVX512 + 1][Turbo2TCQ - Turbo3 + 1]accKernel{
	expandAVX2: {
		Turbo3 - Turbo3: accTurbo3AVX2, Turbo2 - Turbo3: accTurbo2AVX2,
		Turbo3TCQ - Turbo3: accTCQ3AVX2, Turbo2TCQ - Turbo3: accTCQ2AVX2,
	},
	expandAVX512: {
		Turbo3 - Turbo3: accTurbo3AVX512, Turbo4 - Turbo3: accTurbo4AVX512, Turbo2 - Turbo3: accTurbo2AVX512,
		Turbo3TCQ - Turbo3: accTCQ3AVX512, Turbo2TCQ - Turbo3: accTCQ2AVX512,
	},
}

// fusedValues: every type with a kernel at the current level (each
// measured faster than expanding and summing; see score.go).
func fusedValues(t Type) bool {
	return accumImpl >= levelAVX2 && t.Valid() && accKernels[accumImpl][t-Turbo3] != nil
}

// accumulateRowsAsm runs the kernel for t at the current level; the
// caller has checked the bounds and that fusedValues(t) holds.
func accumulateRowsAsm(t Type, acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	var a, q [4]*float32
	for j := range 4 {
		h := j
		if j >= nq {
			h = 0
		}
		a[j], q[j] = &acc[h*accStride], &p[h*pStride]
	}
	k := accKernels[accumImpl][t-Turbo3]
	k(a[0], a[1], a[2], a[3], q[0], q[1], q[2], q[3], unsafe.SliceData(src), stride, m)
}
