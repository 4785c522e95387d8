//go:build !purego

package kernels

// Four-row decode dot (fused_dot4_amd64.s): out[r] = VecDot(Q4_0, n, row
// r, x) for the four rows starting at w, rb bytes apart, against one q8_0
// activation prepared by prepareFused (groups = n/128 groups of four
// blocks). Semantics, per row r, with the chains of vecDotQ4_0AVX512:
//
//	for b := 0; b < n/32; b++ {
//		sumi := sum over the block's 32 values of (int(q[j])-8) * int(qx[j])
//		chain[b%4] = fma(dw(b)*dx(b), float32(sumi), chain[b%4])
//	}
//	out[r] = (chain[0]+chain[2]) + (chain[1]+chain[3])
//
// so every result has the bits of vecDotQ4_0AVX512 (and of its AVX2 and
// multi-column forms) on that row. The integer sums are exact: VPDPBUSD
// multiplies the unsigned nibble by the signed activation, and the
// prepared layout carries 8·Σx per block to subtract.
//
// Preconditions: AVX-512 F/BW/VL and VNNI; groups >= 1; w holds four rows
// of rb bytes with n = 128·groups values each; xp holds groups·256 bytes
// made by prepareFused.

//go:noescape
func fusedDot4Q4_0AVX512(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// fusedKernel returns the four-row kernel for t, or nil when this CPU or
// the active implementation has none whose bits match the active vecDot
// (the chains above are those of the avx2 and avx512 dots, not generic's).
// Only Q4_0 has one: a Q8_0 version was measured slower than the
// row-by-row dot, which already streams Q8_0 at memory speed.
func fusedKernel(t DType) fusedDotFunc {
	if t != Q4_0 || !fusedAVX512 || (activeName != "avx512" && activeName != "avx2") {
		return nil
	}
	return fusedDot4Q4_0AVX512
}

// fusedAVX512 reports whether the CPU runs the four-row kernels.
var fusedAVX512 = hasAVX512() && cpuFeatures.AVX512VNNI
