//go:build !purego

package kernels

import "encoding/binary"

// Stubs in float_cvt_amd64.s (AVX2+F16C): row conversions of the first n
// values, n a multiple of 8 and > 0, bit-exact with F32ToF16, F16ToF32,
// F32ToBF16 and BF16ToF32 for every input (NaN, Inf and subnormals
// included). src and dst must not overlap.

//go:noescape
func f32ToF16AVX2(dst *byte, src *float32, n int)

//go:noescape
func f16ToF32AVX2(dst *float32, src *byte, n int)

//go:noescape
func f32ToBF16AVX2(dst *byte, src *float32, n int)

//go:noescape
func bf16ToF32AVX2(dst *float32, src *byte, n int)

// quantizeRowF16AMD64 is quantizeRowF16Generic (QuantizeRow(F16)).
func quantizeRowF16AMD64(dst []byte, src []float32) {
	n8 := len(src) &^ 7
	if n8 > 0 {
		f32ToF16AVX2(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(src); i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(src[i]))
	}
}

// dequantizeRowF16AMD64 is dequantizeRowF16Generic (DequantizeRow(F16)).
func dequantizeRowF16AMD64(dst []float32, src []byte) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		f16ToF32AVX2(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = f16At(src[2*i:])
	}
}

// quantizeRowBF16AMD64 is quantizeRowBF16Generic (QuantizeRow(BF16)).
func quantizeRowBF16AMD64(dst []byte, src []float32) {
	n8 := len(src) &^ 7
	if n8 > 0 {
		f32ToBF16AVX2(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(src); i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(src[i]))
	}
}

// dequantizeRowBF16AMD64 is dequantizeRowBF16Generic (DequantizeRow(BF16)).
func dequantizeRowBF16AMD64(dst []float32, src []byte) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		bf16ToF32AVX2(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = bf16At(src[2*i:])
	}
}
