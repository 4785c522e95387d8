//go:build !purego

package turbo

// rotateNEON is rotateGo with NEON (rotate_arm64.s), bit for bit, with one
// exception: where two different NaNs meet in a butterfly, which one's
// payload comes out follows operand order, and the compiler picks that for
// the reference's a+b (rotate_arm64_test.go). The encoders' bytes do not
// depend on it: a NaN in a group makes its norm NaN and every index the
// same. x must not overlap pre or post.
//
//go:noescape
func rotateNEON(x, pre, post *[BlockSize]float32, scale float32)

// rotate runs the 128-point rotation x = post·H·(pre·x)·scale in place
// (rotateGo), with NEON at the NEON level (rotateImpl).
func rotate(x, pre, post *[BlockSize]float32) {
	if rotateImpl == levelNEON {
		rotateNEON(x, pre, post, invSqrt128)
		return
	}
	rotateGo(x, pre, post)
}
