//go:build !purego

package kernels

// scaleMaxF32NEON sets x[i] *= s for i < n and returns the largest
// product; n is a multiple of 8 and > 0, x must not hold NaN (FMAX would
// return it). The products are scaleGeneric's and the maximum is exact, so
// it returns the generic bits.
//
//go:noescape
func scaleMaxF32NEON(x *float32, n int, s float32) float32

// scaleMax8 and expSum8 are onlineSoftMaxVec's vector passes here: NEON,
// with the exponentials of SoftMax's pass.
func scaleMax8(x *float32, n int, s float32) float32 { return scaleMaxF32NEON(x, n, s) }

func expSum8(x *float32, n int, m float32) float64 { return expSumF32NEON(x, n, m) }
