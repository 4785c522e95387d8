package kernels

import (
	"fmt"
	"math"
)

// checkLen3 panics unless a and b are exactly as long as dst.
func checkLen3(op string, dst, a, b []float32) {
	if len(a) != len(dst) || len(b) != len(dst) {
		panic(fmt.Sprintf("kernels: %s lengths dst=%d a=%d b=%d differ", op, len(dst), len(a), len(b)))
	}
}

// Add sets dst[i] = a[i] + b[i] (ggml_vec_add_f32). All three slices must
// have the same length (panics otherwise); dst may alias a or b.
func Add(dst, a, b []float32) {
	checkLen3("Add", dst, a, b)
	active.add(dst, a, b)
}

// Mul sets dst[i] = a[i] * b[i] (ggml_vec_mul_f32). All three slices must
// have the same length (panics otherwise); dst may alias a or b.
func Mul(dst, a, b []float32) {
	checkLen3("Mul", dst, a, b)
	active.mul(dst, a, b)
}

// Scale sets x[i] *= s in place (ggml_vec_scale_f32).
func Scale(x []float32, s float32) { active.scale(x, s) }

// SwiGLU sets dst[i] = SiLU(gate[i]) * up[i] (ggml_vec_swiglu_f32). All three
// slices must have the same length (panics otherwise); dst may alias gate or
// up.
func SwiGLU(dst, gate, up []float32) {
	checkLen3("SwiGLU", dst, gate, up)
	active.swiGLU(dst, gate, up)
}

// SiLU returns x/(1+exp(-x)) in float32 like ggml_silu_f32; the exponential
// is math.Exp rounded to float32 (a correctly rounded expf).
func SiLU(x float32) float32 {
	return x / (1 + float32(math.Exp(float64(-x))))
}

// ArgMax returns the index of the largest value, the lowest index on ties, or
// -1 for an empty slice. NaNs are never selected unless all values are NaN,
// in which case 0 is returned.
func ArgMax(x []float32) int {
	if len(x) == 0 {
		return -1
	}
	best := 0
	for i, v := range x {
		if v > x[best] || (x[best] != x[best] && v == v) {
			best = i
		}
	}
	return best
}

func addGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func mulGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func scaleGeneric(x []float32, s float32) {
	for i := range x {
		x[i] *= s
	}
}

func swiGLUGeneric(dst, gate, up []float32) {
	gate, up = gate[:len(dst)], up[:len(dst)]
	for i := range dst {
		dst[i] = SiLU(gate[i]) * up[i]
	}
}
