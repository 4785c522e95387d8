package kernels

import (
	"fmt"
	"sync/atomic"
)

// MatMul computes dst[c*dstStride+r] = VecDot(t, n, row r of w, column c of
// xq) for every row r < rows and column c < cols: w holds rows contiguous
// rows of n values of type t (t.RowBytes(n) bytes each), and xq holds cols
// activation columns in t.VecDotType(), xStride bytes apart (as made by
// QuantizeRows). This is ggml's mul_mat for a quantized weight: one
// integer-accumulating dot per output element, so the result of an element
// does not depend on the thread count or on how rows are split.
//
// Rows are cut into contiguous chunks (about chunksPerWorker per worker)
// that the pool's workers claim through an atomic counter, which keeps the
// split balanced when a core is busy with something else. Within a chunk,
// rows are taken in tiles of about tileBytes of weights, and each tile is
// multiplied by the columns in groups of MaxDotCols through VecDotN, so the
// tile is read from memory once and from L1 for every further group. cols
// == 1 (decode) uses VecDot row by row, and on several workers its rows
// are scheduled by spans rather than chunks (rowSpans).
//
// Where the selected level has a GEMM tile kernel for t (avx512vnni: Q4_0
// Q8_0 Q4_K Q6_K) and cols >= 4, the activations are first
// packed into panels of four columns (by all workers, into a buffer the
// pool keeps), and each chunk runs four-row × four-column register tiles:
// rows in L2-sized blocks, each block against every panel. The weights are
// read in place. Rows and columns left over from whole tiles go through
// VecDotN; every output has the bits of VecDot of its row and column either
// way (TestMatMulBatchInvariance). Work below parallelMinWork runs on
// the caller alone, since waking the workers would cost more than it saves.
// p may be nil (run on the caller).
//
// Preconditions (violations panic before any work starts): those of
// VecDot; rows, cols >= 0; len(w) >= rows*t.RowBytes(n); for cols > 1,
// xStride >= t.VecDotType().RowBytes(n) and dstStride >= rows; len(xq) and
// len(dst) cover the last column. dst must not overlap w or xq.
func MatMul(p *Pool, t DType, dst []float32, dstStride int, w []byte, rows, n int, xq []byte, xStride, cols int) {
	rb, xn := checkMatMul(t, dst, dstStride, w, rows, n, xq, xStride, cols)
	if rows == 0 || cols == 0 {
		return
	}
	if p == nil {
		p = serialPool
	}
	p.mu.Lock()
	m := &p.mm
	*m = matMulTask{
		dst: dst, dstStride: dstStride, w: w, rb: rb, n: n, xq: xq, xStride: xStride, xn: xn,
		rows: rows, cols: cols, vd: active.vecDot[t], vdn: active.vecDotN[t], out: m.out, pack: m.pack, sched: m.sched,
	}
	m.plan(p.n, rows*rb*cols)
	if m.panels = 0; cols >= gemmTileCols && rows >= gemmTileRows && !gemmDisabled {
		if m.gemm = active.gemm[t]; m.gemm != nil && n%m.gemm.values == 0 {
			m.preparePanels()
			m.run(p) // pack the panels
			m.packing = false
			m.next.Store(0)
		}
	}
	m.run(p)
	m.dst, m.w, m.xq, m.gemm = nil, nil, nil, nil // do not keep the caller's buffers alive
	p.mu.Unlock()
}

// MatVecPool is MatMul for one activation column (the decode case):
// dst[r] = VecDot(t, n, row r of w, x) for r < len(dst), rows split across
// the pool. Preconditions are those of kernels.MatVec.
func MatVecPool(p *Pool, t DType, dst []float32, w, x []byte, n int) {
	MatMul(p, t, dst, len(dst), w, len(dst), n, x, 0, 1)
}

// Tuning of MatMul, measured on the reference kernels: see the package
// benchmarks BenchmarkMatMul, BenchmarkGEMM and BenchmarkPoolDispatch.
const (
	tileBytes       = 16 << 10  // weight bytes per tile, well inside L1d with one column group
	chunksPerWorker = 4         // chunks per worker, for balance on a shared machine
	chunkAlign      = 16        // chunk rows are rounded to this (64-byte dst lines)
	gemmBlockBytes  = 256 << 10 // weight bytes per GEMM row block, well inside L2
)

// parallelMinWork is the weight bytes × columns below which a MatMul runs on
// the caller alone; ForceParallel sets it to 0 for tests.
var parallelMinWork = 64 << 10

// ForceParallel makes MatMul, QuantizeRows and the engine's attention
// dispatch every call to the pool, however small, and returns a func that
// restores the thresholds. It is a test hook: tiny test models would
// otherwise never leave the caller's thread. Like SelectImpl it must not
// run while kernels run.
func ForceParallel() (restore func()) {
	mm, qr := parallelMinWork, quantizeMinValues
	parallelMinWork, quantizeMinValues = 0, 0
	forced = true
	return func() { parallelMinWork, quantizeMinValues, forced = mm, qr, false }
}

// forced reports whether ForceParallel is in effect.
var forced bool

// Forced reports whether ForceParallel is in effect, so that parallel code
// outside this package (attention) can apply the same rule.
func Forced() bool { return forced }

// serialPool runs the calls given a nil pool: no workers, but the task slots
// of a pool.
var serialPool = NewPool(1)

// matMulTask holds one MatMul's arguments and the chunk counter its workers
// share. It lives in its Pool and is reused under the pool's mutex.
type matMulTask struct {
	dst               []float32
	dstStride         int
	w                 []byte
	rb, n             int
	xq                []byte
	xStride, xn       int
	rows, cols        int
	vd                vecDotFunc
	vdn               vecDotNFunc
	workers           int
	chunkRows, chunks int
	tileRows          int
	next              atomic.Int64
	sched             rowSpans      // one column on several workers (decode)
	out               [][16]float32 // per worker VecDotN results, one cache line each

	// The GEMM path (gemm is nil without it): the activations packed into
	// panels of four columns, packed by every worker first (packing).
	gemm       *gemmKernel
	pack       []byte
	panels     int
	panelBytes int
	packing    bool
	blockRows  int
}

// plan sets the worker count, chunks and tiles for nWorkers threads and the
// given amount of work.
func (m *matMulTask) plan(nWorkers, work int) {
	if work < parallelMinWork {
		nWorkers = 1
	}
	m.workers = nWorkers
	m.chunkRows = (m.rows + chunksPerWorker*nWorkers - 1) / (chunksPerWorker * nWorkers)
	if nWorkers == 1 {
		m.chunkRows = m.rows
	} else if m.chunkRows > chunkAlign {
		m.chunkRows = (m.chunkRows + chunkAlign - 1) / chunkAlign * chunkAlign
	}
	m.chunks = (m.rows + m.chunkRows - 1) / m.chunkRows
	m.tileRows = max(1, tileBytes/max(m.rb, 1))
	m.next.Store(0)
	if m.cols == 1 && nWorkers > 1 {
		m.sched.plan(nWorkers, m.rows, m.rb)
	}
	if len(m.out) < nWorkers {
		m.out = make([][16]float32, nWorkers) // once per pool
	}
}

// run runs the task on the caller alone or on the whole pool.
func (m *matMulTask) run(p *Pool) {
	if m.workers == 1 {
		m.Run(0, 1)
	} else {
		p.doLocked(m)
	}
}

// preparePanels sets up the GEMM path: cols/4 panels of packed activations
// in m.pack (grown once per pool, never shrunk), and the packing phase.
func (m *matMulTask) preparePanels() {
	m.panels = m.cols / gemmTileCols
	m.panelBytes = m.n / m.gemm.values * m.gemm.record
	if need := m.panels * m.panelBytes; len(m.pack) < need {
		m.pack = make([]byte, need)
	}
	m.packing = true
	m.next.Store(0)
	m.blockRows = max(gemmTileRows, gemmBlockBytes/m.rb&^(gemmTileRows-1))
}

// Run claims chunks until none is left. No chunk is bound to a worker: a
// worker the OS has descheduled delays the barrier only by its
// acknowledgement, never by a chunk of its own. One column on several
// workers (a decode step) is scheduled by spans instead (rowSpans), where
// the others take over a late worker's span claim by claim.
func (m *matMulTask) Run(worker, nWorkers int) {
	if m.cols == 1 && nWorkers > 1 {
		m.sched.run(worker, nWorkers, m)
		return
	}
	if m.packing {
		for p := int(m.next.Add(1)) - 1; p < m.panels; p = int(m.next.Add(1)) - 1 {
			m.gemm.pack(m.pack[p*m.panelBytes:(p+1)*m.panelBytes], m.xq[p*gemmTileCols*m.xStride:], m.xStride, m.n)
		}
		return
	}
	for c := int(m.next.Add(1)) - 1; c < m.chunks; c = int(m.next.Add(1)) - 1 {
		r0 := c * m.chunkRows
		r1 := min(r0+m.chunkRows, m.rows)
		switch {
		case m.cols == 1:
			m.column(r0, r1)
		case m.panels > 0:
			m.gemmTiles(r0, r1, m.out[worker][:MaxDotCols])
		default:
			m.tiles(r0, r1, 0, m.out[worker][:MaxDotCols])
		}
	}
}

// runRows is column for rowSpans.
func (m *matMulTask) runRows(r0, r1 int) { m.column(r0, r1) }

// column computes rows [r0, r1) of the single column.
func (m *matMulTask) column(r0, r1 int) {
	x := m.xq[:m.xn]
	for r := r0; r < r1; r++ {
		m.dst[r] = m.vd(m.n, m.w[r*m.rb:(r+1)*m.rb], x)
	}
}

// gemmTiles computes rows [r0, r1) of every column with the GEMM tile
// kernel: rows in blocks of about gemmBlockBytes of weights (kept in L2),
// each block against every panel (kept in L1 while the block's tiles of
// four rows pass), and the rows and columns beyond whole tiles through
// VecDotN. Every result has the bits of VecDot either way.
func (m *matMulTask) gemmTiles(r0, r1 int, out []float32) {
	r4 := r0 + (r1-r0)&^(gemmTileRows-1)
	for b0 := r0; b0 < r4; b0 += m.blockRows {
		b1 := min(b0+m.blockRows, r4)
		for p := range m.panels {
			x := &m.pack[p*m.panelBytes]
			for r := b0; r < b1; r += gemmTileRows {
				m.gemm.tile(m.n/m.gemm.values, &m.w[r*m.rb], m.rb, x, &m.dst[p*gemmTileCols*m.dstStride+r], m.dstStride)
			}
		}
	}
	if c0 := m.panels * gemmTileCols; c0 < m.cols {
		m.tiles(r0, r4, c0, out)
	}
	m.tiles(r4, r1, 0, out)
}

// tiles computes rows [r0, r1) of columns [cs, cols), a tile of rows at a
// time.
func (m *matMulTask) tiles(r0, r1, cs int, out []float32) {
	for t0 := r0; t0 < r1; t0 += m.tileRows {
		t1 := min(t0+m.tileRows, r1)
		for c0 := cs; c0 < m.cols; c0 += MaxDotCols {
			nc := min(MaxDotCols, m.cols-c0)
			x := m.xq[c0*m.xStride : (c0+nc-1)*m.xStride+m.xn]
			o := out[:nc]
			for r := t0; r < t1; r++ {
				m.dotN(m.w[r*m.rb:(r+1)*m.rb], x, o)
				for c, v := range o {
					m.dst[(c0+c)*m.dstStride+r] = v
				}
			}
		}
	}
}

// dotN is VecDotN without the argument checks MatMul has already made.
func (m *matMulTask) dotN(w, x []byte, out []float32) {
	if m.vdn != nil {
		m.vdn(m.n, w, x, m.xStride, out)
		return
	}
	for c := range out {
		out[c] = m.vd(m.n, w, x[c*m.xStride:c*m.xStride+m.xn])
	}
}

// checkMatMul validates MatMul's arguments and returns the bytes of one
// weight row and of one activation column.
func checkMatMul(t DType, dst []float32, dstStride int, w []byte, rows, n int, xq []byte, xStride, cols int) (rb, xn int) {
	rb, xn = checkVecDot("MatMul", t, n, -1, xq)
	switch {
	case rows < 0 || cols < 0:
		panic(fmt.Sprintf("kernels: MatMul %v: %d rows, %d columns", t, rows, cols))
	case rows == 0 || cols == 0:
		return rb, xn
	case len(w) < rows*rb:
		panic(fmt.Sprintf("kernels: MatMul %v: %d rows of %d bytes need %d bytes, have %d", t, rows, rb, rows*rb, len(w)))
	case cols > 1 && (xStride < xn || dstStride < rows):
		panic(fmt.Sprintf("kernels: MatMul %v: strides x=%d (row %d bytes), dst=%d (%d rows) overlap", t, xStride, xn, dstStride, rows))
	case len(xq) < (cols-1)*xStride+xn:
		panic(fmt.Sprintf("kernels: MatMul %v: %d columns of %d bytes at stride %d need %d bytes, have %d", t, cols, xn, xStride, (cols-1)*xStride+xn, len(xq)))
	case len(dst) < (cols-1)*dstStride+rows:
		panic(fmt.Sprintf("kernels: MatMul %v: %d columns of %d results at stride %d need %d floats, have %d", t, cols, rows, dstStride, (cols-1)*dstStride+rows, len(dst)))
	}
	return rb, xn
}
