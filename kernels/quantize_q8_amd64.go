//go:build !purego

package kernels

// quantizeRowQ8_0AVX2 is quantizeRowQ8_0Generic in AVX2+F16C
// (quantize_q8_amd64.s), bit for bit: per 32-value block d = amax/127 as
// fp16 and q = round-half-even(x * (127/amax)), as ggml's x86
// quantize_row_q8_0 does. len(src) is a multiple of 32 and len(dst) at
// least 34 bytes per block; only those bytes are written. A block whose
// 127/amax overflows float32 (amax below about 3.7e-37) or that holds a
// NaN or Inf is unspecified, as in ggml and in the generic version.
//
//go:noescape
func quantizeRowQ8_0AVX2(dst []byte, src []float32)

// quantizeRowQ8_1AVX2 is quantizeRowQ8_1Generic in AVX2+F16C: the q8_0
// block plus s = fp16(float32(sum q) * d), 36 bytes per block, with the
// same preconditions as quantizeRowQ8_0AVX2.
//
//go:noescape
func quantizeRowQ8_1AVX2(dst []byte, src []float32)
