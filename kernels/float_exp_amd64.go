//go:build !purego

package kernels

import "math"

// Stubs in float_exp_amd64.s (AVX2+FMA). Both process the first n values,
// n a multiple of 8 and > 0, with ggml_v_expf's polynomial exp (about 1.5
// ulp, see EXP8) in place of the generic correctly rounded expf.

// swiGLUAVX2 sets dst[i] = gate[i]/(1+exp(-gate[i])) * up[i], within
// tolElementwise of swiGLUGeneric; dst may equal gate or up.
//
//go:noescape
func swiGLUAVX2(dst, gate, up *float32, n int)

// expSumAVX2 sets x[i] = exp(x[i]-m) and returns the float64 sum of the
// results (SoftMax's second pass).
//
//go:noescape
func expSumAVX2(x *float32, n int, m float32) float64

func swiGLUAMD64(dst, gate, up []float32) {
	n8 := len(dst) &^ 7
	if n8 > 0 {
		swiGLUAVX2(&dst[0], &gate[0], &up[0], n8)
	}
	swiGLUGeneric(dst[n8:], gate[n8:], up[n8:])
}

// softMaxAMD64 is softMaxGeneric with the max, the exponentials and the
// final scaling vectorized; the tail past the last multiple of 8 uses the
// scalar expf. Within tolSoftMax of the generic one.
func softMaxAMD64(x []float32) {
	n8 := len(x) &^ 7
	vmax := float32(math.Inf(-1))
	if n8 > 0 {
		vmax = maxAVX2(&x[0], n8)
	}
	for _, v := range x[n8:] {
		if v > vmax {
			vmax = v
		}
	}
	var sum float64
	if n8 > 0 {
		sum = expSumAVX2(&x[0], n8, vmax)
	}
	for i := n8; i < len(x); i++ {
		e := float32(math.Exp(float64(x[i] - vmax)))
		x[i] = e
		sum += float64(e)
	}
	scaleAMD64(x, float32(1/sum))
}
