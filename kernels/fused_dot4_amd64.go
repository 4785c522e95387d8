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

// fusedDot4Q4_KAVX512 and fusedDot4Q6_KAVX512 (fused_dot4k_amd64.s):
// out[r] = VecDot(Q4_K or Q6_K, n, row r, x) for the four rows starting at
// w, rb bytes apart, against the q8_K activation row x itself (groups =
// n/256 super-blocks; nothing is prepared). Each row repeats the steps of
// vecDotQ4_KAVX512 / vecDotQ6_KAVX512 (integer lanes, per-super-block float
// chains, final horizontal sum), so every result has their bits, which are
// those of the AVX2 kernels too. Only the grouping of the exact integer
// lane sums differs (two 32-value chunks per 512-bit register, folded
// once per super-block); fused_dot4k_amd64_test.go pins the bits.
//
// Preconditions: AVX-512 F/BW/VL and VNNI; groups >= 1; w holds four rows
// of rb bytes with n = 256·groups values each; x is a q8_K row of n values
// written by the q8_K quantizer (its bsums are used).

//go:noescape
func fusedDot4Q4_KAVX512(groups int, w []byte, rb int, xp []byte, out *[4]float32)

//go:noescape
func fusedDot4Q6_KAVX512(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// fusedKernel returns the four-row kernel for t and the number of values
// of one of its groups, or nil when this CPU or the active implementation
// has none whose bits match the active vecDot (the chains above are those
// of the avx2 and avx512 dots, not generic's). prepared reports whether the
// kernel takes the activation in prepareFused's layout (Q4_0) rather than
// as the q8_K row (Q4_K, Q6_K). Q8_0 has none: a Q8_0 version was measured
// slower than the row-by-row dot, which already streams Q8_0 at memory
// speed.
func fusedKernel(t DType) (k fusedDotFunc, group int, prepared bool) {
	if !fusedAVX512 || (activeName != "avx512" && activeName != "avx2") {
		return nil, 0, false
	}
	switch t {
	case Q4_0:
		return fusedDot4Q4_0AVX512, fusedGroupValues, true
	case Q4_K:
		return fusedDot4Q4_KAVX512, QK_K, false
	case Q6_K:
		return fusedDot4Q6_KAVX512, QK_K, false
	}
	return nil, 0, false
}

// fusedAVX512 reports whether the CPU runs the four-row kernels.
var fusedAVX512 = hasAVX512() && cpuFeatures.AVX512VNNI

// fusedKernels is fusedKernel plus the multi-column form of the kernel
// and the rows it takes per call (nil: DecodeMatMul runs k once per
// column).
func fusedKernels(t DType) (k fusedDotFunc, kn fusedDotNFunc, knRows, group int, prepared bool) {
	k, group, prepared = fusedKernel(t)
	if k == nil {
		return nil, nil, 0, 0, false
	}
	switch t {
	case Q4_0:
		kn, knRows = fusedDot4xNQ4_0AVX512, 4
	case Q4_K:
		kn, knRows = fusedDot2xNQ4_KAVX512, 2
	case Q6_K:
		kn, knRows = fusedDot2xNQ6_KAVX512, 2
	}
	return k, kn, knRows, group, prepared
}
