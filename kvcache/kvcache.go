// Package kvcache stores the attention keys and values of every layer for
// every sequence the engine runs, and the fixed-size recurrent state of
// hybrid models' recurrent layers (recurrent.go).
//
// Layout: cells (one row per position and layer) are grouped in pages of
// PageSize consecutive cells. Each sequence has a page table mapping its
// logical page i (positions [i*PageSize, (i+1)*PageSize)) to a physical
// page; position p of sequence s lives in cell table[s][p/PageSize]*PageSize
// + p%PageSize of every layer. Rows are typed (see Type): a row holds the
// KV-head-major key (or value) vector of one position, NKV values, in the
// Type's encoding; nothing here reads inside a row, so new row encodings
// plug in through Type alone.
//
// Two pool modes (llama.cpp's --kv-unified):
//   - per-sequence quota (Unified false): NSeq*ceil(NCtx/PageSize) pages;
//     sequence s prefers its "home" pages [s*q, (s+1)*q), so it stays in one
//     contiguous run as the old fixed-region layout did, and can always
//     reach NCtx positions.
//   - unified (Unified true): one pool of NCtx cells (plus NSeq-1 pages of
//     slack for the sequences' partly filled last pages) shared by all
//     sequences; each may grow to NCtx positions while free pages last. A
//     growth that finds no free page fails with ErrPoolFull.
//
// Pages are reference counted: Fork shares the source's full pages and
// copies only its partial last page; Reserve copies a shared page before
// the sequence writes into it (copy on write). Truncate releases the pages
// past the new length. The engine calls Reserve before a forward pass and
// SetLen after it; Store writes only cells that Reserve made private.
//
// The element types are those of llama.cpp's --cache-type-k/-v. This package
// stores and loads rows; the attention math lives in the engine and kernels.
package kvcache

import (
	"errors"
	"fmt"
)

// DefaultPageSize is the number of positions per page when Options.PageSize
// is 0. 64 keeps a page's copy on fork small (64 rows per layer), wastes at
// most 63 cells per sequence of a unified pool, and, because the allocator
// keeps a sequence's pages physically adjacent, attention still sees runs
// of many pages; see engine.BenchmarkAttendPaged for the cost per run.
const DefaultPageSize = 64

// Options sizes a cache.
type Options struct {
	NLayer int // layers that have attention
	NKV    int // values per position and layer: n_head_kv * head_dim
	// HeadDim is the size of one KV head (0: NKV, one head). Each head is
	// encoded on its own (see Type), so NKV must be a multiple of it.
	HeadDim int
	NCtx    int  // positions per sequence at most (unified: also the pool's cells)
	NSeq    int  // sequences (server slots)
	TypeK   Type // element type of keys
	TypeV   Type // element type of values
	// Unified shares one pool of NCtx cells among all sequences instead of
	// giving each its own NCtx cells.
	Unified bool
	// PageSize is the number of positions per page (0: DefaultPageSize).
	PageSize int
	// Scatter is a test aid: every new page is the free page with the
	// highest index, so a growing sequence's pages run backwards and no
	// two are adjacent. Tests use it to check that results do not depend
	// on page placement; it makes attention walk one span per page.
	Scatter bool
	// Recurrent is the number of float32 values of recurrent state each
	// sequence carries beside its attention rows (0: none); see
	// recurrent.go. Memory: NSeq*Recurrent*4 bytes.
	Recurrent int
}

// ErrPoolFull is returned when a sequence needs a page and none is free
// (only possible with a unified pool, or a fork into a full one).
var ErrPoolFull = errors.New("kvcache: the KV cache pool is full")

// ErrSeqFull is returned when a sequence would grow past NCtx positions.
var ErrSeqFull = errors.New("kvcache: the sequence is full")

// Cache is a typed, paged KV store. It is not safe for concurrent mutation;
// the engine serialises Decode calls per session.
type Cache struct {
	opt        Options
	rowK, rowV int      // bytes per row
	page       int      // positions per page
	maxPages   int      // logical pages of one sequence: ceil(NCtx/page)
	k, v       [][]byte // per layer: nPages*page rows
	seqLen     []int    // committed length per sequence
	table      [][]int32
	ref        []int32 // per physical page: referring sequences (0: free)
	nFree      int
	rec        []float32 // NSeq × Recurrent: each sequence's recurrent state
	gen        []uint64  // per sequence: advanced by RestoreState (Generation)
}

// maxCells bounds the cells of a cache so a hostile --ctx-size cannot ask
// for an allocation that overflows int arithmetic.
const maxCells = 1 << 28

// New allocates a cache. Memory is NLayer*NumPages()*PageSize*(rowK+rowV)
// bytes.
func New(o Options) (*Cache, error) {
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.NLayer < 0 || o.NKV <= 0 || o.NCtx <= 0 || o.NSeq <= 0 || o.PageSize < 0 {
		return nil, fmt.Errorf("kvcache: invalid shape layers=%d kv=%d ctx=%d seq=%d page=%d", o.NLayer, o.NKV, o.NCtx, o.NSeq, o.PageSize)
	}
	if o.NCtx > maxCells || o.NSeq > maxCells || o.PageSize > maxCells {
		return nil, fmt.Errorf("kvcache: %d sequences of %d positions in pages of %d exceed the %d-cell limit", o.NSeq, o.NCtx, o.PageSize, maxCells)
	}
	if o.HeadDim == 0 && (o.TypeK.IsTurbo() || o.TypeV.IsTurbo()) {
		return nil, fmt.Errorf("kvcache: the turbo cache types need the head size (Options.HeadDim)")
	}
	if o.HeadDim == 0 {
		o.HeadDim = o.NKV
	}
	if o.HeadDim < 0 || o.NKV%o.HeadDim != 0 {
		return nil, fmt.Errorf("kvcache: %d values per position are not whole heads of %d", o.NKV, o.HeadDim)
	}
	rowK, err := o.TypeK.RowBytes(o.NKV/o.HeadDim, o.HeadDim)
	if err != nil {
		return nil, fmt.Errorf("kvcache: keys: %w", err)
	}
	rowV, err := o.TypeV.RowBytes(o.NKV/o.HeadDim, o.HeadDim)
	if err != nil {
		return nil, fmt.Errorf("kvcache: values: %w", err)
	}
	rec, err := newRecurrent(o)
	if err != nil {
		return nil, err
	}
	c := &Cache{opt: o, rowK: rowK, rowV: rowV, page: o.PageSize, seqLen: make([]int, o.NSeq), rec: rec, gen: make([]uint64, o.NSeq)}
	c.maxPages = (o.NCtx + c.page - 1) / c.page
	if n := poolPages(o, int64(c.maxPages)) * int64(c.page); n > maxCells {
		return nil, fmt.Errorf("kvcache: %d sequences of %d positions (unified %v) need %d cells, over the %d-cell limit", o.NSeq, o.NCtx, o.Unified, n, maxCells)
	}
	nPages := int(poolPages(o, int64(c.maxPages)))
	c.ref, c.nFree = make([]int32, nPages), nPages
	c.table = make([][]int32, o.NSeq)
	for s := range c.table {
		c.table[s] = make([]int32, 0, c.maxPages)
	}
	cells := nPages * c.page
	c.k, c.v = make([][]byte, o.NLayer), make([][]byte, o.NLayer)
	for l := range o.NLayer {
		c.k[l] = alloc(cells * rowK)
		c.v[l] = alloc(cells * rowV)
	}
	return c, nil
}

// poolPages is the number of physical pages: each sequence's quota, or for
// a unified pool enough pages for NCtx cells plus one partly filled last
// page per sequence beyond the first, so any set of sequences whose lengths
// sum to at most NCtx fits.
func poolPages(o Options, maxPages int64) int64 {
	if !o.Unified {
		return int64(o.NSeq) * maxPages
	}
	return maxPages + int64(o.NSeq) - 1
}

// Options returns the shape the cache was made with (PageSize filled in).
func (c *Cache) Options() Options { return c.opt }

// PageSize returns the positions per page.
func (c *Cache) PageSize() int { return c.page }

// NumPages returns the physical pages of the pool.
func (c *Cache) NumPages() int { return len(c.ref) }

// FreePages returns the pages no sequence refers to.
func (c *Cache) FreePages() int { return c.nFree }

// Bytes returns the memory held by keys and values of all layers.
func (c *Cache) Bytes() (k, v int64) {
	cells := int64(len(c.ref)) * int64(c.page) * int64(c.opt.NLayer)
	return cells * int64(c.rowK), cells * int64(c.rowV)
}

// Len returns the number of positions stored for sequence seq.
func (c *Cache) Len(seq int) int { return c.seqLen[seq] }

// SetLen records that sequence seq now holds n positions. The engine calls
// it after a successful forward pass over positions Reserve made room for;
// n must not exceed the reserved pages (Truncate is the way to shrink).
func (c *Cache) SetLen(seq, n int) {
	if n > len(c.table[seq])*c.page {
		panic(fmt.Sprintf("kvcache: SetLen(%d, %d) beyond the %d reserved pages", seq, n, len(c.table[seq])))
	}
	c.seqLen[seq] = n
}

// checkSeq validates a sequence id.
func (c *Cache) checkSeq(seq int) error {
	if seq < 0 || seq >= c.opt.NSeq {
		return fmt.Errorf("kvcache: sequence %d out of range [0, %d)", seq, c.opt.NSeq)
	}
	return nil
}

// Truncate drops positions >= pos of sequence seq (speculative rollback,
// edited prompts, a finished request) and releases the pages past the new
// length, including pages reserved beyond it. Truncating past the end
// only releases those reserved pages. Truncate to 0 also zeroes the
// sequence's recurrent state; a shorter cut leaves it to the model
// (recurrent.go).
func (c *Cache) Truncate(seq, pos int) error {
	if err := c.checkSeq(seq); err != nil {
		return err
	}
	if pos < 0 {
		return fmt.Errorf("kvcache: truncate sequence %d to negative position %d", seq, pos)
	}
	c.seqLen[seq] = min(c.seqLen[seq], pos)
	c.release(seq, c.pagesFor(c.seqLen[seq]))
	if pos == 0 {
		clear(c.Recurrent(seq))
	}
	return nil
}

// Fork makes sequence dst a copy of the first n positions of sequence src.
// The full pages are shared (reference counted); the partial last page is
// copied. dst's previous pages are released first; if the copy finds no
// free page, dst is left empty and ErrPoolFull is returned. dst's
// recurrent state becomes src's when n == Len(src), else zero (the model
// rebuilds the state at a shorter length; recurrent.go).
func (c *Cache) Fork(src, dst, n int) error {
	if err := c.checkSeq(src); err != nil {
		return err
	}
	if err := c.checkSeq(dst); err != nil {
		return err
	}
	if n < 0 || n > c.seqLen[src] {
		return fmt.Errorf("kvcache: fork %d positions of sequence %d, which holds %d", n, src, c.seqLen[src])
	}
	if src == dst {
		return c.Truncate(dst, n)
	}
	c.seqLen[dst] = 0
	c.release(dst, 0)
	if n == c.seqLen[src] {
		copy(c.Recurrent(dst), c.Recurrent(src))
	} else {
		clear(c.Recurrent(dst))
	}
	full := n / c.page
	for _, p := range c.table[src][:full] {
		c.ref[p]++
		c.table[dst] = append(c.table[dst], p)
	}
	if rest := n - full*c.page; rest > 0 {
		p, ok := c.alloc(dst, full)
		if !ok {
			c.release(dst, 0)
			clear(c.Recurrent(dst))
			return fmt.Errorf("%w: fork of sequence %d into %d needs a page", ErrPoolFull, src, dst)
		}
		c.copyRows(p, c.table[src][full], rest)
		c.table[dst] = append(c.table[dst], p)
	}
	c.seqLen[dst] = n
	return nil
}

// cell returns the physical cell of (seq, pos).
func (c *Cache) cell(seq, pos int) int {
	return int(c.table[seq][pos/c.page])*c.page + pos%c.page
}

// KeyRow returns the stored key row of (layer, seq, pos) in TypeK's
// encoding. pos must lie in a reserved page.
func (c *Cache) KeyRow(layer, seq, pos int) []byte {
	off := c.cell(seq, pos) * c.rowK
	return c.k[layer][off : off+c.rowK]
}

// ValueRow returns the stored value row of (layer, seq, pos) in TypeV's
// encoding. pos must lie in a reserved page.
func (c *Cache) ValueRow(layer, seq, pos int) []byte {
	off := c.cell(seq, pos) * c.rowV
	return c.v[layer][off : off+c.rowV]
}

// Store encodes key and value vectors (NKV values each) into the cells of
// (layer, seq, pos), which Reserve must have made room for. It does not
// change the sequence length.
func (c *Cache) Store(layer, seq, pos int, k, v []float32) {
	nh, hd := c.opt.NKV/c.opt.HeadDim, c.opt.HeadDim
	c.opt.TypeK.EncodeRow(c.KeyRow(layer, seq, pos), k, nh, hd)
	c.opt.TypeV.EncodeRow(c.ValueRow(layer, seq, pos), v, nh, hd)
}

// RowBytes returns the bytes of one key row and one value row.
func (c *Cache) RowBytes() (k, v int) { return c.rowK, c.rowV }
