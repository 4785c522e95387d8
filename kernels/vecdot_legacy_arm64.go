//go:build !purego

package kernels

// registerLegacyQuantsARM64 adds the arm64 assembly for the Q8_0 and Q4_0
// dots (one column and VecDotN) to the neon and neondot tables.
func registerLegacyQuantsARM64(neon, neondot *kernelTable) {
	neon.vecDot[Q8_0] = vecDotQ8_0NEON
	neon.vecDot[Q4_0] = vecDotQ4_0NEON
	neon.vecDotN[Q8_0] = vecDotNQ8_0NEON
	neon.vecDotN[Q4_0] = vecDotNQ4_0NEON
	neondot.vecDot[Q8_0] = vecDotQ8_0NEONDot
	neondot.vecDot[Q4_0] = vecDotQ4_0NEONDot
	neondot.vecDotN[Q8_0] = vecDotNQ8_0NEONDot
	neondot.vecDotN[Q4_0] = vecDotNQ4_0NEONDot
}

// vecDotQ8_0NEON is vecDotQ8_0Q8_0Generic: for each of the n/32 blocks,
//
//	sumi := sum(int8(w.qs[j]) * int8(x.qs[j]))       // exact, int32
//	sumf += float32(sumi) * (f16(w.d) * f16(x.d))   // separate FMUL, FADD
//
// so the result is bit-identical to the generic one. n is a multiple of 32;
// w and x hold n/32 blocks of 34 bytes (alignment free).
//
//go:noescape
func vecDotQ8_0NEON(n int, w, x []byte) float32

// vecDotQ8_0NEONDot is vecDotQ8_0NEON with SDOT for the block sums (needs
// the dot-product extension).
//
//go:noescape
func vecDotQ8_0NEONDot(n int, w, x []byte) float32

// vecDotQ4_0NEON is vecDotQ4_0Q8_0Generic: per block of 32,
//
//	sumi := sum((qs[j]&15 - 8) * x.qs[j] + (qs[j]>>4 - 8) * x.qs[j+16])
//	sumf += float32(sumi) * f16(w.d) * f16(x.d)    // left to right
//
// bit-identical to the generic one. w holds n/32 blocks of 18 bytes, x
// n/32 q8_0 blocks of 34 bytes.
//
//go:noescape
func vecDotQ4_0NEON(n int, w, x []byte) float32

// vecDotQ4_0NEONDot is vecDotQ4_0NEON with SDOT.
//
//go:noescape
func vecDotQ4_0NEONDot(n int, w, x []byte) float32

// vecDotNQ8_0NEON is the vecDotNFunc for Q8_0: out[c] =
// vecDotQ8_0NEON(n, w, x[c*xStride:]) for c < len(out) (1..4), bit for bit,
// with each weight block loaded once for all columns. Columns past len(out)
// recompute column 0 and are not stored, so x needs only len(out) columns.
//
//go:noescape
func vecDotNQ8_0NEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ8_0NEONDot is vecDotNQ8_0NEON with SDOT.
//
//go:noescape
func vecDotNQ8_0NEONDot(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ4_0NEON is the vecDotNFunc for Q4_0, as vecDotNQ8_0NEON: each
// weight block is unpacked once, and every column's result equals
// vecDotQ4_0NEON's bit for bit.
//
//go:noescape
func vecDotNQ4_0NEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ4_0NEONDot is vecDotNQ4_0NEON with SDOT.
//
//go:noescape
func vecDotNQ4_0NEONDot(n int, w, x []byte, xStride int, out []float32)
