package kernels

import "math"

// SoftMax replaces x with softmax(x) like ggml's soft_max (scale 1, no mask):
// max = the largest value, e[i] = expf(x[i]-max) in float32, their sum in
// float64, then every e[i] is multiplied by float32(1/sum). The generic
// kernel's expf is math.Exp rounded to float32; the AVX2 kernel uses the
// polynomial of ggml's SIMD builds (ggml_v_expf, about 1.5 ulp), as llama.cpp
// does on those CPUs, and stays within tolSoftMax of the generic one. An empty x is left alone; x must not contain NaN,
// and -Inf entries (masked positions) become 0 as long as one entry is finite.
func SoftMax(x []float32) {
	if len(x) == 0 {
		return
	}
	active.softMax(x)
}

func softMaxGeneric(x []float32) {
	vmax := float32(math.Inf(-1))
	for _, v := range x {
		if v > vmax {
			vmax = v
		}
	}
	var sum float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - vmax)))
		x[i] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for i := range x {
		x[i] *= inv
	}
}
