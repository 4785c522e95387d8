package kernels

import "fmt"

// QuantizeRows runs QuantizeRow(t, dst[i*dstStride:], src[i*srcStride:
// i*srcStride+n]) for every row i < rows, the rows split across the pool:
// the activations of a batch are converted to a weight's vec-dot format
// once before MatMul. Each row's bytes are exactly QuantizeRow's. Batches
// below quantizeMinValues values run on the caller alone. p may be nil.
//
// Preconditions (violations panic before any work starts): t.CanQuantize();
// n is a multiple of t.BlockSize(); rows >= 0; for rows > 1, dstStride >=
// t.RowBytes(n) and srcStride >= n; dst and src cover the last row; dst and
// src do not overlap.
func QuantizeRows(p *Pool, t DType, dst []byte, dstStride int, src []float32, srcStride, n, rows int) {
	rb := checkQuantizeRows(t, dst, dstStride, src, srcStride, n, rows)
	if rows == 0 {
		return
	}
	if p == nil {
		p = serialPool
	}
	p.mu.Lock()
	q := &p.qr
	*q = quantizeRowsTask{f: active.quantize[t], dst: dst, dstStride: dstStride, rb: rb, src: src, srcStride: srcStride, n: n, rows: rows}
	if rows < 2 || rows*n < quantizeMinValues {
		q.Run(0, 1)
	} else {
		p.doLocked(q)
	}
	q.dst, q.src = nil, nil
	p.mu.Unlock()
}

// quantizeMinValues is the batch size, in values, below which QuantizeRows
// does not wake the workers; ForceParallel sets it to 0.
var quantizeMinValues = 16 << 10

// quantizeRowsTask holds one QuantizeRows call; workers take equal
// contiguous row ranges (every row costs the same).
type quantizeRowsTask struct {
	f                  quantizeFunc
	dst                []byte
	dstStride, rb      int
	src                []float32
	srcStride, n, rows int
}

func (q *quantizeRowsTask) Run(worker, nWorkers int) {
	r0, r1 := q.rows*worker/nWorkers, q.rows*(worker+1)/nWorkers
	for i := r0; i < r1; i++ {
		q.f(q.dst[i*q.dstStride:i*q.dstStride+q.rb], q.src[i*q.srcStride:i*q.srcStride+q.n])
	}
}

// checkQuantizeRows validates QuantizeRows' arguments and returns the bytes
// of one quantized row.
func checkQuantizeRows(t DType, dst []byte, dstStride int, src []float32, srcStride, n, rows int) int {
	if !t.CanQuantize() {
		panic(fmt.Sprintf("kernels: QuantizeRows not implemented for %v", t))
	}
	if n < 0 || n%t.BlockSize() != 0 || rows < 0 {
		panic(fmt.Sprintf("kernels: QuantizeRows %v: %d rows of %d values (block size %d)", t, rows, n, t.BlockSize()))
	}
	rb := t.RowBytes(n)
	switch {
	case rows == 0:
	case rows > 1 && (dstStride < rb || srcStride < n):
		panic(fmt.Sprintf("kernels: QuantizeRows %v: strides dst=%d (row %d bytes), src=%d (row %d values) overlap", t, dstStride, rb, srcStride, n))
	case len(dst) < (rows-1)*dstStride+rb:
		panic(fmt.Sprintf("kernels: QuantizeRows %v: %d rows of %d bytes at stride %d need %d bytes, have %d", t, rows, rb, dstStride, (rows-1)*dstStride+rb, len(dst)))
	case len(src) < (rows-1)*srcStride+n:
		panic(fmt.Sprintf("kernels: QuantizeRows %v: %d rows of %d values at stride %d need %d values, have %d", t, rows, n, srcStride, (rows-1)*srcStride+n, len(src)))
	}
	return rb
}
