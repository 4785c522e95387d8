//go:build !purego

package kernels

// Register-tiled GEMM micro-kernels (gemm_legacy_amd64.s for Q4_0 and Q8_0,
// gemm_kquant_amd64.s for Q4_K and Q6_K): each call computes a tile of four
// weight rows × four activation columns,
//
//	for r := range 4 {
//		for c := range 4 {
//			dst[c*dstStride+r] = VecDot(t, ng*values, row r of w, column c)
//		}
//	}
//
// where row r of w starts at w + r*wStride (t.RowBytes(n) bytes, read in
// place, never repacked) and the four columns are one panel packed by the
// type's packer (ng records). Every result has the bits of the
// single-column VecDot of the avx512 implementation (see the .s files for
// the summation order they share with it). ng may be 0 (results 0).
// Preconditions: the CPU has AVX-512 F, BW, VL and VNNI; the four rows,
// the panel and dst's four columns of four floats lie inside their slices.

//go:noescape
func gemmQ4_0QAVX512(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ8_0AVX512(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ4_KAVX512(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ6_KAVX512(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

// The GEMM paths of the avx512 implementation. Q4_0 and Q8_0 weights are
// made unsigned (nibble q = value + 8; q8 byte + 128), the bias coming off
// through the packed activation sums.
var (
	gemmQ4_0 = gemmKernel{gemmQ4_0QAVX512, func(dst, x []byte, xStride, n int) { packQ8_0Quads(dst, x, xStride, n, 8) }, 512, gemmRecordQ8_0Quad}
	gemmQ8_0 = gemmKernel{gemmQ8_0AVX512, func(dst, x []byte, xStride, n int) { packQ8_0Panel(dst, x, xStride, n, 128) }, 128, gemmRecordQ8_0}
	gemmQ4_K = gemmKernel{gemmQ4_KAVX512, packQ8_KPanel, QK_K, gemmRecordQ8_K}
	gemmQ6_K = gemmKernel{gemmQ6_KAVX512, packQ8_KPanel, QK_K, gemmRecordQ8_K}
)

// gemmFor returns the GEMM path for weights of type t under the active
// implementation, or nil when there is none (MatMul then runs VecDotN).
// The kernels are AVX-512 VNNI, so only the "avx512" implementation on a
// VNNI CPU has them; they match its VecDot bit for bit (for Q4_0 and Q8_0
// also the avx2 one's, whose block order is the same).
func gemmFor(t DType) *gemmKernel {
	if activeName != "avx512" || !cpuFeatures.AVX512VNNI {
		return nil
	}
	switch t {
	case Q4_0:
		return &gemmQ4_0
	case Q8_0:
		return &gemmQ8_0
	case Q4_K:
		return &gemmQ4_K
	case Q6_K:
		return &gemmQ6_K
	}
	return nil
}
