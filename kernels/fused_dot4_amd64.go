//go:build !purego

package kernels

// Four-row decode dot (fused_dot4_amd64.s): out[r] = VecDot(Q4_0, n, row
// r, x) for the four rows starting at w, rb bytes apart, against one q8_0
// activation prepared by prepareFused (groups = n/128 groups of four
// blocks). Semantics, per row r, with the chains of vecDotQ4_0VNNI:
//
//	for b := 0; b < n/32; b++ {
//		sumi := sum over the block's 32 values of (int(q[j])-8) * int(qx[j])
//		chain[b%4] = fma(dw(b)*dx(b), float32(sumi), chain[b%4])
//	}
//	out[r] = (chain[0]+chain[2]) + (chain[1]+chain[3])
//
// so every result has the bits of vecDotQ4_0VNNI (and of its AVX2 and
// multi-column forms) on that row. The integer sums are exact: VPDPBUSD
// multiplies the unsigned nibble by the signed activation, and the
// prepared layout carries 8·Σx per block to subtract.
//
// Preconditions: AVX-512 F/BW/VL and VNNI; groups >= 1; w holds four rows
// of rb bytes with n = 128·groups values each; xp holds groups·256 bytes
// made by prepareFused.

//go:noescape
func fusedDot4Q4_0VNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// fusedDot4Q4_KVNNI and fusedDot4Q6_KVNNI (fused_dot4k_amd64.s):
// out[r] = VecDot(Q4_K or Q6_K, n, row r, x) for the four rows starting at
// w, rb bytes apart, against the q8_K activation row x itself (groups =
// n/256 super-blocks; nothing is prepared). Each row repeats the steps of
// vecDotQ4_KVNNI / vecDotQ6_KVNNI (integer lanes, per-super-block float
// chains, final horizontal sum), so every result has their bits, which are
// those of the AVX2 kernels too. Only the grouping of the exact integer
// lane sums differs (two 32-value chunks per 512-bit register, folded
// once per super-block); fused_dot4k_amd64_test.go pins the bits.
//
// Preconditions: AVX-512 F/BW/VL and VNNI; groups >= 1; w holds four rows
// of rb bytes with n = 256·groups values each; x is a q8_K row of n values
// written by the q8_K quantizer (its bsums are used).

//go:noescape
func fusedDot4Q4_KVNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)

//go:noescape
func fusedDot4Q6_KVNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// registerFusedAMD64 puts the four-row decode kernels in the avx512vnni
// row. Their chains are those of the avx2 and avx512vnni dots (not
// generic's), so every result has the bits of the VecDot of the levels
// that run them. prepared marks the kernels that take the activation in
// prepareFused's layout (Q4_0) rather than as the q8_K row (Q4_K, Q6_K).
// Q8_0 has none: a Q8_0 version was measured slower than the row-by-row
// dot, which already streams Q8_0 at memory speed.
func registerFusedAMD64(t *levelTables) {
	vnni := &t[AVX512VNNI]
	vnni.fused[Q4_0] = &fusedKernels{fusedDot4Q4_0VNNI, fusedDot4xNQ4_0VNNI, 4, fusedGroupValues, true}
	vnni.fused[Q4_K] = &fusedKernels{fusedDot4Q4_KVNNI, fusedDot2xNQ4_KVNNI, 2, QK_K, false}
	vnni.fused[Q6_K] = &fusedKernels{fusedDot4Q6_KVNNI, fusedDot2xNQ6_KVNNI, 2, QK_K, false}
}
