package kernels

import "encoding/binary"

// vecDotF32Generic is ggml_vec_dot_f32's scalar path: each float32 product is
// rounded to float32, then summed in float64.
func vecDotF32Generic(n int, w, x []byte) float32 {
	var sum float64
	for i := 0; i < n; i++ {
		sum += float64(f32At(w[4*i:]) * f32At(x[4*i:]))
	}
	return float32(sum)
}

// vecDotF16Generic is ggml_vec_dot_f16's scalar path: both operands widened
// to float32, the float32 product summed in float64.
func vecDotF16Generic(n int, w, x []byte) float32 {
	var sum float64
	for i := 0; i < n; i++ {
		a := F16ToF32(binary.LittleEndian.Uint16(w[2*i:]))
		b := F16ToF32(binary.LittleEndian.Uint16(x[2*i:]))
		sum += float64(a * b)
	}
	return float32(sum)
}

// vecDotBF16Generic is ggml_vec_dot_bf16's scalar path, as for f16.
func vecDotBF16Generic(n int, w, x []byte) float32 {
	var sum float64
	for i := 0; i < n; i++ {
		a := BF16ToF32(binary.LittleEndian.Uint16(w[2*i:]))
		b := BF16ToF32(binary.LittleEndian.Uint16(x[2*i:]))
		sum += float64(a * b)
	}
	return float32(sum)
}
