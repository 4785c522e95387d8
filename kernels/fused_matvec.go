package kernels

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"unsafe"
)

// fusedDotFunc computes four rows' dots against a prepared activation (see
// fused_dot4_amd64.go).
type fusedDotFunc func(groups int, w []byte, rb int, xp []byte, out *[4]float32)

// Layout of one group (four q8_0 blocks, 128 values) of a prepared
// activation: the 128 quants in the order the Q4_0 nibble unpack produces
// (see placeQuants), then 8·Σq of block j as int32 in lanes 4j..4j+3 (the
// nibble offset: (q-8)·x = q·x - 8x), then the float32 scale of block j in
// lanes 4j..4j+3.
const (
	fusedGroupValues = 128
	fusedGroupBytes  = 256
	fusedSumsOff     = 128
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
	k, group, prepared := fusedKernel(t)
	if k == nil || n%group != 0 || len(dst) < 4 {
		MatVecPool(p, t, dst, w, xq, n)
		return
	}
	rb, xn := checkMatMul(t, dst, len(dst), w, len(dst), n, xq, 0, 1)
	if p == nil {
		p = serialPool
	}
	p.mu.Lock()
	f := &p.fv
	if prepared {
		f.xp = prepareFused(f.buf(n/fusedGroupValues*fusedGroupBytes), xq[:xn], n)
	} else {
		f.xp = xq[:xn]
	}
	f.dst, f.w, f.xq, f.rb, f.n, f.kern, f.vd = dst, w, xq[:xn], rb, n, k, active.vecDot[t]
	f.groups = n / group
	f.plan(p.n, len(dst), len(dst)*rb)
	if f.workers == 1 {
		f.Run(0, 1)
	} else {
		p.doLocked(f)
	}
	f.dst, f.w, f.xq, f.xp = nil, nil, nil, nil
	p.mu.Unlock()
}

// fusedTask is one DecodeMatVec; it lives in its Pool and is reused under
// the pool's mutex, with its prepared-activation buffer.
type fusedTask struct {
	dst               []float32
	w, xq, xp         []byte
	store             []byte
	rb, n, rows       int
	groups            int
	kern              fusedDotFunc
	vd                vecDotFunc
	workers           int
	chunkRows, chunks int
	next              atomic.Int64
}

// buf returns size bytes of 64-byte aligned scratch, grown once per pool.
func (f *fusedTask) buf(size int) []byte {
	if len(f.store) < size+64 {
		f.store = make([]byte, size+64)
	}
	off := int(-uintptr(unsafe.Pointer(&f.store[0])) & 63)
	return f.store[off : off+size]
}

// plan splits rows into chunks of a multiple of 16 rows (so every chunk
// but the last is whole groups of four), about chunksPerWorker per worker.
func (f *fusedTask) plan(nWorkers, rows, work int) {
	if work < parallelMinWork {
		nWorkers = 1
	}
	f.workers, f.rows = nWorkers, rows
	f.chunkRows = rows
	if nWorkers > 1 {
		per := (rows + chunksPerWorker*nWorkers - 1) / (chunksPerWorker * nWorkers)
		f.chunkRows = (per + chunkAlign - 1) / chunkAlign * chunkAlign
	}
	f.chunks = (rows + f.chunkRows - 1) / f.chunkRows
	f.next.Store(0)
}

// Run claims chunks of rows until none is left.
func (f *fusedTask) Run(_, _ int) {
	for c := int(f.next.Add(1)) - 1; c < f.chunks; c = int(f.next.Add(1)) - 1 {
		r0 := c * f.chunkRows
		f.rowRange(r0, min(r0+f.chunkRows, f.rows))
	}
}

// rowRange computes rows [r0, r1): four at a time, the rest one by one.
func (f *fusedTask) rowRange(r0, r1 int) {
	r := r0
	for ; r+4 <= r1; r += 4 {
		f.kern(f.groups, f.w[r*f.rb:(r+4)*f.rb], f.rb, f.xp, (*[4]float32)(f.dst[r:r+4]))
	}
	for ; r < r1; r++ {
		f.dst[r] = f.vd(f.n, f.w[r*f.rb:(r+1)*f.rb], f.xq)
	}
}

// prepareFused writes the q8_0 activation xq (n values) into xp in the
// group layout of the four-row kernel and returns xp.
func prepareFused(xp, xq []byte, n int) []byte {
	for b := range n / 32 {
		blk := xq[b*34 : (b+1)*34]
		g, j := b/4, b%4
		grp := xp[g*fusedGroupBytes : (g+1)*fusedGroupBytes]
		placeQuants(grp, j, blk[2:34])
		sum := int32(0)
		for _, q := range blk[2:34] {
			sum += int32(int8(q))
		}
		d := math.Float32bits(f16At(blk))
		for l := range 4 {
			binary.LittleEndian.PutUint32(grp[fusedSumsOff+16*j+4*l:], uint32(8*sum))
			binary.LittleEndian.PutUint32(grp[fusedScalesOff+16*j+4*l:], d)
		}
	}
	return xp
}

// placeQuants copies block j's 32 quants into its group: blocks (0,1) and
// (2,3) are paired as lo(a) lo(b) hi(a) hi(b), 16 quants each, the order
// in which the kernel unpacks the low and high nibbles of two blocks.
func placeQuants(grp []byte, j int, q []byte) {
	base := 64*(j/2) + 16*(j%2)
	copy(grp[base:base+16], q[:16])
	copy(grp[base+32:base+48], q[16:])
}
