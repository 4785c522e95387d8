//go:build !purego

package kernels

import "math"

// Stubs in float_vec_arm64.s. n is a multiple of 8 (0 allowed); the Go
// wrappers below do the remaining n%8 values.

// addF32NEON sets dst[i] = a[i] + b[i] for i < n (addGeneric, bit for
// bit); dst may alias a or b.
//
//go:noescape
func addF32NEON(dst, a, b *float32, n int)

// mulF32NEON sets dst[i] = a[i] * b[i] for i < n (mulGeneric).
//
//go:noescape
func mulF32NEON(dst, a, b *float32, n int)

// scaleF32NEON sets x[i] *= s for i < n (scaleGeneric).
//
//go:noescape
func scaleF32NEON(x *float32, n int, s float32)

func addNEON(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n8 := len(dst) &^ 7
	if n8 > 0 {
		addF32NEON(&dst[0], &a[0], &b[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = a[i] + b[i]
	}
}

func mulNEON(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n8 := len(dst) &^ 7
	if n8 > 0 {
		mulF32NEON(&dst[0], &a[0], &b[0], n8)
	}
	for i := n8; i < len(dst); i++ {
		dst[i] = a[i] * b[i]
	}
}

func scaleNEON(x []float32, s float32) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		scaleF32NEON(&x[0], n8, s)
	}
	for i := n8; i < len(x); i++ {
		x[i] *= s
	}
}

// Stubs in float_vec_arm64.s (RMSNorm). n is a multiple of 8 (0 allowed); the Go
// wrapper does the remaining n%8 values.

// sumSquaresNEON returns sum(float64(float32(x[i]*x[i]))) over n values:
// every square rounded to float32 as rmsNormGeneric rounds it, then summed
// in eight float64 lanes (lane i%8) folded as ((l0+l2)+(l4+l6)) +
// ((l1+l3)+(l5+l7)), dotF32NEON's order. Only the order of the float64
// additions differs from generic.
//
//go:noescape
func sumSquaresNEON(x *float32, n int) float64

// scaleToNEON sets dst[i] = x[i]*s for i < n, one float32 rounding each
// (bit for bit the generic loop); dst may equal x but must not otherwise
// overlap it.
//
//go:noescape
func scaleToNEON(dst, x *float32, n int, s float32)

// rmsNormNEON is rmsNormGeneric with the sum of squares and the final
// scaling in NEON. The mean and the scale are computed in scalar Go exactly
// as there, so the result differs from the generic one only through the
// order of the float64 additions. The terms are non-negative, so any order
// is within n*2^-53 of the exact sum relatively; after the float32 rounding
// of the mean that moves a result by at most about one float32 ulp (far
// inside tolRMSNorm). dst may equal x.
func rmsNormNEON(dst, x []float32, eps float32) {
	dst = dst[:len(x)]
	n8 := len(x) &^ 7
	var sum float64
	if n8 > 0 {
		sum = sumSquaresNEON(&x[0], n8)
	}
	for _, v := range x[n8:] {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	if n8 > 0 {
		scaleToNEON(&dst[0], &x[0], n8, scale)
	}
	for i := n8; i < len(x); i++ {
		dst[i] = x[i] * scale
	}
}
