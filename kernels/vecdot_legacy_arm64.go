//go:build !purego

package kernels

// registerLegacyQuantsARM64 adds the arm64 assembly for the Q8_0, Q4_0,
// Q4_1, Q5_0 and Q5_1 dots (one column and VecDotN) to the neon and neondot
// tables. All of them apply the float scales in the generic order, so they
// are bit-identical to the generic kernels.
func registerLegacyQuantsARM64(t *levelTables) {
	neon, neondot := &t[NEON], &t[NEONDot]
	neon.vecDot[Q8_0] = vecDotQ8_0NEON
	neon.vecDot[Q4_0] = vecDotQ4_0NEON
	neon.vecDot[Q4_1] = vecDotQ4_1NEON
	neon.vecDot[Q5_0] = vecDotQ5_0NEON
	neon.vecDot[Q5_1] = vecDotQ5_1NEON
	neon.vecDotN[Q8_0] = vecDotNQ8_0NEON
	neon.vecDotN[Q4_0] = vecDotNQ4_0NEON
	neon.vecDotN[Q4_1] = vecDotNQ4_1NEON
	neon.vecDotN[Q5_0] = vecDotNQ5_0NEON
	neon.vecDotN[Q5_1] = vecDotNQ5_1NEON
	neondot.vecDot[Q8_0] = vecDotQ8_0NEONDot
	neondot.vecDot[Q4_0] = vecDotQ4_0NEONDot
	neondot.vecDot[Q4_1] = vecDotQ4_1NEONDot
	neondot.vecDot[Q5_0] = vecDotQ5_0NEONDot
	neondot.vecDot[Q5_1] = vecDotQ5_1NEONDot
	neondot.vecDotN[Q8_0] = vecDotNQ8_0NEONDot
	neondot.vecDotN[Q4_0] = vecDotNQ4_0NEONDot
	neondot.vecDotN[Q4_1] = vecDotNQ4_1NEONDot
	neondot.vecDotN[Q5_0] = vecDotNQ5_0NEONDot
	neondot.vecDotN[Q5_1] = vecDotNQ5_1NEONDot
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

// vecDotQ4_1NEON is vecDotQ4_1Q8_1Generic: per block of 32,
//
//	sumi := sum((qs[j]&15) * x.qs[j] + (qs[j]>>4) * x.qs[j+16])  // exact
//	sumf += float32(sumi)*(f16(w.d)*f16(x.d)) + f16(w.m)*f16(x.s)
//
// with the generic rounding steps, so bit-identical. w holds n/32 blocks of
// 20 bytes, x n/32 q8_1 blocks of 36 bytes.
//
//go:noescape
func vecDotQ4_1NEON(n int, w, x []byte) float32

// vecDotQ4_1NEONDot is vecDotQ4_1NEON with SDOT.
//
//go:noescape
func vecDotQ4_1NEONDot(n int, w, x []byte) float32

// vecDotQ5_0NEON is vecDotQ5_0Q8_0Generic: per block of 32, the 5-bit
// values (nibble | qh bit << 4) - 16 are dotted with the q8_0 quants and
// sumf += float32(sumi) * (f16(w.d)*f16(x.d)), bit-identical. w holds n/32
// blocks of 22 bytes, x n/32 q8_0 blocks.
//
//go:noescape
func vecDotQ5_0NEON(n int, w, x []byte) float32

// vecDotQ5_0NEONDot is vecDotQ5_0NEON with SDOT.
//
//go:noescape
func vecDotQ5_0NEONDot(n int, w, x []byte) float32

// vecDotQ5_1NEON is vecDotQ5_1Q8_1Generic: the 5-bit values 0..31 dotted
// with the q8_1 quants, then the float steps of vecDotQ4_1NEON,
// bit-identical. w holds n/32 blocks of 24 bytes, x n/32 q8_1 blocks.
//
//go:noescape
func vecDotQ5_1NEON(n int, w, x []byte) float32

// vecDotQ5_1NEONDot is vecDotQ5_1NEON with SDOT.
//
//go:noescape
func vecDotQ5_1NEONDot(n int, w, x []byte) float32

// vecDotNQ4_1NEON, vecDotNQ5_0NEON and vecDotNQ5_1NEON are the
// vecDotNFuncs for Q4_1, Q5_0 and Q5_1, as vecDotNQ8_0NEON: each weight
// block is unpacked once for up to 4 columns, and out[c] equals the
// one-column kernel's result on column c bit for bit (the same float steps
// in vector lanes). Columns past len(out) recompute column 0 and are not
// stored.
//
//go:noescape
func vecDotNQ4_1NEON(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_0NEON(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_1NEON(n int, w, x []byte, xStride int, out []float32)

// vecDotNQ4_1NEONDot, vecDotNQ5_0NEONDot and vecDotNQ5_1NEONDot are the
// SDOT versions.
//
//go:noescape
func vecDotNQ4_1NEONDot(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_0NEONDot(n int, w, x []byte, xStride int, out []float32)

//go:noescape
func vecDotNQ5_1NEONDot(n int, w, x []byte, xStride int, out []float32)
