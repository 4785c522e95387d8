//go:build !purego

package kernels

import "math"

// scaleMaxAVX2 sets x[i] *= s for i < n and returns the largest product;
// n is a multiple of 8 and > 0, x must not hold NaN (VMAXPS would return
// its second operand). The products are those of scaleGeneric, and the
// maximum is exact, so it returns the generic bits.
//
//go:noescape
func scaleMaxAVX2(x *float32, n int, s float32) float32

// onlineSoftMaxAMD64 is onlineSoftMaxGeneric with the scaling, the maximum
// and the exponentials (expSumAVX2, SoftMax's pass) vectorized; the values
// past the last multiple of 8 use the scalar path. There is no 512-bit
// variant, as for SoftMax (float_amd64.go): a chunk is 64 scores, 8
// iterations of the 256-bit loops, and the avx512 table inherits this one.
func onlineSoftMaxAMD64(x []float32, s, m float32) (float32, float64) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		if v := scaleMaxAVX2(&x[0], n8, s); v > m {
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
	sum := expSumAVX2(&x[0], n8, m)
	return m, sum + expSumTail(x[n8:], m)
}
