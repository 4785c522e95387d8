package kernels

import (
	"fmt"
	"math"
)

// RMSNorm sets dst[i] = x[i] * scale with scale = 1/sqrt(mean(x^2) + eps),
// like ggml_compute_forward_rms_norm_f32: the squares are rounded to float32
// and summed in float64, the mean is rounded to float32, and
// scale = 1.0f/sqrtf(mean+eps) in float32. There is no weight; multiply by
// the norm weight afterwards with Mul. The assembly kernels keep the float32
// squares and the float64 sum and differ from the generic one only in the
// order of the float64 additions (far inside tolRMSNorm).
//
// Preconditions (panics otherwise): len(dst) == len(x) > 0, eps >= 0. dst may
// alias x.
func RMSNorm(dst, x []float32, eps float32) {
	if len(dst) != len(x) || len(x) == 0 {
		panic(fmt.Sprintf("kernels: RMSNorm lengths dst=%d x=%d (must be equal and non-zero)", len(dst), len(x)))
	}
	if !(eps >= 0) {
		panic(fmt.Sprintf("kernels: RMSNorm eps=%v must be >= 0", eps))
	}
	active.rmsNorm(dst, x, eps)
}

func rmsNormGeneric(dst, x []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	// sqrt of the float64 widening then rounded once is the correctly
	// rounded sqrtf.
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = v * scale
	}
}
