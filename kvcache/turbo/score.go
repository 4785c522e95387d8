package turbo

import "fmt"

// Fused key scoring for grouped-query attention: up to four query heads
// dotted with each cached key row straight from its blocks, for heads of
// one 128-value block (head dims up to 128). Expanding a chunk of rows to a
// float32 scratch first (ExpandRows) costs a 32 KiB store and reload per 64
// rows, which for the TCQ types evicts the 32 KiB level-pair table the
// expansion itself reads from L1; the fused kernels keep each row's values
// in registers. On amd64 every type has them, at AVX-512 and AVX2
// (score_amd64.s): TCQ assembles levels from the pair table; turbo2/3/4
// decode with VPERMPS from a table scaled by the row's norm once per row
// (its entries are decodeBlock's products level·N, so no per-value
// multiply is left), and every kernel prefetches the block two rows on. On
// arm64 the NEON kernels (score_arm64.s) cover every type too: TCQ from
// the pair tables, turbo2/3/4 from per-row records of their byte planes
// and indices (scalar_arm64.go; by instruction count 0.34-0.36× of
// expanding and dotting, not timed on hardware). Where there is no kernel
// (CPUs without AVX2, WAGGLE_KERNELS=generic, purego) FusedScores reports
// false and callers keep the expanding path; ScoreRows4 still works there,
// through the reference.
//
// Values have fused kernels too (AccumulateRows4, accum.go), with the
// loops the other way round: dims outer, rows inner. A pass holds four
// heads' sums of a 32-value (AVX-512) or 16-value (AVX2) slice in
// registers and walks the chunk's rows, decoding just that slice of each;
// nothing is stored until the pass ends. (Rows outer, with the sums in L1
// and a load and store per 16 values and head, had measured 30% slower
// than expanding.) Per layer and token at 16K in the 1B shape (8 KV heads
// of 4 query heads, 64-row chunks; thread CPU time, medians of 9
// interleaved rounds, TestMeasureFused), fused against expand-then-
// float32-kernel:
//
//	values  turbo3_tcq  0.64-0.67× (AVX-512 4.2-4.7 ms against 6.4-7.1)
//	        turbo2_tcq  0.71-0.76×   turbo3  0.70-0.78×   turbo2  0.72-0.93×
//	        turbo4      0.79-0.89× on AVX-512; 1.2-1.35× on AVX2, not fused
//	scores  AVX-512  turbo3 0.33-0.39×  turbo4 0.36-0.39×  turbo2 0.35-0.37×
//	                 turbo3_tcq 0.33-0.38×  turbo2_tcq 0.36-0.39×
//	        AVX2     turbo3 0.32-0.36×  turbo4 0.48-0.55×  turbo2 0.31-0.32×
//	                 turbo3_tcq 0.34-0.36×  turbo2_tcq 0.33-0.34×
//	        (AVX-512 turbo2 2.1 ms against 5.7-6.2; without the prefetch
//	        the TCQ scores were 0.43-0.59× and AVX2 turbo4 0.88-1.1×)
//
// (three runs on a shared 2-core Zen 4 VM, both levels alike except where
// noted). End to end (waggle bench, 1B q4_0, turbo3_tcq keys and values,
// tg32 at depth 16K, one thread, CPU profiles of two interleaved rounds,
// before the prefetch) the value sums' CPU time fell by 36-44% (44-46% of
// the total to 32%), the whole run's by 10-20%; with WAGGLE_KERNELS=avx2
// (one round) the scores' by 44%, the values' by 31%, the run's by 35%.

// FusedScores reports whether ScoreRows4 runs a fused kernel for t here.
func (t Type) FusedScores() bool { return fusedScores(t) }

// ScoreRows4 writes dst[j*dstStride+r] = Σ_i q[j*BlockSize+i]·v_r[i] for
// j < nq and r < m, where v_r is row r of src (one block at src[r*stride:],
// rows stride bytes apart) decoded in the rotated domain as DecodeRotated
// does (level·N, one rounding per value). q holds four rotated queries of
// BlockSize values, those at j ≥ nq included (zeros, read but unused), so
// the kernel always runs four. The sums are float32 in an order of the
// implementation's (16 lanes fused multiply-added, then a fixed tree on
// AVX-512, with two sets of 16 lanes added first for turbo2/3/4; two sets
// of 8 lanes, added, then a tree on AVX2; 16 chains of 4 lanes and a tree
// on NEON; sequential in the reference), within tolScore of each other.
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
