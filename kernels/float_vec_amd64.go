//go:build !purego

package kernels

import "math"

// Stubs in float_vec_amd64.s (AVX2). Each processes the first n values, n a
// multiple of 8 and > 0. addAVX2 and mulAVX2 round like addGeneric and
// mulGeneric (bit-exact); dst may equal a or b but must not otherwise
// overlap them. scaleToAVX2 sets dst[i] = x[i]*s (dst may equal x).

//go:noescape
func addAVX2(dst, a, b *float32, n int)

//go:noescape
func mulAVX2(dst, a, b *float32, n int)

//go:noescape
func scaleToAVX2(dst, x *float32, n int, s float32)

// sumSquaresAVX2 returns sum(float64(x[i]*x[i])), each square rounded to
// float32 as in rmsNormGeneric, in a different float64 order.
//
//go:noescape
func sumSquaresAVX2(x *float32, n int) float64

// maxAVX2 returns the largest of x[:n]; x must not hold NaN.
//
//go:noescape
func maxAVX2(x *float32, n int) float32

func addAMD64(dst, a, b []float32) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		addAVX2(&dst[0], &a[0], &b[0], n8)
	}
	addGeneric(dst[n8:], a[n8:], b[n8:])
}

func mulAMD64(dst, a, b []float32) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		mulAVX2(&dst[0], &a[0], &b[0], n8)
	}
	mulGeneric(dst[n8:], a[n8:], b[n8:])
}

// scaleToAMD64 sets dst[i] = x[i]*s for i < len(x); dst may equal x.
func scaleToAMD64(dst, x []float32, s float32) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		scaleToAVX2(&dst[0], &x[0], n8, s)
	}
	dst = dst[:len(x)]
	for i := n8; i < len(x); i++ {
		dst[i] = x[i] * s
	}
}

func scaleAMD64(x []float32, s float32) { scaleToAMD64(x, x, s) }

// rmsNormAMD64 is rmsNormGeneric with the float64 sum of squares and the
// final scaling vectorized; the mean and the scale are computed in scalar
// code exactly as there, so the result differs from the generic one only
// through the order of the float64 additions (far inside tolRMSNorm).
func rmsNormAMD64(dst, x []float32, eps float32) {
	n8 := len(x) &^ 7
	var sum float64
	if n8 > 0 {
		sum = sumSquaresAVX2(&x[0], n8)
	}
	for _, v := range x[n8:] {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	scaleToAMD64(dst, x, scale)
}
