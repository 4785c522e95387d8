package kernels

import "fmt"

// VecDot returns the dot product of one weight row w (n values of type t)
// with the activations x (n values of type t.VecDotType(), for example made
// by QuantizeRow). It follows ggml's vec_dot for t (the scalar *_generic
// routines in ggml-cpu/quants.c, ggml_vec_dot_f32/f16/bf16 in vec.cpp):
// quantized blocks are accumulated in integers and their float scales are
// applied per block at the end; float types accumulate float32 products in
// float64.
//
// Preconditions (violations panic): t.Supported(), n >= 0 is a multiple of
// t.BlockSize(), len(w) >= t.RowBytes(n), len(x) >= t.VecDotType().RowBytes(n).
// Extra bytes are ignored.
func VecDot(t DType, n int, w, x []byte) float32 {
	wn, xn := checkVecDot("VecDot", t, n, len(w), x)
	return active.vecDot[t](n, w[:wn], x[:xn])
}

// MatVec computes dst[r] = VecDot(t, n, w[r*rb:(r+1)*rb], x) for every r in
// [0, len(dst)), where rb = t.RowBytes(n): w holds len(dst) contiguous rows.
//
// Preconditions (violations panic): those of VecDot, with
// len(w) >= len(dst)*t.RowBytes(n). dst must not overlap w or x.
func MatVec(t DType, dst []float32, w, x []byte, n int) {
	if len(dst) == 0 {
		return
	}
	rb, xn := checkVecDot("MatVec", t, n, -1, x)
	if rows := len(w) / max(rb, 1); rb > 0 && rows < len(dst) {
		panic(fmt.Sprintf("kernels: MatVec %v: %d rows of %d bytes need %d bytes, have %d", t, len(dst), rb, len(dst)*rb, len(w)))
	}
	f := active.vecDot[t]
	x = x[:xn]
	for r := range dst {
		dst[r] = f(n, w[r*rb:(r+1)*rb], x)
	}
}

// checkVecDot validates the arguments of VecDot and MatVec and returns the
// bytes one weight row and the activations take. wlen < 0 skips the weight
// length check.
func checkVecDot(op string, t DType, n, wlen int, x []byte) (wn, xn int) {
	if !t.Supported() {
		panic(fmt.Sprintf("kernels: %s not implemented for %v", op, t))
	}
	bs := t.BlockSize()
	if n < 0 || n%bs != 0 {
		panic(fmt.Sprintf("kernels: %s %v: n=%d is not a multiple of the block size %d", op, t, n, bs))
	}
	wn, xn = t.RowBytes(n), t.VecDotType().RowBytes(n)
	if wlen >= 0 && wlen < wn {
		panic(fmt.Sprintf("kernels: %s %v: %d weights need %d bytes, have %d", op, t, n, wn, wlen))
	}
	if len(x) < xn {
		panic(fmt.Sprintf("kernels: %s %v: %d activations of %v need %d bytes, have %d", op, t, n, t.VecDotType(), xn, len(x)))
	}
	return wn, xn
}

// vecDotGeneric holds the reference dot product of every weight type.
var vecDotGeneric = [dtypeLimit]vecDotFunc{
	F32:    vecDotF32Generic,
	F16:    vecDotF16Generic,
	BF16:   vecDotBF16Generic,
	Q4_0:   vecDotQ4_0Q8_0Generic,
	Q4_1:   vecDotQ4_1Q8_1Generic,
	Q5_0:   vecDotQ5_0Q8_0Generic,
	Q5_1:   vecDotQ5_1Q8_1Generic,
	IQ4_NL: vecDotIQ4NLQ8_0Generic,
	Q8_0:   vecDotQ8_0Q8_0Generic,
	Q2_K:   vecDotQ2_KQ8_KGeneric,
	Q3_K:   vecDotQ3_KQ8_KGeneric,
	Q4_K:   vecDotQ4_KQ8_KGeneric,
	Q5_K:   vecDotQ5_KQ8_KGeneric,
	Q6_K:   vecDotQ6_KQ8_KGeneric,
}
