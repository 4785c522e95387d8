package kvcache

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// compatible checks a header against the cache and the expected model.
func (c *Cache) compatible(in *StateInfo, model [32]byte) error {
	if in.ModelHash != model {
		return fmt.Errorf("%w: it was written for another model (identity %x…, this model is %x…)", ErrStateMismatch, in.ModelHash[:6], model[:6])
	}
	me := c.info(model, nil)
	if in.Recurrent != me.Recurrent {
		return recurrentMismatch(in, me.Recurrent)
	}
	if in.NLayer != me.NLayer || in.NKV != me.NKV {
		return fmt.Errorf("%w: it holds %d layers of %d values per position, the cache %d of %d", ErrStateMismatch, in.NLayer, in.NKV, me.NLayer, me.NKV)
	}
	if in.TypeK != me.TypeK || in.TypeV != me.TypeV {
		return fmt.Errorf("%w: it holds cache types %s/%s (K/V), this cache uses %s/%s", ErrStateMismatch, in.TypeK, in.TypeV, me.TypeK, me.TypeV)
	}
	if in.RowK != me.RowK || in.RowV != me.RowV {
		return fmt.Errorf("%w: its rows are %d/%d bytes (K/V), this cache's %d/%d (another layout of the same types)", ErrStateMismatch, in.RowK, in.RowV, me.RowK, me.RowV)
	}
	if in.CodebookK != me.CodebookK || in.CodebookV != me.CodebookV {
		return fmt.Errorf("%w: it was encoded with another TCQ codebook (fingerprints %016x/%016x, this build %016x/%016x)", ErrStateMismatch, in.CodebookK, in.CodebookV, me.CodebookK, me.CodebookV)
	}
	if nCtx := c.Options().NCtx; len(in.Tokens) > nCtx {
		return fmt.Errorf("%w: it holds %d positions, a sequence of this cache at most %d", ErrStateMismatch, len(in.Tokens), nCtx)
	}
	return nil
}

// recurrentMismatch explains a recurrent-state size that differs from the
// cache's want.
func recurrentMismatch(in *StateInfo, want int) error {
	switch {
	case in.Version == 1 && want > 0:
		return fmt.Errorf("%w: it is a version 1 file, which holds no recurrent state, and this model needs %d values of it per sequence; save the sequence again", ErrStateMismatch, want)
	case in.Recurrent == 0:
		return fmt.Errorf("%w: it holds no recurrent state, this model needs %d values per sequence", ErrStateMismatch, want)
	}
	return fmt.Errorf("%w: it holds %d values of recurrent state per sequence, this cache %d", ErrStateMismatch, in.Recurrent, want)
}

// RestoreState loads a state file of size bytes into sequence seq and
// returns its tokens. Everything is checked before the cache is touched:
// the header (ReadStateInfo), the model identity, recurrent-state size,
// shape, types, row sizes and codebook fingerprints against this cache,
// and the CRC over the whole file, read once for that. Only then is seq
// replaced: truncated to 0, given pages for the file's positions and
// filled (rows and recurrent state) by a second read, and its Generation
// advanced. That read recomputes the CRC; if the file changed in between,
// seq is left empty (zero recurrent state) and an error returned, so a
// half-loaded sequence is never in use. If a unified pool has no room for
// the positions (ErrPoolFull) seq is also left empty. On any earlier error
// seq is unchanged. Memory: two 64 KiB buffers plus the token ids.
func (c *Cache) RestoreState(r io.ReaderAt, size int64, seq int, model [32]byte) ([]int32, error) {
	if err := c.checkSeq(seq); err != nil {
		return nil, err
	}
	in, err := ReadStateInfo(r, size)
	if err != nil {
		return nil, err
	}
	if err := c.compatible(in, model); err != nil {
		return nil, err
	}
	body := io.NewSectionReader(r, 0, size-stateTrailer)
	h := crc32.New(castagnoli)
	buf := make([]byte, 1<<16)
	if _, err := io.CopyBuffer(h, body, buf); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadState, err)
	}
	var sum [4]byte
	if _, err := r.ReadAt(sum[:], size-stateTrailer); err != nil {
		return nil, fmt.Errorf("%w: reading the checksum: %v", ErrBadState, err)
	}
	want := binary.LittleEndian.Uint32(sum[:])
	if h.Sum32() != want {
		return nil, fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x): the file is corrupt", ErrBadState, want, h.Sum32())
	}
	n := len(in.Tokens)
	c.gen[seq]++
	if err := c.Truncate(seq, 0); err != nil {
		return nil, err
	}
	if err := c.Reserve(seq, n); err != nil {
		return nil, err
	}
	if err := c.fill(body, h, seq, n, headerLen(in.Version)+4*int64(n), want); err != nil {
		_ = c.Truncate(seq, 0)
		return nil, err
	}
	c.SetLen(seq, n)
	return in.Tokens, nil
}

// fill reads the rows and the recurrent state of a checked state file
// into positions [0, n) of seq, which Reserve made room for, recomputing
// the checksum on the way; skip is the bytes of header and token ids.
func (c *Cache) fill(body *io.SectionReader, h hash.Hash32, seq, n int, skip int64, want uint32) error {
	h.Reset()
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tr := io.TeeReader(bufio.NewReaderSize(body, 1<<16), h)
	if _, err := io.CopyN(io.Discard, tr, skip); err != nil {
		return fmt.Errorf("%w: %v", ErrBadState, err)
	}
	spans := c.Spans(seq, n, nil)
	for l := range c.Options().NLayer {
		for _, cells := range []func(layer, cell, n int) []byte{c.KeyCells, c.ValueCells} {
			for _, sp := range spans {
				if _, err := io.ReadFull(tr, cells(l, sp.Cell, sp.N)); err != nil {
					return fmt.Errorf("%w: the file changed while it was read: %v", ErrBadState, err)
				}
			}
		}
	}
	if err := readFloats(tr, c.Recurrent(seq)); err != nil {
		return fmt.Errorf("%w: the file changed while it was read: %v", ErrBadState, err)
	}
	if h.Sum32() != want {
		return fmt.Errorf("%w: the file changed while it was read (checksum %08x, expected %08x)", ErrBadState, h.Sum32(), want)
	}
	return nil
}

// floatChunk is the float32 values converted per step of writeFloats and
// readFloats (16 KiB of bytes on the stack).
const floatChunk = 4096

// writeFloats writes v as little-endian float32 bits.
func writeFloats(w io.Writer, v []float32) error {
	var b [4 * floatChunk]byte
	for len(v) > 0 {
		m := min(len(v), floatChunk)
		for i, x := range v[:m] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		if _, err := w.Write(b[:4*m]); err != nil {
			return err
		}
		v = v[m:]
	}
	return nil
}

// readFloats fills v from little-endian float32 bits.
func readFloats(r io.Reader, v []float32) error {
	var b [4 * floatChunk]byte
	for len(v) > 0 {
		m := min(len(v), floatChunk)
		if _, err := io.ReadFull(r, b[:4*m]); err != nil {
			return err
		}
		for i := range v[:m] {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		v = v[m:]
	}
	return nil
}
