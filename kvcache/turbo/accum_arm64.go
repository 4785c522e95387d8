//go:build !purego

package turbo

// accumTCQ3NEON and accumTCQ2NEON (accum_arm64.s): for j < 4, i < 128 and
// r < n in order,
//
//	aj[i] += float32(p[r][j] * v_r[i])
//
// with v_r the block at src + r·srcStride decoded as decodeBlock does (a0..a3
// are the four heads' 128 sums; p holds n >= 0 rows of the four heads'
// weights). FMUL then FADD per element, never FMLA, so the bits are
// accumulateRowsGo's. The sums must not overlap p or src; heads may share
// sums only when these are scratch (each head loads them and the last
// store of a slice wins).

//go:noescape
func accumTCQ3NEON(a0, a1, a2, a3 *float32, p *[4]float32, src *byte, srcStride, n int)

//go:noescape
func accumTCQ2NEON(a0, a1, a2, a3 *float32, p *[4]float32, src *byte, srcStride, n int)

// accumRows bounds the rows per kernel call: the weights of that many rows
// are packed on the stack (1 KiB), and the engine takes chunks of 64 rows.
const accumRows = 64

// fusedValues: TCQ; the scalar types only when fusedScalarValues (off:
// scalar_arm64.go).
func fusedValues(t Type) bool {
	return fusedTCQ(t, accumImpl) || (fusedScalarValues && accumImpl == levelNEON && isScalar(t))
}

// accumulateRowsAsm packs the weights row by row (the kernel loads a row's
// four with one load) and runs the kernel on up to accumRows rows at a
// time; the sums continue in memory between calls, so the order per element
// stays rows in order. Heads nq..3 get zero weights and a scratch block for
// sums, so the kernel always runs four without a branch (nq < 4 costs the
// unused heads' arithmetic, not their memory).
func accumulateRowsAsm(t Type, acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	var spare [BlockSize]float32
	var pk [accumRows][4]float32
	a := [4]*float32{&spare[0], &spare[0], &spare[0], &spare[0]}
	for j := range nq {
		a[j] = &acc[j*accStride]
	}
	if isScalar(t) {
		accumScalar(t, &a, p, pStride, nq, src, stride, m)
		return
	}
	for r0 := 0; r0 < m; r0 += accumRows {
		n := min(accumRows, m-r0)
		for r := range n {
			for j := range nq {
				pk[r][j] = p[j*pStride+r0+r]
			}
		}
		// Direct calls: through a func value the pointers would escape.
		if t == Turbo3TCQ {
			accumTCQ3NEON(a[0], a[1], a[2], a[3], &pk[0], &src[r0*stride], stride, n)
		} else {
			accumTCQ2NEON(a[0], a[1], a[2], a[3], &pk[0], &src[r0*stride], stride, n)
		}
	}
}
