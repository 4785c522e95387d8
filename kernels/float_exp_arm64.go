//go:build !purego

package kernels

import "math"

// Stubs in float_exp_arm64.s. Each processes the first n values, n a
// multiple of 8 and > 0; the wrappers below do the rest in Go. The
// exponential is the polynomial of the AVX2 kernels (ggml_v_expf's
// algorithm, about 1.5 ulp, with the same fused steps, so the same bits as
// expSumAVX2 and swiGLUAVX2) in place of the generic correctly rounded
// expf; the results stay within tolElementwise (SwiGLU) and tolSoftMax of
// the generic kernels, as the AVX2 ones do.

// swiGLUF32NEON sets dst[i] = gate[i]/(1+exp(-gate[i])) * up[i]; dst may
// equal gate or up but must not otherwise overlap them.
//
//go:noescape
func swiGLUF32NEON(dst, gate, up *float32, n int)

// expSumF32NEON sets x[i] = exp(x[i]-m) and returns the float64 sum of the
// results (SoftMax's second pass), in another order than the generic one.
//
//go:noescape
func expSumF32NEON(x *float32, n int, m float32) float64

// maxF32NEON returns the largest of x[:n]; x must not hold NaN (FMAX would
// return it).
//
//go:noescape
func maxF32NEON(x *float32, n int) float32

func swiGLUNEON(dst, gate, up []float32) {
	gate, up = gate[:len(dst)], up[:len(dst)]
	n8 := len(dst) &^ 7
	if n8 > 0 {
		swiGLUF32NEON(&dst[0], &gate[0], &up[0], n8)
	}
	swiGLUGeneric(dst[n8:], gate[n8:], up[n8:])
}

// softMaxNEON is softMaxGeneric with the max, the exponentials and the
// final scaling in NEON; the values past the last multiple of 8 use the
// scalar expf. Within tolSoftMax of the generic one. Like SoftMax it needs
// at least one finite entry and no NaN.
func softMaxNEON(x []float32) {
	n8 := len(x) &^ 7
	vmax := float32(math.Inf(-1))
	if n8 > 0 {
		vmax = maxF32NEON(&x[0], n8)
	}
	for _, v := range x[n8:] {
		if v > vmax {
			vmax = v
		}
	}
	var sum float64
	if n8 > 0 {
		sum = expSumF32NEON(&x[0], n8, vmax)
	}
	for i := n8; i < len(x); i++ {
		e := float32(math.Exp(float64(x[i] - vmax)))
		x[i] = e
		sum += float64(e)
	}
	scaleNEON(x, float32(1/sum))
}
