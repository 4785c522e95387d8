//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"github.com/waggle-llm/waggle/engine"
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
	"github.com/waggle-llm/waggle/kvcache"
)

// kvMirror tracks which of the CPU cache's rows the device holds. The device
// cache uses the CPU cache's cells, so a sequence's device rows are right as
// long as its pages have not changed under it: after each step the mirror
// records the sequence's spans; before the next step of that sequence the
// spans of its committed positions are compared with the record, together
// with the cache's restore generation. A mismatch (a fork gave it shared or
// copied pages, copy on write moved a page, a state file was restored, or a
// context shift rewrote rows and called Invalidate) re-uploads the rows of
// its committed positions from the CPU cache for every offloaded layer.
type kvMirror struct {
	seqs     []seqMirror
	maxPages int
	spans    []kvcache.Span // scratch, MaxSpans long
	batchLen []int          // per sequence: its length after the current batch (0: not in it)
	staging  *vk.Buffer     // refresh uploads
}

type seqMirror struct {
	n     int            // positions mirrored
	gen   uint64         // cache.Generation when mirrored
	spans []kvcache.Span // the spans of those positions
}

// refreshChunk bounds the staging buffer of a refresh.
const refreshChunk = 32 << 20

func (m *kvMirror) init(c *kvcache.Cache) {
	nSeq := c.Options().NSeq
	m.maxPages = c.MaxSpans()
	m.seqs = make([]seqMirror, nSeq)
	for i := range m.seqs {
		m.seqs[i].spans = make([]kvcache.Span, 0, m.maxPages)
	}
	m.spans = make([]kvcache.Span, 0, m.maxPages)
	m.batchLen = make([]int, nSeq)
}

func (m *kvMirror) invalidate(seq int) {
	if seq >= 0 && seq < len(m.seqs) {
		m.seqs[seq].n = 0
	}
}

func (m *kvMirror) free() {
	m.staging.Free()
	m.staging = nil
}

// sync notes each batch sequence's length after the batch and re-uploads
// the sequences whose device rows are stale.
func (m *kvMirror) sync(o *offload, st *engine.OffloadStep) error {
	b, c := st.Batch, st.Cache
	for i := range b.Len() {
		seq := int(b.Seq[i])
		m.batchLen[seq] = max(m.batchLen[seq], int(b.Pos[i])+1)
	}
	for seq, n := range m.batchLen {
		if n == 0 {
			continue
		}
		have := c.Len(seq)
		if have == 0 || m.fresh(seq, c, have) {
			continue
		}
		if err := m.refresh(o, c, seq, have); err != nil {
			return err
		}
	}
	return nil
}

// fresh reports whether the device holds sequence seq's first n rows.
func (m *kvMirror) fresh(seq int, c *kvcache.Cache, n int) bool {
	sm := &m.seqs[seq]
	if sm.n < n || sm.gen != c.Generation(seq) {
		return false
	}
	cur := c.Spans(seq, n, m.spans)
	for i, s := range cur {
		if i >= len(sm.spans) {
			return false
		}
		r := sm.spans[i]
		if r.Pos != s.Pos || r.Cell != s.Cell || (r.N != s.N && !(i == len(cur)-1 && r.N > s.N)) {
			return false
		}
	}
	return true
}

// refresh uploads sequence seq's first n rows of every offloaded layer
// from the CPU cache, through a staging buffer, in as few submits as the
// buffer allows.
func (m *kvMirror) refresh(o *offload, c *kvcache.Cache, seq, n int) error {
	if m.staging == nil {
		b, err := o.d.NewBuffer(refreshChunk, vk.HostMemory)
		if err != nil {
			return err
		}
		m.staging = b
	}
	up := uploader{r: o.xfer, st: m.staging}
	rb := uint64(o.rowBytes)
	for _, sp := range c.Spans(seq, n, m.spans) {
		for li := range o.layers {
			il := o.first + li
			dst := uint64(sp.Cell) * rb
			if err := up.add(o.kc[li].Region(dst, uint64(sp.N)*rb), c.KeyCells(il, sp.Cell, sp.N)); err != nil {
				return err
			}
			if err := up.add(o.vc[li].Region(dst, uint64(sp.N)*rb), c.ValueCells(il, sp.Cell, sp.N)); err != nil {
				return err
			}
		}
	}
	if err := up.flush(); err != nil {
		return err
	}
	m.record(seq, c, n)
	return nil
}

// record notes that the device holds sequence seq's first n rows.
func (m *kvMirror) record(seq int, c *kvcache.Cache, n int) {
	sm := &m.seqs[seq]
	sm.n, sm.gen = n, c.Generation(seq)
	sm.spans = append(sm.spans[:0], c.Spans(seq, n, m.spans)...)
}

// writeBack copies the step's new rows (host.kvout) into the CPU cache and
// records the batch sequences as mirrored.
func (m *kvMirror) writeBack(o *offload, st *engine.OffloadStep) {
	b, c := st.Batch, st.Cache
	n, rb := b.Len(), o.rowBytes
	out := o.host.kvout.Bytes()
	for li := range o.layers {
		il, base := o.first+li, 2*li*n
		for i := range n {
			seq, pos := int(b.Seq[i]), int(b.Pos[i])
			copy(c.KeyRow(il, seq, pos), out[(base+i)*rb:(base+i+1)*rb])
			copy(c.ValueRow(il, seq, pos), out[(base+n+i)*rb:(base+n+i+1)*rb])
		}
	}
	for seq, l := range m.batchLen {
		if l > 0 {
			m.record(seq, c, l)
			m.batchLen[seq] = 0
		}
	}
}

// uploader batches copies from a host staging buffer into device buffers,
// submitting when the staging buffer is full.
type uploader struct {
	r    *vk.Recorder
	st   *vk.Buffer
	used uint64
	open bool
}

func (u *uploader) add(dst vk.Region, data []byte) error {
	for len(data) > 0 {
		if u.used == u.st.Size() {
			if err := u.flush(); err != nil {
				return err
			}
		}
		if !u.open {
			if err := u.r.Begin(); err != nil {
				return err
			}
			u.open = true
		}
		k := copy(u.st.Bytes()[u.used:], data)
		u.r.Copy(dst.Sub(0, uint64(k)), u.st.Region(u.used, uint64(k)))
		u.used += uint64(k)
		dst = dst.Sub(uint64(k), dst.Size-uint64(k))
		data = data[k:]
	}
	return nil
}

func (u *uploader) flush() error {
	u.used = 0
	if !u.open {
		return nil
	}
	u.open = false
	return u.r.Submit()
}
