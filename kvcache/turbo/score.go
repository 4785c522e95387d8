package turbo

import "fmt"

// Fused key scoring for grouped-query attention: up to four query heads
// dotted with each cached key row straight from its blocks, for heads of
// one 128-value block (head dims up to 128). Expanding a chunk of rows to a
// float32 scratch first (ExpandRows) costs a 32 KiB store and reload per 64
// rows, which for the TCQ types evicts the 32 KiB level-pair table the
// expansion itself reads from L1; the fused kernel keeps each row's values
// in registers. The TCQ types have kernels on amd64 with AVX-512 and on
// arm64 with NEON (score_arm64.s). Where there is none (other types, amd64
// without AVX-512 or WAGGLE_KERNELS below avx512, WAGGLE_KERNELS=generic,
// purego) FusedScores reports false and callers keep the expanding path;
// ScoreRows4 still works there, through the reference.
//
// Values have no fused kernel: accumulating four heads' sums straight from
// the blocks (accumulators in L1, a load, fused multiply-add and store per
// 16 values and head) measured 15.8-17.6 ms per layer and token at 16K
// against 11.9-12.1 for expanding a chunk and summing with the float32
// kernel (turbo3_tcq, 1B shape, thread CPU time).

// FusedScores reports whether ScoreRows4 runs a fused kernel for t here.
func (t Type) FusedScores() bool { return fusedScores(t) }

// ScoreRows4 writes dst[j*dstStride+r] = Σ_i q[j*BlockSize+i]·v_r[i] for
// j < nq and r < m, where v_r is row r of src (one block at src[r*stride:],
// rows stride bytes apart) decoded in the rotated domain as DecodeRotated
// does (level·N, one rounding per value). q holds four rotated queries of
// BlockSize values, those at j ≥ nq included (zeros, read but unused), so
// the kernel always runs four. The sums are float32 in an order of the
// implementation's (16 lanes fused multiply-added, then a fixed tree on
// AVX-512; 16 chains of 4 lanes and a tree on NEON; sequential in the
// reference), within tolScore of each other.
// It panics on an invalid type or inconsistent lengths and does not
// allocate.
func (t Type) ScoreRows4(dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	bb := t.BlockBytes()
	if m == 0 {
		return
	}
	if bb == 0 || m < 0 || nq < 1 || nq > 4 || len(q) < 4*BlockSize || dstStride < m ||
		len(dst) < (nq-1)*dstStride+m || len(src) < bb || (m > 1 && (stride < bb || stride > (len(src)-bb)/(m-1))) {
		panic(fmt.Sprintf("turbo: ScoreRows4: %s, %d rows, %d queries, dst %d stride %d, %d source bytes stride %d",
			t, m, nq, len(dst), dstStride, len(src), stride))
	}
	if fusedScores(t) {
		scoreRowsAsm(t, dst, dstStride, q, nq, src, stride, m)
		return
	}
	scoreRowsGo(t, dst, dstStride, q, nq, src, stride, m)
}

// scoreRowsGo is the reference: decode, then sequential float32 dots.
func scoreRowsGo(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	var v [BlockSize]float32
	bb := t.BlockBytes()
	for r := range m {
		decodeBlock(t, &v, src[r*stride:r*stride+bb])
		for j := range nq {
			qj := q[j*BlockSize : (j+1)*BlockSize]
			var s float32
			for i, x := range v {
				s += qj[i] * x
			}
			dst[j*dstStride+r] = s
		}
	}
}
