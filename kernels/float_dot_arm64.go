//go:build !purego

package kernels

import (
	"encoding/binary"
	"unsafe"
)

// Stubs in float_dot_arm64.s. n is a multiple of 8 (0 allowed); the Go
// wrappers below do the remaining n%8 values.

// dotF32NEON returns sum(float64(float32(a[i]*b[i]))) over n values, the
// products rounded to float32 as vecDotF32Generic rounds them and summed in
// eight float64 lanes (lane i%8), summed as ((l0+l2)+(l4+l6)) + ((l1+l3)+(l5+l7)). Only the float64
// summation order differs from generic.
//
//go:noescape
func dotF32NEON(a, b *float32, n int) float64

// dotF16NEON is dotF32NEON on fp16 operands widened exactly (FCVTL), as
// vecDotF16Generic.
//
//go:noescape
func dotF16NEON(a, b *byte, n int) float64

// dotBF16NEON is dotF32NEON on bf16 operands widened exactly (a bf16 is
// the top half of a float32), as vecDotBF16Generic.
//
//go:noescape
func dotBF16NEON(a, b *byte, n int) float64

// dotF32x4NEON sets out[c] to dotF32NEON(w, x+c*xStride, n) bit for bit
// for c < 4, reading w once (n a multiple of 8, the rows little-endian
// float32, possibly unaligned). Columns at or past nc (1..4) recompute
// column 0.
//
//go:noescape
func dotF32x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)

// dotF16x4NEON is dotF32x4NEON for fp16 rows (dotF16NEON per column).
//
//go:noescape
func dotF16x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)

// dotBF16x4NEON is dotF32x4NEON for bf16 rows (dotBF16NEON per column).
//
//go:noescape
func dotBF16x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)

// bf16AtARM64 reads the little-endian bf16 at b[0:2] as float32.
func bf16AtARM64(b []byte) float32 { return BF16ToF32(binary.LittleEndian.Uint16(b)) }

// f32Ptr views the little-endian float32 row b (possibly unaligned, which
// arm64 allows) as its first element; b must not be empty.
func f32Ptr(b []byte) *float32 { return (*float32)(unsafe.Pointer(unsafe.SliceData(b))) }

func vecDotF32NEON(n int, w, x []byte) float32 {
	n8 := n &^ 7
	var s float64
	if n8 > 0 {
		s = dotF32NEON(f32Ptr(w), f32Ptr(x), n8)
	}
	for i := n8; i < n; i++ {
		s += float64(f32At(w[4*i:]) * f32At(x[4*i:]))
	}
	return float32(s)
}

func vecDotF16NEON(n int, w, x []byte) float32 {
	n8 := n &^ 7
	var s float64
	if n8 > 0 {
		s = dotF16NEON(&w[0], &x[0], n8)
	}
	for i := n8; i < n; i++ {
		s += float64(f16At(w[2*i:]) * f16At(x[2*i:]))
	}
	return float32(s)
}

func vecDotBF16NEON(n int, w, x []byte) float32 {
	n8 := n &^ 7
	var s float64
	if n8 > 0 {
		s = dotBF16NEON(&w[0], &x[0], n8)
	}
	for i := n8; i < n; i++ {
		s += float64(bf16AtARM64(w[2*i:]) * bf16AtARM64(x[2*i:]))
	}
	return float32(s)
}

// vecDotNF32NEON, vecDotNF16NEON and vecDotNBF16NEON are the vecDotNFuncs
// for F32, F16 and BF16: the assembly sums the first n&^7 values of up to
// four columns, then each column's tail is added exactly as the
// one-column dot (vecDotF32NEON, ...) adds it, so out[c] has its bits.
func vecDotNF32NEON(n int, w, x []byte, xStride int, out []float32) {
	n8 := n &^ 7
	var s [4]float64
	if n8 > 0 {
		dotF32x4NEON(&w[0], &x[0], xStride, n8, len(out), &s)
	}
	for c := range out {
		xc, v := x[c*xStride:], s[c]
		for i := n8; i < n; i++ {
			v += float64(f32At(w[4*i:]) * f32At(xc[4*i:]))
		}
		out[c] = float32(v)
	}
}

func vecDotNF16NEON(n int, w, x []byte, xStride int, out []float32) {
	n8 := n &^ 7
	var s [4]float64
	if n8 > 0 {
		dotF16x4NEON(&w[0], &x[0], xStride, n8, len(out), &s)
	}
	for c := range out {
		xc, v := x[c*xStride:], s[c]
		for i := n8; i < n; i++ {
			v += float64(f16At(w[2*i:]) * f16At(xc[2*i:]))
		}
		out[c] = float32(v)
	}
}

func vecDotNBF16NEON(n int, w, x []byte, xStride int, out []float32) {
	n8 := n &^ 7
	var s [4]float64
	if n8 > 0 {
		dotBF16x4NEON(&w[0], &x[0], xStride, n8, len(out), &s)
	}
	for c := range out {
		xc, v := x[c*xStride:], s[c]
		for i := n8; i < n; i++ {
			v += float64(bf16AtARM64(w[2*i:]) * bf16AtARM64(xc[2*i:]))
		}
		out[c] = float32(v)
	}
}

func dotNEON(a, b []float32) float32 {
	b = b[:len(a)]
	n8 := len(a) &^ 7
	var s float64
	if n8 > 0 {
		s = dotF32NEON(&a[0], &b[0], n8)
	}
	for i := n8; i < len(a); i++ {
		s += float64(a[i] * b[i])
	}
	return float32(s)
}
