package kernels

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// fusedDotFunc computes four rows' dots against a prepared activation (see
// fused_dot4_amd64.go).
type fusedDotFunc func(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// fusedKernels are a level's four-row decode kernels for one weight type
// (a registry entry; fused_dot4_amd64.go describes them).
type fusedKernels struct {
	one      fusedDotFunc  // four rows against one column
	cols     fusedDotNFunc // colsRows rows against up to four columns; nil: one per column
	colsRows int           // rows per cols call (4 or 2)
	group    int           // values per group of the kernels' n
	prepared bool          // the activation goes through prepareFused (else the q8_K row itself)
}

// Layout of one group (four q8_0 blocks, 128 values) of a prepared
// activation, made for the Q4_0 kernels' unpacking (the 16 quant bytes of
// the four weight blocks side by side in one register, low nibbles =
// values 0..15 of each block, high nibbles = values 16..31):
//
//	bytes   0..63   x[0:16] of block j at 16j
//	bytes  64..127  x[16:32] of block j at 64+16j
//	bytes 128..191  int32 lanes 4j..4j+3 = -8·Σx of block j, 0, 0, 0: the
//	                accumulator's start, so the nibble offset ((q-8)·x =
//	                q·x - 8x) costs a load instead of a subtraction
//	bytes 192..255  the float32 scale of block j in lanes 4j..4j+3
const (
	fusedGroupValues = 128
	fusedGroupBytes  = 256
	fusedInitOff     = 128
	fusedScalesOff   = 192
)

// DecodeMatVec is MatVecPool (dst[r] = VecDot(t, n, row r of w, xq) for r
// < len(dst), rows split across the pool) for the decode step: where the
// CPU has a four-row kernel for t (Q4_0, Q4_K, Q6_K) it streams the
// weights four rows at a time, which shares every activation load (and,
// for Q4_0, the activation prepared once by prepareFused) between the rows
// and runs four independent accumulation chains. Each result has the bits VecDot (and
// MatMul) give, so decode stays batch invariant. Preconditions are those of
// MatVecPool.
func DecodeMatVec(p *Pool, t DType, dst []float32, w, xq []byte, n int) {
	DecodeMatMul(p, t, dst, len(dst), w, len(dst), n, xq, 0, 1)
}

// DecodeMaxCols is the largest column count DecodeMatMul streams through
// the four-row kernels; wider products go to MatMul's GEMM tiles. Measured
// on the 1B Q4_0 model, one thread (one forward pass of k tokens against
// one token): k = 9 costs 4.2x through DecodeMatMul and 8.6x through the
// GEMM path, k = 16 6.2x against 10.4x, k = 32 12.4x against ~14x; the
// GEMM's per-column cost only wins for full prompt batches (pp512).
const DecodeMaxCols = 32

// DecodeMatMul is MatMul (same arguments, same results bit for bit) for
// the few columns of a decode step or a speculative verify batch: where the
// CPU has four-row kernels for t and cols <= DecodeMaxCols, the weights are
// streamed once, four rows at a time, and each group of four rows meets
// every column while it is in registers or L1 (Q4_0: up to four columns
// per pass share the nibble unpacking; Q4_K, Q6_K: one column per pass over
// the L1-resident rows). Otherwise (and for a single Q6_K column split
// across the pool: streamsOneRow) it is MatMul.
func DecodeMatMul(p *Pool, t DType, dst []float32, dstStride int, w []byte, rows, n int, xq []byte, xStride, cols int) {
	fk := active.fused[t]
	if fk == nil || n%fk.group != 0 || rows < 4 || cols < 1 || cols > DecodeMaxCols || streamsOneRow(p, t, cols) {
		MatMul(p, t, dst, dstStride, w, rows, n, xq, xStride, cols)
		return
	}
	rb, xn := checkMatMul(t, dst, dstStride, w, rows, n, xq, xStride, cols)
	if p == nil {
		p = serialPool
	}
	p.mu.Lock()
	f := &p.fv
	f.xs = xStride
	if fk.prepared {
		pb := n / fusedGroupValues * fusedGroupBytes
		buf := f.buf(cols * pb)
		for c := range cols {
			prepareFused(buf[c*pb:(c+1)*pb], xq[c*xStride:c*xStride+xn], n)
		}
		f.xp, f.xs = buf, pb
	} else {
		f.xp = xq[:(cols-1)*xStride+xn]
	}
	f.dst, f.w, f.xq, f.rb, f.n, f.k, f.vd = dst, w, xq, rb, n, fk, active.vecDot[t]
	f.cols, f.dstStride, f.xStride = cols, dstStride, xStride
	f.groups = n / fk.group
	f.plan(p.n, rows, rows*rb*cols)
	if f.workers == 1 {
		f.Run(0, 1)
	} else {
		p.doLocked(f)
	}
	f.dst, f.w, f.xq, f.xp = nil, nil, nil, nil
	p.mu.Unlock()
}

// streamsOneRow reports whether a single-column Q6_K product split across
// the pool reads its rows one at a time (VecDot, through MatMul) instead of
// four side by side. Decode is memory bound: the four-row kernel feeds on
// its own prefetching of the rows eight on, the one-row dot on the
// hardware's prefetching of one sequential stream, and with two threads
// loading memory the stream wins for Q6_K. Measured on the 1B Q4_K_M
// decode step (in-process A/B, modes alternated per token in random order,
// median of paired ratios): two threads, one-row Q6_K 2.8, 3.8 and 3.9%
// faster per token in three runs; one thread, 4-5% slower, so one thread
// keeps the four-row kernel. Q4_K measured the other way on two threads
// (one-row for both types: 1-6% slower per token).
func streamsOneRow(p *Pool, t DType, cols int) bool {
	return t == Q6_K && cols == 1 && p.Threads() > 1
}

// fusedDotNFunc computes four rows' dots against nc <= 4 activation
// columns xs bytes apart, out[4c+r] (see fused_dotn_amd64.go).
type fusedDotNFunc func(groups int, w []byte, rb int, xp []byte, xs int, nc int, out *[16]float32)

// fusedTask is one DecodeMatMul; it lives in its Pool and is reused under
// the pool's mutex, with its prepared-activation buffer.
type fusedTask struct {
	dst                []float32
	w, xq, xp          []byte
	store              []byte
	rb, n, rows        int
	cols, groups       int
	dstStride, xStride int
	xs                 int // bytes between columns of xp
	k                  *fusedKernels
	vd                 vecDotFunc
	workers            int
	sched              rowSpans
}

// buf returns size bytes of 64-byte aligned scratch, grown once per pool.
func (f *fusedTask) buf(size int) []byte {
	if len(f.store) < size+64 {
		f.store = make([]byte, size+64)
	}
	off := int(-uintptr(unsafe.Pointer(&f.store[0])) & 63)
	return f.store[off : off+size]
}

// plan picks the workers (one below parallelMinWork) and, for several,
// their spans of rows (see rowSpans).
func (f *fusedTask) plan(nWorkers, rows, work int) {
	if work < parallelMinWork {
		nWorkers = 1
	}
	f.workers, f.rows = nWorkers, rows
	if nWorkers > 1 {
		f.sched.plan(nWorkers, rows, work/rows)
	}
}

// Run computes the rows of worker's span, then helps with the others'
// (see rowSpans); a single worker computes them all.
func (f *fusedTask) Run(worker, nWorkers int) {
	if nWorkers == 1 {
		f.runRows(0, f.rows)
		return
	}
	f.sched.run(worker, nWorkers, f)
}

// runRows computes rows [r0, r1) of every column.
func (f *fusedTask) runRows(r0, r1 int) {
	if f.cols == 1 {
		f.rowRange(r0, r1)
	} else {
		f.rowRangeN(r0, r1)
	}
}

// rowRange computes rows [r0, r1) of one column: four at a time, the rest
// one by one.
func (f *fusedTask) rowRange(r0, r1 int) {
	r := r0
	for ; r+4 <= r1; r += 4 {
		f.k.one(f.groups, f.w[r*f.rb:(r+4)*f.rb], f.rb, f.xp, (*[4]float32)(f.dst[r:r+4]))
	}
	for ; r < r1; r++ {
		f.dst[r] = f.vd(f.n, f.w[r*f.rb:(r+1)*f.rb], f.xq)
	}
}

// rowRangeN computes rows [r0, r1) of every column: each colsRows rows
// meet the columns four at a time (cols), or each four rows meet them one
// at a time (one); the rows left over go through VecDot.
func (f *fusedTask) rowRangeN(r0, r1 int) {
	step := 4
	if f.k.cols != nil {
		step = f.k.colsRows
	}
	var out [16]float32
	r := r0
	for ; r+step <= r1; r += step {
		w := f.w[r*f.rb : (r+step)*f.rb]
		for c0 := 0; c0 < f.cols; c0 += 4 {
			nc := min(4, f.cols-c0)
			if f.k.cols != nil {
				f.k.cols(f.groups, w, f.rb, f.xp[c0*f.xs:], f.xs, nc, &out)
			} else {
				for c := range nc {
					f.k.one(f.groups, w, f.rb, f.xp[(c0+c)*f.xs:], (*[4]float32)(out[4*c:4*c+4]))
				}
			}
			for c := range nc {
				d := (c0+c)*f.dstStride + r
				copy(f.dst[d:d+step], out[4*c:4*c+step])
			}
		}
	}
	for ; r < r1; r++ {
		for c := range f.cols {
			f.dst[c*f.dstStride+r] = f.vd(f.n, f.w[r*f.rb:(r+1)*f.rb], f.xq[c*f.xStride:])
		}
	}
}

// prepareFused writes the q8_0 activation xq (n values) into xp in the
// group layout of the four-row kernel and returns xp.
func prepareFused(xp, xq []byte, n int) []byte {
	for b := range n / 32 {
		blk := xq[b*34 : (b+1)*34]
		g, j := b/4, b%4
		grp := xp[g*fusedGroupBytes : (g+1)*fusedGroupBytes]
		copy(grp[16*j:16*j+16], blk[2:18])        // x[0:16] meet the low nibbles
		copy(grp[64+16*j:64+16*j+16], blk[18:34]) // x[16:32] meet the high nibbles
		sum := int32(0)
		for _, q := range blk[2:34] {
			sum += int32(int8(q))
		}
		init := grp[fusedInitOff+16*j : fusedInitOff+16*j+16]
		clear(init)
		binary.LittleEndian.PutUint32(init, uint32(-8*sum))
		d := math.Float32bits(f16At(blk))
		for l := range 4 {
			binary.LittleEndian.PutUint32(grp[fusedScalesOff+16*j+4*l:], d)
		}
	}
	return xp
}
