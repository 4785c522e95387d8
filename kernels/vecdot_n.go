package kernels

import "fmt"

// VecDotN computes out[c] = VecDot(t, n, w, x[c*xStride:]) for every c <
// len(out), 1 <= len(out) <= MaxDotCols. x holds len(out) activation
// columns in t.VecDotType(), xStride bytes apart (at least the row size of n
// values). Implementations that unpack a weight block once for all columns
// register a vecDotN kernel; otherwise this loops over VecDot.
//
// Batch invariance: every implementation's out[c] has exactly the bits of
// its own VecDot on column c (TestBatchInvariance), so a sequence's logits
// do not depend on which other sequences or positions share its batch. The
// server's continuous batching and exact speculative verification rely on
// it.
func VecDotN(t DType, n int, w, x []byte, xStride int, out []float32) {
	nc := len(out)
	if nc == 0 {
		return
	}
	if nc > MaxDotCols {
		panic(fmt.Sprintf("kernels: VecDotN %v: %d columns, at most %d", t, nc, MaxDotCols))
	}
	wn, xn := checkVecDot("VecDotN", t, n, len(w), x)
	if xStride < xn || len(x) < (nc-1)*xStride+xn {
		panic(fmt.Sprintf("kernels: VecDotN %v: %d columns of %d bytes at stride %d need %d bytes, have %d", t, nc, xn, xStride, (nc-1)*xStride+xn, len(x)))
	}
	if f := active.vecDotN[t]; f != nil {
		f(n, w[:wn], x, xStride, out)
		return
	}
	vecDotNLoop(active.vecDot[t], n, w[:wn], x, xStride, xn, out)
}

// vecDotNLoop is the generic VecDotN: one VecDot per column.
func vecDotNLoop(f vecDotFunc, n int, w, x []byte, xStride, xn int, out []float32) {
	for c := range out {
		out[c] = f(n, w, x[c*xStride:c*xStride+xn])
	}
}
