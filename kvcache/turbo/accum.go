package turbo

import "fmt"

// Fused value accumulation for grouped-query attention, the value-side
// twin of ScoreRows4: up to four query heads' probability-weighted sums of
// cached value rows, straight from the rows' blocks (heads of one
// 128-value block), in the rotated domain. The sum per output element runs
// over the rows in order and every product is rounded to float32 before it
// is added, so the result has exactly the bits of expanding the rows
// (ExpandRows) and summing them with kernels.AttnValues: a fused kernel
// changes the speed, never the numbers, and attention stays independent of
// chunking and batching.

// FusedValues reports whether AccumulateRows4 runs a fused kernel for t
// here. Where it does not, callers keep the expanding path (the reference
// gives the same bits but is slower than expanding a chunk with the
// assembly and summing with the float32 kernel).
func (t Type) FusedValues() bool { return fusedValues(t) }

// AccumulateRows4 adds, for j < nq and i < BlockSize,
//
//	for r := range m { acc[j*accStride+i] += float32(p[j*pStride+r] * v_r[i]) }
//
// where v_r is row r of src (one block at src[r*stride:], rows stride bytes
// apart) decoded in the rotated domain as DecodeRotated does (level·N, one
// rounding per value): each element's sum continues in row order with each
// product rounded before the add, bit for bit what expanding the rows and
// running kernels.AttnValues(F32) on them computes. It panics on an invalid
// type or inconsistent lengths and does not allocate.
func (t Type) AccumulateRows4(acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	bb := t.BlockBytes()
	if m == 0 {
		return
	}
	if bb == 0 || m < 0 || nq < 1 || nq > 4 || accStride < BlockSize || pStride < m ||
		len(acc) < (nq-1)*accStride+BlockSize || len(p) < (nq-1)*pStride+m ||
		len(src) < bb || (m > 1 && (stride < bb || stride > (len(src)-bb)/(m-1))) {
		panic(fmt.Sprintf("turbo: AccumulateRows4: %s, %d rows, %d heads, acc %d stride %d, p %d stride %d, %d source bytes stride %d",
			t, m, nq, len(acc), accStride, len(p), pStride, len(src), stride))
	}
	if fusedValues(t) {
		accumulateRowsAsm(t, acc, accStride, p, pStride, nq, src, stride, m)
		return
	}
	accumulateRowsGo(t, acc, accStride, p, pStride, nq, src, stride, m)
}

// accumulateRowsGo is the reference: decode each row, then add its
// rounded products to every head's sums.
func accumulateRowsGo(t Type, acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	var v [BlockSize]float32
	bb := t.BlockBytes()
	for r := range m {
		decodeBlock(t, &v, src[r*stride:r*stride+bb])
		for j := range nq {
			pj := p[j*pStride+r]
			a := acc[j*accStride : j*accStride+BlockSize]
			for i, x := range v {
				a[i] += float32(pj * x)
			}
		}
	}
}
