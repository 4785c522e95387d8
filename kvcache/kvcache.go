// Package kvcache stores the attention keys and values of every layer for
// every sequence the engine runs.
//
// Layout: the cache holds NSeq sequences of at most NCtx positions each. Each
// sequence owns a contiguous region of cells, and position p of sequence s
// lives in cell s*NCtx+p of every layer. Rows are typed (see Type): a row holds
// the KV-head-major key (or value) vector of one position, NKV values. This
// layout makes the engine's verbs cheap: truncating a sequence (speculative
// rollback) only moves its length, forking copies a prefix region.
//
// The element types are those of llama.cpp's --cache-type-k/-v. This package
// stores and loads rows; the attention math lives in the engine and kernels.
package kvcache

import (
	"fmt"

	"github.com/waggle-llm/waggle/kernels"
)

// Options sizes a cache.
type Options struct {
	NLayer int  // layers that have attention
	NKV    int  // values per position and layer: n_head_kv * head_dim
	NCtx   int  // positions per sequence
	NSeq   int  // sequences (server slots)
	TypeK  Type // element type of keys
	TypeV  Type // element type of values
}

// Cache is a typed KV store. It is not safe for concurrent mutation; the
// engine serialises Decode calls per session.
type Cache struct {
	opt        Options
	rowK, rowV int      // bytes per row
	k, v       [][]byte // per layer: NSeq*NCtx rows
	seqLen     []int    // committed length per sequence
}

// maxCells bounds NSeq*NCtx so a hostile --ctx-size cannot ask for an
// allocation that overflows int arithmetic.
const maxCells = 1 << 28

// New allocates a cache. Memory is NLayer*NSeq*NCtx*(rowK+rowV) bytes.
func New(o Options) (*Cache, error) {
	if o.NLayer < 0 || o.NKV <= 0 || o.NCtx <= 0 || o.NSeq <= 0 {
		return nil, fmt.Errorf("kvcache: invalid shape layers=%d kv=%d ctx=%d seq=%d", o.NLayer, o.NKV, o.NCtx, o.NSeq)
	}
	if int64(o.NCtx)*int64(o.NSeq) > maxCells {
		return nil, fmt.Errorf("kvcache: %d sequences of %d positions exceed the %d-cell limit", o.NSeq, o.NCtx, maxCells)
	}
	rowK, err := o.TypeK.RowBytes(o.NKV)
	if err != nil {
		return nil, fmt.Errorf("kvcache: keys: %w", err)
	}
	rowV, err := o.TypeV.RowBytes(o.NKV)
	if err != nil {
		return nil, fmt.Errorf("kvcache: values: %w", err)
	}
	c := &Cache{opt: o, rowK: rowK, rowV: rowV, seqLen: make([]int, o.NSeq)}
	cells := o.NSeq * o.NCtx
	c.k = make([][]byte, o.NLayer)
	c.v = make([][]byte, o.NLayer)
	for l := range o.NLayer {
		c.k[l] = make([]byte, cells*rowK)
		c.v[l] = make([]byte, cells*rowV)
	}
	return c, nil
}

// Options returns the shape the cache was made with.
func (c *Cache) Options() Options { return c.opt }

// Bytes returns the memory held by keys and values of all layers.
func (c *Cache) Bytes() (k, v int64) {
	cells := int64(c.opt.NSeq) * int64(c.opt.NCtx) * int64(c.opt.NLayer)
	return cells * int64(c.rowK), cells * int64(c.rowV)
}

// Len returns the number of positions stored for sequence seq.
func (c *Cache) Len(seq int) int { return c.seqLen[seq] }

// SetLen records that sequence seq now holds n positions. The engine calls it
// after a successful forward pass; Truncate is the public way to shrink.
func (c *Cache) SetLen(seq, n int) { c.seqLen[seq] = n }

// checkSeq validates a sequence id.
func (c *Cache) checkSeq(seq int) error {
	if seq < 0 || seq >= c.opt.NSeq {
		return fmt.Errorf("kvcache: sequence %d out of range [0, %d)", seq, c.opt.NSeq)
	}
	return nil
}

// Truncate drops positions >= pos of sequence seq (speculative rollback,
// edited prompts). Truncating past the end is a no-op.
func (c *Cache) Truncate(seq, pos int) error {
	if err := c.checkSeq(seq); err != nil {
		return err
	}
	if pos < 0 {
		return fmt.Errorf("kvcache: truncate sequence %d to negative position %d", seq, pos)
	}
	c.seqLen[seq] = min(c.seqLen[seq], pos)
	return nil
}

// Fork makes sequence dst a copy of the first n positions of sequence src.
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
		c.seqLen[dst] = n
		return nil
	}
	for l := range c.opt.NLayer {
		copy(c.region(c.k[l], c.rowK, dst, n), c.region(c.k[l], c.rowK, src, n))
		copy(c.region(c.v[l], c.rowV, dst, n), c.region(c.v[l], c.rowV, src, n))
	}
	c.seqLen[dst] = n
	return nil
}

// region returns the first n rows of sequence seq in one layer's buffer.
func (c *Cache) region(buf []byte, row, seq, n int) []byte {
	start := seq * c.opt.NCtx * row
	return buf[start : start+n*row]
}

// KeyRow returns the stored key row of (layer, seq, pos) in TypeK's encoding.
func (c *Cache) KeyRow(layer, seq, pos int) []byte {
	off := (seq*c.opt.NCtx + pos) * c.rowK
	return c.k[layer][off : off+c.rowK]
}

// ValueRow returns the stored value row of (layer, seq, pos) in TypeV's encoding.
func (c *Cache) ValueRow(layer, seq, pos int) []byte {
	off := (seq*c.opt.NCtx + pos) * c.rowV
	return c.v[layer][off : off+c.rowV]
}

// Keys returns rows [0, n) of sequence seq in one layer, contiguous.
func (c *Cache) Keys(layer, seq, n int) []byte { return c.region(c.k[layer], c.rowK, seq, n) }

// Values returns rows [0, n) of sequence seq in one layer, contiguous.
func (c *Cache) Values(layer, seq, n int) []byte { return c.region(c.v[layer], c.rowV, seq, n) }

// Store encodes key and value vectors (NKV values each) into the cells of
// (layer, seq, pos). It does not change the sequence length.
func (c *Cache) Store(layer, seq, pos int, k, v []float32) {
	kernels.QuantizeRow(c.opt.TypeK.DType(), c.KeyRow(layer, seq, pos), k)
	kernels.QuantizeRow(c.opt.TypeV.DType(), c.ValueRow(layer, seq, pos), v)
}
