package kernels

import "fmt"

// Dot returns sum(a[i]*b[i]) like ggml_vec_dot_f32's scalar path: each
// product rounded to float32, accumulated in float64, the sum rounded to
// float32. Precondition (panics otherwise): len(a) == len(b).
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("kernels: Dot of lengths %d and %d", len(a), len(b)))
	}
	return active.dot(a, b)
}

func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var sum float64
	for i, v := range a {
		sum += float64(v * b[i])
	}
	return float32(sum)
}
