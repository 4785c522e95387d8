//go:build !purego

package kernels

// fusedDot4xNQ4_0VNNI (fused_dotn_amd64.s): out[4c+r] = VecDot(Q4_0, n,
// row r, column c) for the four rows starting at w (rb bytes apart) and
// the nc <= 4 prepared activation columns starting at xp (xs bytes apart,
// each made by prepareFused). Each (row, column) runs the steps of
// fusedDot4Q4_0VNNI exactly, so results have the bits of
// vecDotQ4_0VNNI; out entries of columns >= nc are zero.
//
// Preconditions: those of fusedDot4Q4_0VNNI for every column;
// 1 <= nc <= 4; xp holds nc columns of groups·256 bytes, xs apart.
//
//go:noescape
func fusedDot4xNQ4_0VNNI(groups int, w []byte, rb int, xp []byte, xs int, nc int, out *[16]float32)

// fusedDot2xNQ4_KVNNI and fusedDot2xNQ6_KVNNI (fused_dotnk_amd64.s):
// out[4c+r] = VecDot(Q4_K or Q6_K, n, row r, column c) for the two rows
// starting at w (rb bytes apart) and the nc <= 4 q8_K activation rows
// starting at xp (xs bytes apart); out[4c+2] and out[4c+3] are unused.
// Each (row, column) runs the steps of vecDotQ4_KVNNI /
// vecDotQ6_KVNNI, so results have their bits.
//
// Preconditions: AVX-512 F/BW/VL and VNNI; groups >= 1; 1 <= nc <= 4; w
// holds two rows of n = 256·groups values; xp holds nc q8_K rows of n
// values made by the q8_K quantizer, xs bytes apart.
//
//go:noescape
func fusedDot2xNQ4_KVNNI(groups int, w []byte, rb int, xp []byte, xs int, nc int, out *[16]float32)

//go:noescape
func fusedDot2xNQ6_KVNNI(groups int, w []byte, rb int, xp []byte, xs int, nc int, out *[16]float32)
