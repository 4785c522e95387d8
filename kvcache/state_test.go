package kvcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/kvcache/turbo"
)

var testModel = [32]byte{1, 2, 3, 4, 5, 6, 7, 8}

// stateCache makes a cache of 3 layers and 2 sequences of 40 positions in
// pages of 8 (a 40-position sequence spans 5 pages, so a saved sequence
// crosses page boundaries).
func stateCache(t testing.TB, typ Type, unified, scatter bool) *Cache {
	t.Helper()
	return recCache(t, typ, unified, scatter, 0)
}

// recCache is stateCache with rec float32 of recurrent state per sequence.
func recCache(t testing.TB, typ Type, unified, scatter bool, rec int) *Cache {
	t.Helper()
	c, err := New(Options{NLayer: 3, NKV: 64, HeadDim: 32, NCtx: 40, NSeq: 2, TypeK: typ, TypeV: typ, PageSize: 8, Unified: unified, Scatter: scatter, Recurrent: rec})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fillRandom gives seq n positions of random row bytes (the codec copies
// bytes, so any bytes are a valid test of it) and a random recurrent
// state, and returns their tokens.
func fillRandom(t testing.TB, c *Cache, seq, n int, seed uint64) []int32 {
	t.Helper()
	if err := c.Reserve(seq, n); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	toks := make([]int32, n)
	for p := range n {
		toks[p] = int32(r.IntN(32000))
		for l := range c.Options().NLayer {
			for _, row := range [][]byte{c.KeyRow(l, seq, p), c.ValueRow(l, seq, p)} {
				for i := range row {
					row[i] = byte(r.Uint32())
				}
			}
		}
	}
	for i := range c.Recurrent(seq) {
		c.Recurrent(seq)[i] = r.Float32()*2 - 1
	}
	c.SetLen(seq, n)
	return toks
}

func saveState(t testing.TB, c *Cache, seq int, toks []int32) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := c.WriteState(&buf, seq, testModel, toks)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n != c.StateSize(len(toks)) {
		t.Fatalf("wrote %d bytes, buffer %d, StateSize %d", n, buf.Len(), c.StateSize(len(toks)))
	}
	return buf.Bytes()
}

// sameRows reports whether positions [0, n) of (a, sa) and (b, sb) hold
// the same bytes in every layer, and the two sequences the same recurrent
// state bits.
func sameRows(a *Cache, sa int, b *Cache, sb, n int) bool {
	ra, rb := a.Recurrent(sa), b.Recurrent(sb)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if math.Float32bits(ra[i]) != math.Float32bits(rb[i]) {
			return false
		}
	}
	for l := range a.Options().NLayer {
		for p := range n {
			if !bytes.Equal(a.KeyRow(l, sa, p), b.KeyRow(l, sb, p)) || !bytes.Equal(a.ValueRow(l, sa, p), b.ValueRow(l, sb, p)) {
				return false
			}
		}
	}
	return true
}

// TestStateRoundTrip: a sequence saved from one page placement and restored
// into another sequence of a cache with another placement (scattered
// pages, unified pool) holds the same bytes in every row and the same
// tokens, for every row type.
func TestStateRoundTrip(t *testing.T) {
	for _, name := range TypeNames() {
		typ, err := ParseType(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{0, 1, 7, 8, 9, 40} {
				src := stateCache(t, typ, false, false)
				toks := fillRandom(t, src, 0, n, uint64(n))
				file := saveState(t, src, 0, toks)
				dst := stateCache(t, typ, true, true)
				fillRandom(t, dst, 0, 5, 99) // another sequence in the pool
				got, err := dst.RestoreState(bytes.NewReader(file), int64(len(file)), 1, testModel)
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				if !slices.Equal(got, toks) || dst.Len(1) != n || dst.Len(0) != 5 {
					t.Fatalf("n=%d: tokens %v (want %v), lengths %d/%d", n, got, toks, dst.Len(1), dst.Len(0))
				}
				if !sameRows(src, 0, dst, 1, n) {
					t.Fatalf("n=%d: restored rows differ", n)
				}
				// Saving the restored sequence gives the same file.
				if again := saveState(t, dst, 1, got); !bytes.Equal(again, file) {
					t.Fatalf("n=%d: re-saved file differs", n)
				}
			}
		})
	}
}

// fixCRC rewrites the trailing checksum after a test edits the header, so
// the edit is caught by the check it targets and not by the CRC.
func fixCRC(b []byte) []byte {
	b = slices.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

// TestStateRefused: every damaged or foreign file is refused with an
// error naming the problem, and the target sequence keeps its contents.
func TestStateRefused(t *testing.T) {
	src := stateCache(t, F16, false, false)
	toks := fillRandom(t, src, 0, 20, 1)
	good := saveState(t, src, 0, toks)
	le := binary.LittleEndian
	f32 := stateCache(t, F32, false, false)
	otherType := saveState(t, f32, 0, fillRandom(t, f32, 0, 20, 1))

	edit := func(f func(b []byte)) []byte {
		b := slices.Clone(good)
		f(b)
		return fixCRC(b)
	}
	cases := []struct {
		name string
		file []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrBadState, "shorter than"},
		{"truncated by one byte", good[:len(good)-1], ErrBadState, "truncated or corrupt"},
		{"truncated in the rows", good[:len(good)/2], ErrBadState, "truncated or corrupt"},
		{"header only", good[:stateFixed], ErrBadState, "shorter than"},
		{"trailing garbage", append(slices.Clone(good), 0), ErrBadState, "truncated or corrupt"},
		{"bit flip in a row", func() []byte { b := slices.Clone(good); b[len(b)-100] ^= 1; return b }(), ErrBadState, "checksum"},
		{"bit flip in a token", func() []byte { b := slices.Clone(good); b[stateFixed] ^= 0x80; return b }(), ErrBadState, "checksum"},
		{"bit flip in the checksum", func() []byte { b := slices.Clone(good); b[len(b)-1] ^= 1; return b }(), ErrBadState, "checksum"},
		{"bad magic", edit(func(b []byte) { b[0] = 'X' }), ErrBadState, "magic"},
		{"future version", edit(func(b []byte) { le.PutUint32(b[8:], 3) }), ErrBadState, "version 3"},
		{"unknown flags", edit(func(b []byte) { le.PutUint32(b[12:], 1) }), ErrBadState, "flags"},
		{"huge token count", edit(func(b []byte) { le.PutUint32(b[112:], 0xFFFFFFFF) }), ErrBadState, "over the limit"},
		{"huge rows", edit(func(b []byte) { le.PutUint32(b[56:], 1<<28); le.PutUint32(b[48:], 1<<28) }), ErrBadState, "truncated or corrupt"},
		{"zero layers", edit(func(b []byte) { le.PutUint32(b[48:], 0) }), ErrBadState, "empty shape"},
		{"garbage type name", edit(func(b []byte) { b[64] = 0x01 }), ErrBadState, "type name"},
		{"another model", edit(func(b []byte) { b[16] ^= 0xFF }), ErrStateMismatch, "another model"},
		{"other cache types", otherType, ErrStateMismatch, "cache types f32/f32"},
		{"renamed type, other row size", edit(func(b []byte) { le.PutUint32(b[56:], 64) }), ErrBadState, "truncated or corrupt"},
		{"another codebook", edit(func(b []byte) { le.PutUint64(b[96:], 0x1234) }), ErrStateMismatch, "codebook"},
		{"another shape", edit(func(b []byte) { le.PutUint32(b[52:], 32) }), ErrStateMismatch, "values per position"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst := stateCache(t, F16, false, false)
			before := fillRandom(t, dst, 1, 11, 5)
			ref := stateCache(t, F16, false, false)
			fillRandom(t, ref, 1, 11, 5)
			_, err := dst.RestoreState(bytes.NewReader(tc.file), int64(len(tc.file)), 1, testModel)
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.is, tc.msg)
			}
			if dst.Len(1) != len(before) || !sameRows(dst, 1, ref, 1, len(before)) {
				t.Fatalf("the refused file changed the sequence (len %d)", dst.Len(1))
			}
		})
	}
}

// TestStateTooLongForCache: a file longer than the target's context is
// refused before anything changes.
func TestStateTooLongForCache(t *testing.T) {
	src := stateCache(t, F32, false, false)
	file := saveState(t, src, 0, fillRandom(t, src, 0, 40, 3))
	small, err := New(Options{NLayer: 3, NKV: 64, HeadDim: 32, NCtx: 16, NSeq: 1, TypeK: F32, TypeV: F32, PageSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.RestoreState(bytes.NewReader(file), int64(len(file)), 0, testModel); !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("error %v", err)
	}
}

// TestStateRestoreOverFork: restoring into a sequence that shares pages
// with another (Fork) leaves the other sequence's rows intact.
func TestStateRestoreOverFork(t *testing.T) {
	c := stateCache(t, F32, false, false)
	fillRandom(t, c, 0, 24, 1)
	if err := c.Fork(0, 1, 24); err != nil {
		t.Fatal(err)
	}
	ref := stateCache(t, F32, false, false)
	fillRandom(t, ref, 0, 24, 1)
	other := stateCache(t, F32, false, false)
	otoks := fillRandom(t, other, 0, 30, 2)
	file := saveState(t, other, 0, otoks)
	if _, err := c.RestoreState(bytes.NewReader(file), int64(len(file)), 1, testModel); err != nil {
		t.Fatal(err)
	}
	if !sameRows(c, 0, ref, 0, 24) || !sameRows(c, 1, other, 0, 30) {
		t.Fatal("restore over a forked sequence corrupted a shared page")
	}
}

// TestStatePoolFull: a unified pool without room for the file's positions
// fails with ErrPoolFull and leaves the sequence empty (documented).
func TestStatePoolFull(t *testing.T) {
	src := stateCache(t, F32, false, false)
	file := saveState(t, src, 0, fillRandom(t, src, 0, 40, 3))
	c := stateCache(t, F32, true, false)
	fillRandom(t, c, 0, 40, 4) // the pool's 40 cells (+1 slack page) are mostly taken
	_, err := c.RestoreState(bytes.NewReader(file), int64(len(file)), 1, testModel)
	if !errors.Is(err, ErrPoolFull) || c.Len(1) != 0 || c.Len(0) != 40 {
		t.Fatalf("error %v, lengths %d/%d", err, c.Len(0), c.Len(1))
	}
}

// flipAfter is a ReaderAt whose bytes change after the first full read,
// as if another process rewrote the file during a restore.
type flipAfter struct {
	b     []byte
	reads int64
}

func (f *flipAfter) ReadAt(p []byte, off int64) (int, error) {
	f.reads += int64(len(p))
	if f.reads > int64(2*len(f.b)) {
		f.b[len(f.b)-50] ^= 1
	}
	return bytes.NewReader(f.b).ReadAt(p, off)
}

// TestStateFileChangedDuringRestore: the second read's checksum catches a
// file that changed after it was verified; the sequence is left empty,
// never half-loaded.
func TestStateFileChangedDuringRestore(t *testing.T) {
	src := stateCache(t, F32, false, false)
	file := saveState(t, src, 0, fillRandom(t, src, 0, 33, 3))
	c := stateCache(t, F32, false, false)
	fillRandom(t, c, 0, 10, 4)
	r := &flipAfter{b: slices.Clone(file)}
	_, err := c.RestoreState(r, int64(len(file)), 0, testModel)
	if !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), "changed") || c.Len(0) != 0 {
		t.Fatalf("error %v, length %d", err, c.Len(0))
	}
}

// TestStateTCQFingerprint: a turbo3_tcq cache writes its codebook
// fingerprint, and a file whose fingerprint differs (another codebook) is
// refused even though everything else matches.
func TestStateTCQFingerprint(t *testing.T) {
	src := stateCache(t, Turbo3TCQ, false, false)
	good := saveState(t, src, 0, fillRandom(t, src, 0, 12, 1))
	in, err := ReadStateInfo(bytes.NewReader(good), int64(len(good)))
	if err != nil || in.TypeK != "turbo3_tcq" || in.CodebookK == 0 || in.CodebookK != CodebookFingerprint(Turbo3TCQ) {
		t.Fatalf("header %+v, %v", in, err)
	}
	bad := slices.Clone(good)
	binary.LittleEndian.PutUint64(bad[104:], in.CodebookV^1)
	bad = fixCRC(bad)
	dst := stateCache(t, Turbo3TCQ, false, false)
	if _, err := dst.RestoreState(bytes.NewReader(bad), int64(len(bad)), 0, testModel); !errors.Is(err, ErrStateMismatch) || !strings.Contains(err.Error(), "codebook") {
		t.Fatalf("error %v", err)
	}
	if _, err := dst.RestoreState(bytes.NewReader(good), int64(len(good)), 0, testModel); err != nil {
		t.Fatal(err)
	}
}

// TestCodebookFingerprint: the TCQ types have distinct nonzero, stable
// fingerprints; other types have 0. (Changing a codebook entry changes the
// decoded probe values and so the hash; turbo's tables are not mutable
// from here, so that is argued in the doc, not tested.)
func TestCodebookFingerprint(t *testing.T) {
	if CodebookFingerprint(F32) != 0 || CodebookFingerprint(F16) != 0 {
		t.Fatal("non-TCQ types must have fingerprint 0")
	}
	a, b := probeCodebook(turbo.Turbo2TCQ), probeCodebook(turbo.Turbo3TCQ)
	if a == 0 || b == 0 || a == b || a != probeCodebook(turbo.Turbo2TCQ) {
		t.Fatalf("fingerprints %x %x", a, b)
	}
	for _, name := range []string{"turbo2_tcq", "turbo3_tcq"} {
		if typ, err := ParseType(name); err == nil {
			tt, _ := turbo.ParseType(name)
			if CodebookFingerprint(typ) != probeCodebook(tt) {
				t.Fatalf("%s: fingerprint not wired", name)
			}
		}
	}
	t.Logf("turbo2_tcq %016x, turbo3_tcq %016x", a, b)
}

// fuzzRec is the recurrent-state size of FuzzReadState's hybrid cache
// (small, so mutations reach the section and the checksum often).
const fuzzRec = 6

// FuzzReadState feeds arbitrary bytes to RestoreState of an attention-only
// and a hybrid cache: each must return an error, leaving the sequence
// empty with a zero recurrent state and its Generation unchanged, or a
// sequence whose re-saved file equals the input (for a version 1 input:
// the version 2 file of the same sequence); never panic or allocate beyond
// the input's size.
func FuzzReadState(f *testing.F) {
	for _, rec := range []int{0, fuzzRec} {
		src := recCache(f, F16, false, false, rec)
		good := saveState(f, src, 0, fillRandom(f, src, 0, 9, 1))
		f.Add(good)
		f.Add(good[:len(good)-1])
		f.Add(good[:stateFixed+8])
		empty := recCache(f, F16, false, false, rec)
		f.Add(saveState(f, empty, 0, nil))
		if rec == 0 {
			f.Add(toV1(f, good))
			f.Add(toV1(f, saveState(f, empty, 0, nil)))
		}
	}
	f.Add([]byte(stateMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ierr := ReadStateInfo(bytes.NewReader(data), int64(len(data)))
		for _, rec := range []int{0, fuzzRec} {
			c := recCache(t, F16, false, false, rec)
			toks, err := c.RestoreState(bytes.NewReader(data), int64(len(data)), 1, testModel)
			if ierr != nil && err == nil {
				t.Fatalf("ReadStateInfo refused (%v) what RestoreState accepted", ierr)
			}
			if err != nil {
				if c.Len(1) != 0 || c.Generation(1) != 0 || slices.ContainsFunc(c.Recurrent(1), func(v float32) bool { return v != 0 }) {
					t.Fatal("a refused file left positions or state behind")
				}
				continue
			}
			want := data
			if binary.LittleEndian.Uint32(data[8:]) == 1 {
				want = fromV1(data)
			}
			if again := saveState(t, c, 1, toks); !bytes.Equal(again, want) {
				t.Fatal("accepted file does not round-trip")
			}
		}
	})
}
