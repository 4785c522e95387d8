package turbo

import "fmt"

// Batch expansion of cached rows for grouped-query attention. A KV head's
// rows are expanded once to float32 in the rotated domain and then scored
// against (or accumulated for) every query head of its group with the
// float32 kernels; the expansion must therefore be cheap next to an f16
// cache's conversion, and exactly DecodeRotated, so that switching to it
// changes no attention result.

// Kernel levels for ExpandRows (the package's levels, levels.go);
// expandImpl is the one in use.
const (
	expandGo     = levelGo     // decodeBlock, the reference
	expandAVX2   = levelAVX2   // 8 values per step (VPERMPS); TCQ: scalar pair loads
	expandAVX512 = levelAVX512 // 16 values per step (VPERMPS, VPTERNLOGD); TCQ as AVX2
)

// ExpandRows writes n rows of the cache, in the rotated domain exactly as
// stored, into dst as float32: dst[r*w+j] = level[idx_j]·N_b, one float32
// multiply per value, bit-identical to DecodeRotated of each row (so
// attention over expanded rows does not change when this replaces
// DecodeRotated or AccumulateValue(row, 1, ·) into a zeroed row). The row
// width w = len(dst)/n must be a positive multiple of BlockSize (a padded
// head, PaddedLen); row r is the t.RowBytes(w) bytes at src[r*stride:], so
// src may be a whole cache span with rows stride bytes apart (stride at
// least RowBytes(w) when n > 1). Any bytes expand without faulting or
// reading outside the rows; a non-finite norm gives Inf/NaN values. n == 0
// does nothing. It panics on an invalid type or inconsistent lengths (a
// programmer error, as DotKey does), never writes outside dst[:n*w], and
// does not allocate.
//
// On amd64 the rows go through AVX-512 (F, BW, VL) or AVX2 (+F16C)
// assembly, on arm64 through NEON, as the selected kernel level says
// (levels.go); at the generic level (or with the purego tag) through the
// Go reference.
func (t Type) ExpandRows(dst []float32, src []byte, stride, n int) {
	if n == 0 {
		return
	}
	bb := t.BlockBytes()
	w := 0
	if n > 0 {
		w = len(dst) / n
	}
	rowBytes := w / BlockSize * bb
	if bb == 0 || n < 0 || w == 0 || w%BlockSize != 0 || len(dst) != n*w ||
		len(src) < rowBytes || (n > 1 && (stride < rowBytes || stride > (len(src)-rowBytes)/(n-1))) {
		panic(fmt.Sprintf("turbo: ExpandRows: %s with %d rows of %d values, %d source bytes, stride %d",
			t, n, len(dst), len(src), stride))
	}
	for g := 0; g < w/BlockSize; g++ {
		expandColumn(t, dst[g*BlockSize:], w, src[g*bb:], stride, n)
	}
}

// expandColumnGo expands block g of n rows: block r is src[r*stride:][:bb]
// and goes to dst[r*w:][:BlockSize]. The caller has checked the bounds.
func expandColumnGo(t Type, dst []float32, w int, src []byte, stride, n int) {
	bb := t.BlockBytes()
	for r := range n {
		decodeBlock(t, (*[BlockSize]float32)(dst[r*w:]), src[r*stride:r*stride+bb])
	}
}
