//go:build !purego

package kernels

import "unsafe"

// Stubs in float_dot_amd64.s (AVX2+FMA+F16C). Each computes the dot of the
// first n values of a and b, n a multiple of 8 and > 0, widening f16 and
// bf16 to float32 and accumulating with FMA in float32 lanes (ggml's AVX2
// ggml_vec_dot_f32/f16 order: four 8-lane accumulators; the exact order is
// described in float_dot_amd64.s). The reference is
// vecDotF32Generic / vecDotF16Generic / vecDotBF16Generic, which sum in
// float64; the two agree within tolVecDotImpl.

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotF16AVX2(a, b *byte, n int) float32

//go:noescape
func dotBF16AVX2(a, b *byte, n int) float32

// The two-column stubs set out[c] = dot(w, xc) over the first n values
// (n a multiple of 8 and > 0) for c < 2, reading w once, with exactly the
// bits of the single-column stub on xc.

//go:noescape
func dotF16x2AVX2(w, x0, x1 *byte, n int, out *[2]float32)

//go:noescape
func dotBF16x2AVX2(w, x0, x1 *byte, n int, out *[2]float32)

// f32s views the little-endian float32 row b as its first element. amd64 is
// little-endian and unaligned loads are legal, so no copy is needed.
func f32s(b []byte) *float32 { return (*float32)(unsafe.Pointer(unsafe.SliceData(b))) }

// tailF32/F16/BF16 return the float64 sum of the float32 products of values
// [from, n), the part after the last multiple of 8 that the assembly leaves.
func tailF32(w, x []byte, from, n int) (s float64) {
	for i := from; i < n; i++ {
		s += float64(f32At(w[4*i:]) * f32At(x[4*i:]))
	}
	return s
}

func tailF16(w, x []byte, from, n int) (s float64) {
	for i := from; i < n; i++ {
		s += float64(f16At(w[2*i:]) * f16At(x[2*i:]))
	}
	return s
}

func tailBF16(w, x []byte, from, n int) (s float64) {
	for i := from; i < n; i++ {
		s += float64(bf16At(w[2*i:]) * bf16At(x[2*i:]))
	}
	return s
}

func bf16At(b []byte) float32 { return BF16ToF32(uint16(b[0]) | uint16(b[1])<<8) }

func vecDotF32AMD64(n int, w, x []byte) float32 {
	n8 := n &^ 7
	if n8 == 0 {
		return float32(tailF32(w, x, 0, n))
	}
	s := dotF32AVX2(f32s(w), f32s(x), n8)
	if n8 == n {
		return s
	}
	return float32(float64(s) + tailF32(w, x, n8, n))
}

func vecDotF16AMD64(n int, w, x []byte) float32 {
	n8 := n &^ 7
	if n8 == 0 {
		return float32(tailF16(w, x, 0, n))
	}
	s := dotF16AVX2(&w[0], &x[0], n8)
	if n8 == n {
		return s
	}
	return float32(float64(s) + tailF16(w, x, n8, n))
}

func vecDotBF16AMD64(n int, w, x []byte) float32 {
	n8 := n &^ 7
	if n8 == 0 {
		return float32(tailBF16(w, x, 0, n))
	}
	s := dotBF16AVX2(&w[0], &x[0], n8)
	if n8 == n {
		return s
	}
	return float32(float64(s) + tailBF16(w, x, n8, n))
}

// dotAMD64 is Dot on the f32 dot kernel.
func dotAMD64(a, b []float32) float32 {
	n := len(a)
	if n == 0 {
		return 0
	}
	return vecDotF32AMD64(n, unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*n), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 4*n))
}

// vecDotNFloatAMD64 computes out[c] = single(n, w, column c) for the
// columns of x: pairs of columns through the two-column kernel of t (F16
// or BF16, element size esize) over the first n&^7 values, plus the
// scalar tail per column with tail exactly as single adds it, and a lone
// last column through single. Every out[c] therefore has the bits of the
// single dot on column c, however many columns there are. (A four-column
// kernel cannot keep the single dot's four accumulators per column in
// sixteen YMM registers.) The kernels are called directly (not through a
// func value) so that res stays on the stack.
func vecDotNFloatAMD64(t DType, tail func(w, x []byte, from, n int) float64, single vecDotFunc, esize, n int, w, x []byte, xStride int, out []float32) {
	nc := len(out)
	n8 := n &^ 7
	xn := esize * n
	c := 0
	for ; n8 > 0 && c+2 <= nc; c += 2 {
		x0, x1 := x[c*xStride:c*xStride+xn], x[(c+1)*xStride:(c+1)*xStride+xn]
		var res [2]float32
		switch t {
		case F16:
			dotF16x2AVX2(&w[0], &x0[0], &x1[0], n8, &res)
		case BF16:
			dotBF16x2AVX2(&w[0], &x0[0], &x1[0], n8, &res)
		}
		out[c], out[c+1] = res[0], res[1]
		if n8 < n {
			out[c] = float32(float64(res[0]) + tail(w, x0, n8, n))
			out[c+1] = float32(float64(res[1]) + tail(w, x1, n8, n))
		}
	}
	for ; c < nc; c++ {
		out[c] = single(n, w, x[c*xStride:c*xStride+xn])
	}
}

// vecDotNF32AMD64 is one single dot per column: a two-column f32 kernel
// (one operand from memory per FMA either way) measured slower than two
// single dots, whose second pass finds w in the cache.
func vecDotNF32AMD64(n int, w, x []byte, xStride int, out []float32) {
	vecDotNLoop(vecDotF32AMD64, n, w, x, xStride, 4*n, out)
}

func vecDotNF16AMD64(n int, w, x []byte, xStride int, out []float32) {
	vecDotNFloatAMD64(F16, tailF16, vecDotF16AMD64, 2, n, w, x, xStride, out)
}

func vecDotNBF16AMD64(n int, w, x []byte, xStride int, out []float32) {
	vecDotNFloatAMD64(BF16, tailBF16, vecDotBF16AMD64, 2, n, w, x, xStride, out)
}
