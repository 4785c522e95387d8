//go:build !purego

package kernels

import "math"

// scaleMaxF32NEON sets x[i] *= s for i < n and returns the largest
// product; n is a multiple of 8 and > 0, x must not hold NaN (FMAX would
// return it). The products are scaleGeneric's and the maximum is exact, so
// it returns the generic bits.
//
//go:noescape
func scaleMaxF32NEON(x *float32, n int, s float32) float32

// onlineSoftMaxNEON is onlineSoftMaxGeneric with the scaling, the maximum
// and the exponentials (expSumF32NEON, SoftMax's pass) in NEON; the values
// past the last multiple of 8 use the scalar path.
func onlineSoftMaxNEON(x []float32, s, m float32) (float32, float64) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		if v := scaleMaxF32NEON(&x[0], n8, s); v > m {
			m = v
		}
	}
	for i := n8; i < len(x); i++ {
		x[i] *= s
		if x[i] > m {
			m = x[i]
		}
	}
	if n8 == 0 || math.IsInf(float64(m), -1) {
		return m, expSumTail(x, m)
	}
	sum := expSumF32NEON(&x[0], n8, m)
	return m, sum + expSumTail(x[n8:], m)
}
