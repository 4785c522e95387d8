//go:build !purego

package kernels

// Register-tiled GEMM micro-kernels (gemm_legacy_amd64.s for Q4_0 and Q8_0,
// gemm_k_amd64.s for Q4_K and Q6_K): each call computes a tile of four
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
func gemmQ4_0QVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ8_0VNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ4_KVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

//go:noescape
func gemmQ6_KVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

// The GEMM paths of the avx512vnni level. Q4_0 and Q8_0 weights are
// made unsigned (nibble q = value + 8; q8 byte + 128), the bias coming off
// through the packed activation sums.
var (
	gemmQ4_0 = gemmKernel{gemmQ4_0QVNNI, func(dst, x []byte, xStride, n int) { packQ8_0Quads(dst, x, xStride, n, 8) }, 512, gemmRecordQ8_0Quad}
	gemmQ8_0 = gemmKernel{gemmQ8_0VNNI, func(dst, x []byte, xStride, n int) { packQ8_0Panel(dst, x, xStride, n, 128) }, 128, gemmRecordQ8_0}
	gemmQ4_K = gemmKernel{gemmQ4_KVNNI, packQ8_KPanel, QK_K, gemmRecordQ8_K}
	gemmQ6_K = gemmKernel{gemmQ6_KVNNI, packQ8_KPanel, QK_K, gemmRecordQ8_K}
)

// registerGEMMAMD64 puts the GEMM tiles in the avx512vnni row (they are
// AVX-512 VNNI). They match that level's VecDot bit for bit (for Q4_0 and
// Q8_0 also the avx2 one's, whose block order is the same).
func registerGEMMAMD64(t *levelTables) {
	vnni := &t[AVX512VNNI]
	vnni.gemm[Q4_0] = &gemmQ4_0
	vnni.gemm[Q8_0] = &gemmQ8_0
	vnni.gemm[Q4_K] = &gemmQ4_K
	vnni.gemm[Q6_K] = &gemmQ6_K
}
