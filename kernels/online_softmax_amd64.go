//go:build !purego

package kernels

// scaleMaxAVX2 sets x[i] *= s for i < n and returns the largest product;
// n is a multiple of 8 and > 0, x must not hold NaN (VMAXPS would return
// its second operand). The products are those of scaleGeneric, and the
// maximum is exact, so it returns the generic bits.
//
//go:noescape
func scaleMaxAVX2(x *float32, n int, s float32) float32

// scaleMax8 and expSum8 are onlineSoftMaxVec's vector passes here: AVX2,
// with the exponentials of SoftMax's pass. There is no 512-bit variant,
// as for SoftMax (float_amd64.go): a chunk is 64 scores, 8 iterations of
// the 256-bit loops, and the avx512 table inherits this one.
func scaleMax8(x *float32, n int, s float32) float32 { return scaleMaxAVX2(x, n, s) }

func expSum8(x *float32, n int, m float32) float64 { return expSumAVX2(x, n, m) }
