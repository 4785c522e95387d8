package kvcache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// State files hold one sequence of a cache: the tokens it was computed
// from, the raw key and value rows of every layer and the sequence's
// recurrent state (recurrent.go), so a server can park a conversation on
// disk (llama-server's /slots/{id}?action=save) or in RAM (--cache-ram)
// and resume it later without recomputing the prompt, for attention-only
// and hybrid models alike.
//
// The codec copies rows as bytes through the cache's public accessors
// (Spans, KeyCells, ValueCells, Reserve, SetLen); it never looks inside a
// row, so it serves every row type, present and future, and a row type
// change shows up as a type-name or row-size mismatch, never as garbage.
// The recurrent state is stored as float32 bits, little-endian, in the
// model's own layout; its size is in the header and must equal the
// cache's, and the model identity covers the layout.
//
// Layout (little-endian; version 2):
//
//	off  size  field
//	  0     8  magic "WGLKVST\x00"
//	  8     4  format version (2)
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
//	116     4  n_rec: float32 values of recurrent state (0: none)
//	120  4·n   token ids (int32)
//	  …        for each layer: n key rows (positions 0..n-1), then n value rows
//	  …  4·n_rec  the recurrent state (float32 bits)
//	  …     4  CRC-32C (Castagnoli) of every byte before it
//
// Version 1 (before the recurrent section) is version 2 without the n_rec
// field (the token ids start at 116) and without the section. It is still
// read, as a file with n_rec = 0: an attention-only model's v1 files stay
// usable, and a hybrid model refuses them with ErrStateMismatch naming the
// missing recurrent state (such a file never held it). Only version 2 is
// written.
//
// Types are stored by name, not by ggml enum id: the reference notes that
// ids 45/46 mean TCQ types in BeeLlama and weight types in TheTom's fork,
// so a bare number is ambiguous while "turbo3_tcq" is not. The row sizes
// are stored as well, so a change of a type's layout is caught even if its
// name stays. The format is Waggle's own; llama.cpp's state files are not
// read or written.
const (
	stateMagic   = "WGLKVST\x00"
	StateVersion = 2
	stateFixedV1 = 116 // bytes before the token ids, version 1
	stateFixed   = 120 // bytes before the token ids, version 2
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
	Recurrent            int // float32 values of recurrent state (0: none)
	Tokens               []int32

	nTok int // the token count, while the header is checked
}

// headerLen is the number of bytes before the token ids of a version.
func headerLen(version uint32) int64 {
	if version == 1 {
		return stateFixedV1
	}
	return stateFixed
}

// StateSize returns the bytes of a state file for n positions of c.
func (c *Cache) StateSize(n int) int64 {
	rowK, rowV := c.rowSizes()
	return stateSize(stateFixed, c.Options().NLayer, rowK, rowV, c.Options().Recurrent, n)
}

// rowSizes returns the bytes of one key and one value row, read from the
// public cell accessors (cell 0 exists in every cache with layers).
func (c *Cache) rowSizes() (k, v int) {
	if c.Options().NLayer == 0 {
		return 0, 0
	}
	return len(c.KeyCells(0, 0, 1)), len(c.ValueCells(0, 0, 1))
}

// stateSize is the size of a file whose header is fixed bytes long. Every
// argument is below 2^29 and the caller has bounded the rows' product.
func stateSize(fixed int64, nLayer, rowK, rowV, nRec, n int) int64 {
	return fixed + 4*int64(n) + int64(nLayer)*int64(n)*int64(rowK+rowV) + 4*int64(nRec) + stateTrailer
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
		Recurrent: o.Recurrent, Tokens: tokens,
	}
}

// WriteState writes sequence seq as a state file: model is the caller's
// identity of the weights (see StateInfo.ModelHash) and tokens the ids the
// sequence holds, one per position (len(tokens) must equal Len(seq)). It
// returns the bytes written (StateSize(Len(seq)) on success). The cache is
// only read; the recurrent state is saved as it is, so the caller writes
// a sequence between forward passes.
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
	if err := c.writeBody(bw, seq, encodeHeader(c.info(model, tokens))); err != nil {
		return cw.n, err
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], h.Sum32())
	_, err := cw.Write(sum[:])
	return cw.n, err
}

// writeBody writes the header, the rows of every layer and the recurrent
// section of seq.
func (c *Cache) writeBody(bw *bufio.Writer, seq int, hdr []byte) error {
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	spans := c.Spans(seq, c.Len(seq), nil)
	for l := range c.Options().NLayer {
		for _, cells := range []func(layer, cell, n int) []byte{c.KeyCells, c.ValueCells} {
			for _, sp := range spans {
				if _, err := bw.Write(cells(l, sp.Cell, sp.N)); err != nil {
					return err
				}
			}
		}
	}
	return writeFloats(bw, c.Recurrent(seq))
}

// encodeHeader returns the fixed header (version 2) and the token ids.
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
	le.PutUint32(b[116:], uint32(in.Recurrent))
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
// magic, version (1 or 2), flags, a sane shape and exactly the size the
// header implies (a truncated or padded file is refused here). It
// allocates at most 4 bytes per token the file really holds. It does not
// verify the checksum; RestoreState does.
func ReadStateInfo(r io.ReaderAt, size int64) (*StateInfo, error) {
	if size < stateFixedV1+stateTrailer {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBadState, size, stateFixedV1+stateTrailer)
	}
	var b [stateFixed]byte
	if _, err := r.ReadAt(b[:stateFixedV1], 0); err != nil {
		return nil, fmt.Errorf("%w: reading the header: %v", ErrBadState, err)
	}
	in, err := decodeHeader(b[:])
	if err != nil {
		return nil, err
	}
	fixed := headerLen(in.Version)
	if in.Version == StateVersion {
		if size < fixed+stateTrailer {
			return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBadState, size, fixed+stateTrailer)
		}
		if _, err := r.ReadAt(b[stateFixedV1:], stateFixedV1); err != nil {
			return nil, fmt.Errorf("%w: reading the header: %v", ErrBadState, err)
		}
		if in.Recurrent, err = headerField(b[:], 116); err != nil {
			return nil, err
		}
	}
	if err := checkSize(in, size); err != nil {
		return nil, err
	}
	tb := make([]byte, 4*len(in.Tokens))
	if _, err := r.ReadAt(tb, fixed); err != nil {
		return nil, fmt.Errorf("%w: reading the token ids: %v", ErrBadState, err)
	}
	for i := range in.Tokens {
		in.Tokens[i] = int32(binary.LittleEndian.Uint32(tb[4*i:]))
	}
	return in, nil
}

// decodeHeader reads the fields versions 1 and 2 share (the first 116
// bytes of b); the token ids are read once the size is checked.
func decodeHeader(b []byte) (*StateInfo, error) {
	if string(b[:8]) != stateMagic {
		return nil, fmt.Errorf("%w: not a Waggle KV state file (magic %q)", ErrBadState, b[:8])
	}
	le := binary.LittleEndian
	in := &StateInfo{Version: le.Uint32(b[8:])}
	if in.Version != 1 && in.Version != StateVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads versions 1 and %d", ErrBadState, in.Version, StateVersion)
	}
	if f := le.Uint32(b[12:]); f != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrBadState, f)
	}
	copy(in.ModelHash[:], b[16:48])
	var err error
	for _, f := range []struct {
		dst *int
		off int
	}{{&in.NLayer, 48}, {&in.NKV, 52}, {&in.RowK, 56}, {&in.RowV, 60}} {
		if *f.dst, err = headerField(b, f.off); err != nil {
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
	in.nTok = int(nTok)
	return in, nil
}

// headerField reads a u32 header field that must stay below 2^28.
func headerField(b []byte, off int) (int, error) {
	v := binary.LittleEndian.Uint32(b[off:])
	if v > maxCells {
		return 0, fmt.Errorf("%w: header field at byte %d is %d, over the limit %d", ErrBadState, off, v, maxCells)
	}
	return int(v), nil
}

// checkSize compares the file's size with the one its header implies and
// then sizes in.Tokens.
func checkSize(in *StateInfo, size int64) error {
	// Every field is below 2^29, so layers × tokens fits an int64; the
	// product with the row bytes is checked before it is formed.
	if cells := int64(in.NLayer) * int64(in.nTok); cells != 0 && int64(in.RowK+in.RowV) > (math.MaxInt64/2)/cells {
		return fmt.Errorf("%w: the header describes an impossible size (%d tokens × %d layers × %d+%d-byte rows)", ErrBadState, in.nTok, in.NLayer, in.RowK, in.RowV)
	}
	want := stateSize(headerLen(in.Version), in.NLayer, in.RowK, in.RowV, in.Recurrent, in.nTok)
	if size != want {
		return fmt.Errorf("%w: the file has %d bytes, its header describes %d (%d tokens × %d layers × %d+%d-byte rows, %d recurrent values): truncated or corrupt",
			ErrBadState, size, want, in.nTok, in.NLayer, in.RowK, in.RowV, in.Recurrent)
	}
	in.Tokens = make([]int32, in.nTok)
	return nil
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
