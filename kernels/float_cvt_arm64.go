//go:build !purego

package kernels

import "encoding/binary"

// Stubs in float_cvt_arm64.s. n is a multiple of 8 (0 allowed); the Go
// wrappers below do the remaining n%8 values.

// f32ToF16NEON stores F32ToF16(src[i]) at dst[2i:] for i < n: FCVTN
// (round to nearest even, subnormal halves, overflow to Inf) with each NaN
// rewritten to sign|0x7e00 as F32ToF16 does.
//
//go:noescape
func f32ToF16NEON(dst *byte, src *float32, n int)

// f16ToF32NEON sets dst[i] = F16ToF32(src[2i:]) for i < n (FCVTL: exact, a
// NaN quieted with sign and payload kept).
//
//go:noescape
func f16ToF32NEON(dst *float32, src *byte, n int)

// f32ToBF16NEON stores F32ToBF16(src[i]) at dst[2i:] for i < n: round to
// nearest even on the bits (overflow to Inf, subnormals kept), a NaN
// truncated and made quiet (|0x40), bit for bit.
//
//go:noescape
func f32ToBF16NEON(dst *byte, src *float32, n int)

// bf16ToF32NEON sets dst[i] = BF16ToF32(src[2i:]) for i < n (exact, NaN
// payloads kept).
//
//go:noescape
func bf16ToF32NEON(dst *float32, src *byte, n int)

// quantizeRowF16NEON is quantizeRowF16Generic (QuantizeRow(F16)).
func quantizeRowF16NEON(dst []byte, src []float32) {
	n8 := len(src) &^ 7
	if n8 > 0 {
		f32ToF16NEON(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(src); i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(src[i]))
	}
}

// dequantizeRowF16NEON is dequantizeRowF16Generic (DequantizeRow(F16)).
func dequantizeRowF16NEON(dst []float32, src []byte) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		f16ToF32NEON(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = f16At(src[2*i:])
	}
}

// quantizeRowBF16NEON is quantizeRowBF16Generic (QuantizeRow(BF16)).
func quantizeRowBF16NEON(dst []byte, src []float32) {
	n8 := len(src) &^ 7
	if n8 > 0 {
		f32ToBF16NEON(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(src); i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(src[i]))
	}
}

// dequantizeRowBF16NEON is dequantizeRowBF16Generic (DequantizeRow(BF16)).
func dequantizeRowBF16NEON(dst []float32, src []byte) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		bf16ToF32NEON(&dst[0], &src[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = bf16AtARM64(src[2*i:])
	}
}
