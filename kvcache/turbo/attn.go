package turbo

import (
	"fmt"
	"math"
)

// Attention in the rotated domain. With F the orthogonal rotation, a key is
// stored as N·c (c the chosen levels, N the corrected norm) with k ≈ F^T(N·c),
// so
//
//	q·k ≈ q·F^T(N·c) = (F q)·(N·c) = N · Σ_j (Fq)_j c_j
//
// and a value sum is
//
//	Σ_i p_i v_i ≈ Σ_i p_i F^T(N_i c_i) = F^T( Σ_i p_i N_i c_i ).
//
// So a head rotates its query once (RotateQuery), scores each key with
// DotKey, accumulates values with AccumulateValue, and un-rotates the sum
// once (UnrotateOutput). Neither DotKey nor AccumulateValue materialises a
// float row or allocates; both are within float32 rounding of decoding the
// row and doing the same arithmetic (see attn_test.go for the bound).

// DotKey returns the score of the rotated query qRot (from RotateQuery)
// against one key row of type t: Σ_blocks N_b · Σ_j qRot[j]·level[idx_j].
// len(qRot) must be a multiple of BlockSize and len(row) must be
// t.RowBytes(len(qRot)); it panics otherwise (a programmer error). Any
// row bytes are accepted.
func (t Type) DotKey(qRot []float32, row []byte) float32 {
	bb := t.checkAttn("DotKey", len(qRot), len(row))
	var sum float32
	for g := 0; g < len(qRot)/BlockSize; g++ {
		q := (*[BlockSize]float32)(qRot[g*BlockSize:])
		b := row[g*bb : (g+1)*bb]
		sum += float32(blockNorm(b) * dotBlock(t, q, b))
	}
	return sum
}

// AccumulateValue adds p times the rotated-domain value row to acc:
// acc[j] += (p·N_b)·level[idx_j] per block. len(acc) must be a multiple of
// BlockSize and len(row) must be t.RowBytes(len(acc)); it panics otherwise.
// p is folded into the block norm first, so this is one multiply-add per
// element. To reproduce BeeLlama's TCQ V decode alpha, pass p·TCQValueAlpha.
func (t Type) AccumulateValue(acc []float32, p float32, row []byte) {
	bb := t.checkAttn("AccumulateValue", len(acc), len(row))
	for g := 0; g < len(acc)/BlockSize; g++ {
		a := (*[BlockSize]float32)(acc[g*BlockSize:])
		b := row[g*bb : (g+1)*bb]
		axpyBlock(t, a, p*blockNorm(b), b)
	}
}

// checkAttn panics unless n is a whole number of groups and nBytes is the
// matching row size; it returns the block size in bytes.
func (t Type) checkAttn(fn string, n, nBytes int) int {
	bb := t.BlockBytes()
	if bb == 0 || n%BlockSize != 0 || nBytes != n/BlockSize*bb {
		panic(fmt.Sprintf("turbo: %s: %s with %d rotated values and %d row bytes", fn, t, n, nBytes))
	}
	return bb
}

// dotBlock returns Σ_j q[j]·level[idx_j] for one block (without its norm).
func dotBlock(t Type, q *[BlockSize]float32, b []byte) float32 {
	switch t {
	case Turbo2:
		return dotTurbo2(q, b)
	case Turbo3:
		return dotTurbo3(q, b)
	case Turbo4:
		return dotTurbo4(q, b)
	case Turbo3TCQ:
		return dotTCQ(&tcq3, q, b)
	default:
		return dotTCQ(&tcq2, q, b)
	}
}

// axpyBlock adds s·level[idx_j] to acc[j] for one block.
func axpyBlock(t Type, acc *[BlockSize]float32, s float32, b []byte) {
	switch t {
	case Turbo2:
		axpyTurbo2(acc, s, b)
	case Turbo3:
		axpyTurbo3(acc, s, b)
	case Turbo4:
		axpyTurbo4(acc, s, b)
	case Turbo3TCQ:
		axpyTCQ(&tcq3, acc, s, b)
	default:
		axpyTCQ(&tcq2, acc, s, b)
	}
}

// TCQValueAlpha returns BeeLlama's default decode-time multiplier for TCQ V
// norms with nKV cells in the attention view (fattn.cu, calibrated by KLD
// sweeps on Qwen3.5-27B): turbo3_tcq clamp(1.1484 − 0.01443·ln n, 0.98,
// 1.06), turbo2_tcq clamp(0.8865 + 0.0195·ln n, 1.00, 1.12). It is 1 for
// every other type and for K. It is not part of the stored format, so
// Decode, DotKey and AccumulateValue never apply it; a caller that wants
// BeeLlama's attention outputs multiplies p by it.
func TCQValueAlpha(t Type, nKV int) float32 {
	ln := math.Log(float64(max(nKV, 1)))
	switch t {
	case Turbo3TCQ:
		return float32(min(max(1.1484-0.01443*ln, 0.98), 1.06))
	case Turbo2TCQ:
		return float32(min(max(0.8865+0.0195*ln, 1.00), 1.12))
	}
	return 1
}
