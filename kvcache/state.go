package kvcache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// State files hold one sequence of a cache: the tokens it was computed
// from and the raw key and value rows of every layer, so a server can park
// a conversation on disk (llama-server's /slots/{id}?action=save) or in RAM
// (--cache-ram) and resume it later without recomputing the prompt.
//
// The codec copies rows as bytes through the cache's public accessors
// (Spans, KeyCells, ValueCells, Reserve, SetLen); it never looks inside a
// row, so it serves every row type, present and future, and a row type
// change shows up as a type-name or row-size mismatch, never as garbage.
//
// Layout (little-endian; version 1):
//
//	off  size  field
//	  0     8  magic "WGLKVST\x00"
//	  8     4  format version (1)
//	 12     4  flags (0; a reader refuses unknown bits)
//	 16    32  model identity (the caller's hash of the weights)
//	 48     4  n_layer
//	 52     4  n_kv: values per position and layer (all layers alike)
//	 56     4  bytes per key row
//	 60     4  bytes per value row
//	 64    16  key type name (llama.cpp spelling, NUL-padded)
//	 80    16  value type name
//	 96     8  key codebook fingerprint (CodebookFingerprint; 0 if not TCQ)
//	104     8  value codebook fingerprint
//	112     4  n_tokens
//	116  4·n   token ids (int32)
//	  …        for each layer: n key rows (positions 0..n-1), then n value rows
//	  …     4  CRC-32C (Castagnoli) of every byte before it
//
// Types are stored by name, not by ggml enum id: the reference notes that
// ids 45/46 mean TCQ types in BeeLlama and weight types in TheTom's fork,
// so a bare number is ambiguous while "turbo3_tcq" is not. The row sizes
// are stored as well, so a change of a type's layout is caught even if its
// name stays. The format is Waggle's own; llama.cpp's state files are not
// read or written.
const (
	stateMagic   = "WGLKVST\x00"
	StateVersion = 1
	stateFixed   = 116 // bytes before the token ids
	stateTrailer = 4   // the CRC
	typeNameLen  = 16
)

// ErrBadState is returned (wrapped) for a state file that is truncated,
// corrupt or not a state file at all.
var ErrBadState = errors.New("kvcache: invalid state file")

// ErrStateMismatch is returned (wrapped) for a well-formed state file that
// was written for another model, cache shape, cache types or codebook.
var ErrStateMismatch = errors.New("kvcache: state file does not match this cache")

// castagnoli is CRC-32C: hardware-accelerated by hash/crc32 on amd64 and
// arm64, so checking a multi-gigabyte file costs far less than reading it.
// It guards against truncation and bit rot, not against a forger (the
// files come from the operator's own --slot-save-path).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// StateInfo is the header of a state file.
type StateInfo struct {
	Version              uint32
	ModelHash            [32]byte
	NLayer, NKV          int
	RowK, RowV           int // bytes per key (value) row
	TypeK, TypeV         string
	CodebookK, CodebookV uint64
	Tokens               []int32
}

// StateSize returns the bytes of a state file for n positions of c.
func (c *Cache) StateSize(n int) int64 {
	rowK, rowV := c.rowSizes()
	return stateSize(c.Options().NLayer, rowK, rowV, n)
}

// rowSizes returns the bytes of one key and one value row, read from the
// public cell accessors (cell 0 exists in every cache with layers).
func (c *Cache) rowSizes() (k, v int) {
	if c.Options().NLayer == 0 {
		return 0, 0
	}
	return len(c.KeyCells(0, 0, 1)), len(c.ValueCells(0, 0, 1))
}

func stateSize(nLayer, rowK, rowV, n int) int64 {
	return stateFixed + 4*int64(n) + int64(nLayer)*int64(n)*int64(rowK+rowV) + stateTrailer
}

// info describes sequence contents of c as a header.
func (c *Cache) info(model [32]byte, tokens []int32) *StateInfo {
	o := c.Options()
	rowK, rowV := c.rowSizes()
	return &StateInfo{
		Version: StateVersion, ModelHash: model,
		NLayer: o.NLayer, NKV: o.NKV, RowK: rowK, RowV: rowV,
		TypeK: o.TypeK.String(), TypeV: o.TypeV.String(),
		CodebookK: CodebookFingerprint(o.TypeK), CodebookV: CodebookFingerprint(o.TypeV),
		Tokens: tokens,
	}
}

// WriteState writes sequence seq as a state file: model is the caller's
// identity of the weights (see StateInfo.ModelHash) and tokens the ids the
// sequence holds, one per position (len(tokens) must equal Len(seq)). It
// returns the bytes written (StateSize(Len(seq)) on success). The cache is
// only read.
func (c *Cache) WriteState(w io.Writer, seq int, model [32]byte, tokens []int32) (int64, error) {
	if err := c.checkSeq(seq); err != nil {
		return 0, err
	}
	n := c.Len(seq)
	if len(tokens) != n {
		return 0, fmt.Errorf("kvcache: state of sequence %d: %d tokens given for %d positions", seq, len(tokens), n)
	}
	if c.Options().NLayer == 0 {
		return 0, errors.New("kvcache: a cache without layers has no state to save")
	}
	h := crc32.New(castagnoli)
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(io.MultiWriter(cw, h), 1<<16)
	hdr := encodeHeader(c.info(model, tokens))
	if _, err := bw.Write(hdr); err != nil {
		return cw.n, err
	}
	spans := c.Spans(seq, n, nil)
	for l := range c.Options().NLayer {
		for _, sp := range spans {
			if _, err := bw.Write(c.KeyCells(l, sp.Cell, sp.N)); err != nil {
				return cw.n, err
			}
		}
		for _, sp := range spans {
			if _, err := bw.Write(c.ValueCells(l, sp.Cell, sp.N)); err != nil {
				return cw.n, err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], h.Sum32())
	_, err := cw.Write(sum[:])
	return cw.n, err
}

// encodeHeader returns the fixed header and the token ids.
func encodeHeader(in *StateInfo) []byte {
	b := make([]byte, stateFixed+4*len(in.Tokens))
	le := binary.LittleEndian
	copy(b, stateMagic)
	le.PutUint32(b[8:], in.Version)
	copy(b[16:48], in.ModelHash[:])
	le.PutUint32(b[48:], uint32(in.NLayer))
	le.PutUint32(b[52:], uint32(in.NKV))
	le.PutUint32(b[56:], uint32(in.RowK))
	le.PutUint32(b[60:], uint32(in.RowV))
	copy(b[64:80], in.TypeK)
	copy(b[80:96], in.TypeV)
	le.PutUint64(b[96:], in.CodebookK)
	le.PutUint64(b[104:], in.CodebookV)
	le.PutUint32(b[112:], uint32(len(in.Tokens)))
	for i, t := range in.Tokens {
		le.PutUint32(b[stateFixed+4*i:], uint32(t))
	}
	return b
}

// maxStateTokens bounds the token count a header may claim before the
// size check, so int arithmetic on it cannot overflow (it is far above any
// cache's NCtx, which the restore checks as well).
const maxStateTokens = maxCells

// ReadStateInfo reads and checks the header of a state file of size bytes:
// magic, version, flags, a sane shape and exactly the size the header
// implies (a truncated or padded file is refused here). It allocates at
// most 4 bytes per token the file really holds. It does not verify the
// checksum; RestoreState does.
func ReadStateInfo(r io.ReaderAt, size int64) (*StateInfo, error) {
	if size < stateFixed+stateTrailer {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBadState, size, stateFixed+stateTrailer)
	}
	var b [stateFixed]byte
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return nil, fmt.Errorf("%w: reading the header: %v", ErrBadState, err)
	}
	if string(b[:8]) != stateMagic {
		return nil, fmt.Errorf("%w: not a Waggle KV state file (magic %q)", ErrBadState, b[:8])
	}
	le := binary.LittleEndian
	in := &StateInfo{Version: le.Uint32(b[8:])}
	if in.Version != StateVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads version %d", ErrBadState, in.Version, StateVersion)
	}
	if f := le.Uint32(b[12:]); f != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrBadState, f)
	}
	copy(in.ModelHash[:], b[16:48])
	u := func(off int) (int, error) {
		v := le.Uint32(b[off:])
		if v > maxCells {
			return 0, fmt.Errorf("%w: header field at byte %d is %d, over the limit %d", ErrBadState, off, v, maxCells)
		}
		return int(v), nil
	}
	var err error
	for _, f := range []struct {
		dst *int
		off int
	}{{&in.NLayer, 48}, {&in.NKV, 52}, {&in.RowK, 56}, {&in.RowV, 60}} {
		if *f.dst, err = u(f.off); err != nil {
			return nil, err
		}
	}
	if in.NLayer == 0 || in.NKV == 0 || in.RowK == 0 || in.RowV == 0 {
		return nil, fmt.Errorf("%w: empty shape (%d layers, %d values, rows of %d and %d bytes)", ErrBadState, in.NLayer, in.NKV, in.RowK, in.RowV)
	}
	if in.TypeK, err = typeName(b[64:80]); err != nil {
		return nil, err
	}
	if in.TypeV, err = typeName(b[80:96]); err != nil {
		return nil, err
	}
	in.CodebookK, in.CodebookV = le.Uint64(b[96:]), le.Uint64(b[104:])
	nTok := le.Uint32(b[112:])
	if nTok > maxStateTokens {
		return nil, fmt.Errorf("%w: %d tokens, over the limit %d", ErrBadState, nTok, maxStateTokens)
	}
	// Every field is below 2^29, so layers × tokens fits an int64; the
	// product with the row bytes is checked before it is formed.
	if cells := int64(in.NLayer) * int64(nTok); cells != 0 && int64(in.RowK+in.RowV) > (math.MaxInt64/2)/cells {
		return nil, fmt.Errorf("%w: the header describes an impossible size (%d tokens × %d layers × %d+%d-byte rows)", ErrBadState, nTok, in.NLayer, in.RowK, in.RowV)
	}
	want := stateSize(in.NLayer, in.RowK, in.RowV, int(nTok))
	if size != want {
		return nil, fmt.Errorf("%w: the file has %d bytes, its header describes %d (%d tokens × %d layers × %d+%d-byte rows): truncated or corrupt",
			ErrBadState, size, want, nTok, in.NLayer, in.RowK, in.RowV)
	}
	tb := make([]byte, 4*int(nTok))
	if _, err := r.ReadAt(tb, stateFixed); err != nil {
		return nil, fmt.Errorf("%w: reading the token ids: %v", ErrBadState, err)
	}
	in.Tokens = make([]int32, nTok)
	for i := range in.Tokens {
		in.Tokens[i] = int32(le.Uint32(tb[4*i:]))
	}
	return in, nil
}

// typeName reads a NUL-padded type name field.
func typeName(b []byte) (string, error) {
	s := string(bytes.TrimRight(b, "\x00"))
	if s == "" || bytes.IndexByte([]byte(s), 0) >= 0 {
		return "", fmt.Errorf("%w: malformed cache type name %q", ErrBadState, b)
	}
	for _, ch := range []byte(s) {
		if ch < 0x20 || ch > 0x7e {
			return "", fmt.Errorf("%w: malformed cache type name %q", ErrBadState, b)
		}
	}
	return s, nil
}

// compatible checks a header against the cache and the expected model.
func (c *Cache) compatible(in *StateInfo, model [32]byte) error {
	if in.ModelHash != model {
		return fmt.Errorf("%w: it was written for another model (identity %x…, this model is %x…)", ErrStateMismatch, in.ModelHash[:6], model[:6])
	}
	me := c.info(model, nil)
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

// RestoreState loads a state file of size bytes into sequence seq and
// returns its tokens. Everything is checked before the cache is touched:
// the header (ReadStateInfo), the model identity, shape, types, row sizes
// and codebook fingerprints against this cache, and the CRC over the whole
// file, read once for that. Only then is seq replaced: truncated to 0,
// given pages for the file's positions and filled by a second read. That
// read recomputes the CRC; if the file changed in between, seq is left
// empty and an error returned, so a half-loaded sequence is never in use.
// If a unified pool has no room for the positions (ErrPoolFull) seq is
// also left empty. On any earlier error seq is unchanged. Memory: one
// 64 KiB read buffer plus the token ids.
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
	if err := c.Truncate(seq, 0); err != nil {
		return nil, err
	}
	if err := c.Reserve(seq, n); err != nil {
		return nil, err
	}
	if err := c.fill(body, h, seq, n, want); err != nil {
		_ = c.Truncate(seq, 0)
		return nil, err
	}
	c.SetLen(seq, n)
	return in.Tokens, nil
}

// fill reads the rows of a checked state file into the reserved positions
// [0, n) of seq, recomputing the checksum on the way.
func (c *Cache) fill(body *io.SectionReader, h hash.Hash32, seq, n int, want uint32) error {
	h.Reset()
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tr := io.TeeReader(bufio.NewReaderSize(body, 1<<16), h)
	if _, err := io.CopyN(io.Discard, tr, stateFixed+4*int64(n)); err != nil {
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
	if h.Sum32() != want {
		return fmt.Errorf("%w: the file changed while it was read (checksum %08x, expected %08x)", ErrBadState, h.Sum32(), want)
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (cw *countWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}
