package dflash

import (
	"unsafe"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// crossCache holds one sequence's context rows as every drafter layer
// reads them: per layer, the key (W_k·F_t after k_norm, not rotated: a
// row's position in the window changes as the window slides) and the
// value W_v·F_t of each window row, F_t = hidden_norm(W_fc·c_t) being the
// fused target row of position t. It holds positions [start, end), at most
// CrossCtx, at slot pos mod CrossCtx, and is what the ring held when it
// was synced (ring, gen), so rows are projected once, when they enter the
// window.
type crossCache struct {
	k, v       [][]float32 // per layer: capRows rows of n_kv·hd
	capRows    int
	start, end int
	ring       *engine.HiddenRing
	gen        uint64
}

func (c *crossCache) key(il, pos int) []float32 { return c.slot(c.k[il], pos) }

func (c *crossCache) value(il, pos int) []float32 { return c.slot(c.v[il], pos) }

func (c *crossCache) slot(buf []float32, pos int) []float32 {
	w, s := len(buf)/c.capRows, pos%c.capRows
	return buf[s*w : (s+1)*w]
}

// sync brings sequence seq's cache to the newest min(CrossCtx, ring.Len())
// rows of ring, projecting only the rows it does not hold yet (all of
// them when the ring was cut or replaced since the last sync), and
// returns the window's length.
func (d *drafter) sync(seq int, ring *engine.HiddenRing) int {
	c := &d.cross[seq]
	if c.k == nil {
		d.allocCross(c)
	}
	end := ring.End()
	start := max(ring.Start(), end-d.o.CrossCtx)
	if c.ring != ring || c.gen != ring.Generation() || c.end < start || c.end > end || c.start > start {
		c.start, c.end = start, start
	}
	c.ring, c.gen = ring, ring.Generation()
	for c.end < end {
		n := min(projectChunk, end-c.end)
		d.projectRows(c, ring, c.end, n)
		c.end += n
	}
	c.start = start
	return c.end - c.start
}

// allocCross sizes one sequence's cache.
func (d *drafter) allocCross(c *crossCache) {
	hp := &d.m.hp
	kvd := hp.nHeadKV * hp.headDim
	c.capRows = d.o.CrossCtx
	c.k, c.v = make([][]float32, hp.nLayer), make([][]float32, hp.nLayer)
	for il := range hp.nLayer {
		c.k[il] = make([]float32, d.o.CrossCtx*kvd)
		c.v[il] = make([]float32, d.o.CrossCtx*kvd)
	}
}

// projectRows projects ring positions [from, from+n) (n ≤ projectChunk)
// into c: F = hidden_norm(W_fc·c_t), then per layer k_norm(W_k·F) and W_v·F.
func (d *drafter) projectRows(c *crossCache, ring *engine.HiddenRing, from, n int) {
	hp := &d.m.hp
	nf, kvd := ring.Width(), hp.nHeadKV*hp.headDim
	for i := range n {
		copy(d.ctxIn[i*nf:(i+1)*nf], ring.Row(from+i))
	}
	d.project(d.m.fc, d.h, d.ctxIn, n, true)
	d.normRows(d.h, d.h, d.m.hiddenNorm, n)
	for il := range d.m.layers {
		l := &d.m.layers[il]
		d.project(l.wk, d.kb, d.h, n, true)
		d.project(l.wv, d.vb, d.h, n, !sameActs(l.wk, l.wv))
		for i := range n {
			k := row(d.kb, i, kvd)
			for h := 0; h < kvd; h += hp.headDim {
				head := k[h : h+hp.headDim]
				kernels.RMSNorm(head, head, hp.eps)
				kernels.Mul(head, head, l.kNorm)
			}
			copy(c.key(il, from+i), k)
			copy(c.value(il, from+i), row(d.vb, i, kvd))
		}
	}
}

// f32Bytes views x as little-endian float32 rows (kernels.F32).
func f32Bytes(x []float32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}
