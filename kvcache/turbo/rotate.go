package turbo

import "fmt"

// invSqrt128 is 1/sqrt(128) as float32, the normalisation of the 128-point
// Walsh-Hadamard transform (BeeLlama multiplies by the literal
// 0.08838834764831845f).
const invSqrt128 float32 = 0.08838834764831845

// fwht128 runs the unnormalised Sylvester Walsh-Hadamard transform in place:
// butterflies (a, b) -> (a+b, a-b) with strides 1, 2, 4, ..., 64, in that
// order, so the float32 rounding is BeeLlama's. Strides 1 and 2 are done
// together per 4 values (the same additions, fewer loop trips); the wider
// stages pair two equal-length sub-slices so the compiler drops the bounds
// checks.
func fwht128(x *[BlockSize]float32) {
	for i := 0; i < BlockSize; i += 4 {
		v := (*[4]float32)(x[i:])
		a0, a1 := v[0]+v[1], v[0]-v[1]
		a2, a3 := v[2]+v[3], v[2]-v[3]
		v[0], v[1], v[2], v[3] = a0+a2, a1+a3, a0-a2, a1-a3
	}
	for h := 4; h < BlockSize; h <<= 1 {
		for i := 0; i < BlockSize; i += 2 * h {
			a := x[i : i+h]
			b := x[i+h : i+2*h]
			b = b[:len(a)]
			for j, av := range a {
				bv := b[j]
				a[j], b[j] = av+bv, av-bv
			}
		}
	}
}

// rotateForward applies F = diag(s2)·H·diag(s1)/sqrt(128) to one group in
// place (BeeLlama's order: multiply by s1, butterflies, scale, multiply by
// s2; the sign multiplies are exact).
func rotateForward(x *[BlockSize]float32) { rotate(x, &signs1, &signs2) }

// rotateInverse applies F^T = diag(s1)·H·diag(s2)/sqrt(128), the same
// pipeline with the sign vectors swapped. F is orthogonal (H·H = 128·I and
// the signs square to one), so rotateInverse undoes rotateForward up to
// float32 rounding (about 1e-7 relative per element).
func rotateInverse(x *[BlockSize]float32) { rotate(x, &signs2, &signs1) }

// rotateGo is the reference of rotate (rotate_arm64.go, rotate_noasm.go):
// x *= pre, butterflies, then x = x·invSqrt128·post, each product rounded.
func rotateGo(x, pre, post *[BlockSize]float32) {
	for i := range x {
		x[i] *= pre[i]
	}
	fwht128(x)
	for i := range x {
		x[i] = x[i] * invSqrt128 * post[i]
	}
}

// Rotate applies the forward rotation in place to each 128-value group of x.
// len(x) must be a multiple of BlockSize.
func Rotate(x []float32) {
	checkGroups("Rotate", len(x))
	for i := 0; i < len(x); i += BlockSize {
		rotateForward((*[BlockSize]float32)(x[i:]))
	}
}

// Unrotate applies the inverse rotation in place to each 128-value group of
// x. len(x) must be a multiple of BlockSize.
func Unrotate(x []float32) {
	checkGroups("Unrotate", len(x))
	for i := 0; i < len(x); i += BlockSize {
		rotateInverse((*[BlockSize]float32)(x[i:]))
	}
}

// RotateQuery writes the rotated query for one head: q zero-padded to
// PaddedLen(len(q)) and forward-rotated per 128-group, into dst, which must
// have that length. Keys are stored rotated, and F is orthogonal, so
// q·k = (Fq)·(Fk): rotating the query once per head lets DotKey score every
// key without un-rotating any of them. It does not allocate.
func RotateQuery(dst, q []float32) {
	if len(dst) != PaddedLen(len(q)) {
		panic(fmt.Sprintf("turbo: RotateQuery: len(dst)=%d, want PaddedLen(%d)=%d", len(dst), len(q), PaddedLen(len(q))))
	}
	copy(dst, q)
	clear(dst[len(q):])
	Rotate(dst)
}

// UnrotateOutput finishes rotated-domain attention for one head: acc, the
// sum of p_i·(rotated V_i) built by AccumulateValue, is un-rotated in place
// per 128-group (it is clobbered) and its first len(dst) values, the head
// without its padding, are copied to dst. len(acc) must be
// PaddedLen(len(dst)). Because F^T is linear, F^T(Σ p_i·F v_i) = Σ p_i·v_i,
// so one inverse rotation per output replaces one per cached value.
func UnrotateOutput(dst, acc []float32) {
	if len(acc) != PaddedLen(len(dst)) {
		panic(fmt.Sprintf("turbo: UnrotateOutput: len(acc)=%d, want PaddedLen(%d)=%d", len(acc), len(dst), PaddedLen(len(dst))))
	}
	Unrotate(acc)
	copy(dst, acc)
}

func checkGroups(fn string, n int) {
	if n%BlockSize != 0 {
		panic(fmt.Sprintf("turbo: %s: length %d is not a multiple of %d", fn, n, BlockSize))
	}
}
