//go:build !purego

package turbo

// rotateAVX2 is rotateGo with AVX2 (rotate_amd64.s), bit for bit, except
// that where two different NaNs meet in a butterfly, which one's payload
// comes out follows operand order, the compiler's choice in the reference
// (the encoders' bytes do not depend on it: a NaN in a group makes its norm
// NaN and every index the same). x must not overlap pre or post.
//
//go:noescape
func rotateAVX2(x, pre, post *[BlockSize]float32, scale float32)

// rotate runs the 128-point rotation x = post·H·(pre·x)·scale in place
// (rotateGo) with the selected level.
func rotate(x, pre, post *[BlockSize]float32) {
	if rotateImpl != levelGo {
		rotateAVX2(x, pre, post, invSqrt128)
		return
	}
	rotateGo(x, pre, post)
}
