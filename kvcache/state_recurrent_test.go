package kvcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
)

// testRec is the recurrent-state size of the test caches: not a multiple
// of the codec's 4096-value conversion chunk, and above it.
const testRec = 5000

// TestRecurrentStorage: each sequence owns its own block, which Truncate to
// 0 zeroes, a shorter Truncate keeps, Fork copies at the source's length
// and zeroes elsewhere; none of them, nor Reserve and SetLen, changes the
// Generation.
func TestRecurrentStorage(t *testing.T) {
	c, err := New(Options{NLayer: 1, NKV: 8, NCtx: 8, NSeq: 3, TypeK: F32, TypeV: F32, PageSize: 2, Recurrent: 5})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		r := c.Recurrent(s)
		if len(r) != 5 || cap(r) != 5 {
			t.Fatalf("sequence %d: block of len %d cap %d", s, len(r), cap(r))
		}
		for i := range r {
			r[i] = float32(10*s + i + 1)
		}
		if err := c.Reserve(s, 4); err != nil {
			t.Fatal(err)
		}
		c.SetLen(s, 4)
	}
	if c.Recurrent(0)[4] != 5 || c.Recurrent(1)[0] != 11 || c.Recurrent(2)[4] != 25 {
		t.Fatal("the blocks overlap")
	}
	if err := c.Truncate(1, 2); err != nil || c.Recurrent(1)[0] != 11 {
		t.Fatalf("a cut to 2 changed the state: %v %v", err, c.Recurrent(1))
	}
	if err := c.Fork(0, 2, 4); err != nil || !slices.Equal(c.Recurrent(2), c.Recurrent(0)) {
		t.Fatalf("fork at the source's length: %v %v", err, c.Recurrent(2))
	}
	if err := c.Fork(0, 2, 3); err != nil || slices.ContainsFunc(c.Recurrent(2), func(v float32) bool { return v != 0 }) {
		t.Fatalf("fork below the source's length did not zero: %v %v", err, c.Recurrent(2))
	}
	if err := c.Truncate(0, 0); err != nil || slices.ContainsFunc(c.Recurrent(0), func(v float32) bool { return v != 0 }) {
		t.Fatalf("truncate to 0 did not zero: %v %v", err, c.Recurrent(0))
	}
	if c.Recurrent(1)[0] != 11 {
		t.Fatal("another sequence's state changed")
	}
	for s := range 3 {
		if c.Generation(s) != 0 {
			t.Fatalf("sequence %d: generation %d without a restore", s, c.Generation(s))
		}
	}
	for _, rec := range []int{-1, maxRecurrent + 1} {
		if _, err := New(Options{NLayer: 1, NKV: 8, NCtx: 8, NSeq: 1, Recurrent: rec}); err == nil {
			t.Errorf("Recurrent %d accepted", rec)
		}
	}
	if _, err := New(Options{NLayer: 1, NKV: 8, NCtx: 8, NSeq: 5, Recurrent: maxRecurrent}); err == nil {
		t.Error("a recurrent pool over the limit accepted")
	}
}

// TestStateRecurrentRoundTrip: the recurrent section comes back bit for
// bit with the rows and tokens, the file is StateSize long (4 bytes per
// value more than without it), the restored sequence's Generation
// advances by one and no other's does, and a re-save gives the same file.
func TestStateRecurrentRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 9, 40} {
		src := recCache(t, F16, false, false, testRec)
		toks := fillRandom(t, src, 0, n, uint64(n)+100)
		file := saveState(t, src, 0, toks)
		if plain := stateCache(t, F16, false, false); int64(len(file)) != plain.StateSize(n)+4*testRec {
			t.Fatalf("n=%d: %d bytes, want %d + 4·%d", n, len(file), plain.StateSize(n), testRec)
		}
		dst := recCache(t, F16, true, true, testRec)
		fillRandom(t, dst, 0, 5, 99)
		fillRandom(t, dst, 1, 3, 98)
		g0, g1 := dst.Generation(0), dst.Generation(1)
		got, err := dst.RestoreState(bytes.NewReader(file), int64(len(file)), 1, testModel)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !slices.Equal(got, toks) || dst.Len(1) != n || !sameRows(src, 0, dst, 1, n) {
			t.Fatalf("n=%d: restored sequence differs", n)
		}
		if dst.Generation(1) != g1+1 || dst.Generation(0) != g0 {
			t.Fatalf("n=%d: generations %d/%d, were %d/%d", n, dst.Generation(0), dst.Generation(1), g0, g1)
		}
		if again := saveState(t, dst, 1, got); !bytes.Equal(again, file) {
			t.Fatalf("n=%d: re-saved file differs", n)
		}
	}
}

// refuse restores file into sequence 1 of a cache like ref (filled the
// same way) and checks that it is refused with an error matching is and
// msg, leaving rows, recurrent state and Generation as they were.
func refuse(t *testing.T, file []byte, rec int, is error, msg string) {
	t.Helper()
	dst, ref := recCache(t, F16, false, false, rec), recCache(t, F16, false, false, rec)
	n := len(fillRandom(t, dst, 1, 11, 5))
	fillRandom(t, ref, 1, 11, 5)
	_, err := dst.RestoreState(bytes.NewReader(file), int64(len(file)), 1, testModel)
	if err == nil || !errors.Is(err, is) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v, want %v containing %q", err, is, msg)
	}
	if dst.Len(1) != n || !sameRows(dst, 1, ref, 1, n) || dst.Generation(1) != 0 {
		t.Fatalf("the refused file changed the sequence (len %d, generation %d)", dst.Len(1), dst.Generation(1))
	}
}

// TestStateRecurrentMismatch: a file whose recurrent section has another
// size than the cache's (another model shape, an attention-only model, a
// hybrid file into an attention-only cache) is refused before anything
// changes, with a message naming the recurrent state.
func TestStateRecurrentMismatch(t *testing.T) {
	save := func(rec int) []byte {
		c := recCache(t, F16, false, false, rec)
		return saveState(t, c, 0, fillRandom(t, c, 0, 12, 1))
	}
	refuse(t, save(testRec-1), testRec, ErrStateMismatch, "4999 values of recurrent state per sequence, this cache 5000")
	refuse(t, save(0), testRec, ErrStateMismatch, "holds no recurrent state")
	refuse(t, save(testRec), 0, ErrStateMismatch, "5000 values of recurrent state per sequence, this cache 0")
	// The count field edited (checksum fixed) so the size no longer adds up.
	bad := slices.Clone(save(testRec))
	binary.LittleEndian.PutUint32(bad[116:], testRec+1)
	refuse(t, fixCRC(bad), testRec, ErrBadState, "truncated or corrupt")
	binary.LittleEndian.PutUint32(bad[116:], maxCells+1)
	refuse(t, fixCRC(bad), testRec, ErrBadState, "over the limit")
}

// stateRegion names the part of a state file byte i of a file for n
// tokens falls in, for failure messages.
func stateRegion(i, n, size int) string {
	switch {
	case i < stateFixed:
		return "header"
	case i < stateFixed+4*n:
		return "token ids"
	case i >= size-stateTrailer:
		return "checksum"
	case i >= size-stateTrailer-4*testRec:
		return "recurrent state"
	}
	return "rows"
}

// TestStateEveryByteCorrupt: flipping one bit of any byte of a hybrid
// state file (header, token ids, rows, recurrent section, checksum) gets
// it refused, and the sequence keeps its rows, state and Generation.
func TestStateEveryByteCorrupt(t *testing.T) {
	src := recCache(t, F16, false, false, testRec)
	good := saveState(t, src, 0, fillRandom(t, src, 0, 3, 1))
	dst, ref := recCache(t, F16, false, false, testRec), recCache(t, F16, false, false, testRec)
	n := len(fillRandom(t, dst, 1, 11, 5))
	fillRandom(t, ref, 1, 11, 5)
	seen := map[string]int{}
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 1 << (i % 8)
		_, err := dst.RestoreState(bytes.NewReader(bad), int64(len(bad)), 1, testModel)
		where := stateRegion(i, 3, len(good))
		seen[where]++
		if err == nil || !(errors.Is(err, ErrBadState) || errors.Is(err, ErrStateMismatch)) {
			t.Fatalf("byte %d (%s) flipped: error %v", i, where, err)
		}
		if dst.Len(1) != n || dst.Generation(1) != 0 {
			t.Fatalf("byte %d (%s) flipped: the sequence changed", i, where)
		}
	}
	if !sameRows(dst, 1, ref, 1, n) {
		t.Fatal("a refused file changed the rows or the recurrent state")
	}
	if len(seen) != 5 {
		t.Fatalf("regions covered: %v", seen)
	}
}

// TestStateEveryTruncation: every proper prefix of a hybrid state file is
// refused as bad, leaving the sequence as it was.
func TestStateEveryTruncation(t *testing.T) {
	src := recCache(t, F16, false, false, testRec)
	good := saveState(t, src, 0, fillRandom(t, src, 0, 2, 1))
	dst, ref := recCache(t, F16, false, false, testRec), recCache(t, F16, false, false, testRec)
	n := len(fillRandom(t, dst, 1, 11, 5))
	fillRandom(t, ref, 1, 11, 5)
	for m := range len(good) {
		_, err := dst.RestoreState(bytes.NewReader(good[:m]), int64(m), 1, testModel)
		if !errors.Is(err, ErrBadState) || dst.Len(1) != n || dst.Generation(1) != 0 {
			t.Fatalf("prefix of %d bytes: error %v, length %d", m, err, dst.Len(1))
		}
	}
	if !sameRows(dst, 1, ref, 1, n) {
		t.Fatal("a truncated file changed the sequence")
	}
}

// toV1 rewrites a version 2 file without recurrent state as the version 1
// file an older build wrote for the same sequence.
func toV1(t testing.TB, v2 []byte) []byte {
	t.Helper()
	if binary.LittleEndian.Uint32(v2[116:]) != 0 {
		t.Fatal("toV1: the file has a recurrent section")
	}
	v1 := append(slices.Clone(v2[:116]), v2[stateFixed:]...)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	return fixCRC(v1)
}

// fromV1 is the inverse of toV1: what this build writes for the sequence a
// version 1 file holds.
func fromV1(v1 []byte) []byte {
	v2 := append(append(slices.Clone(v1[:116]), 0, 0, 0, 0), v1[116:]...)
	binary.LittleEndian.PutUint32(v2[8:], StateVersion)
	return fixCRC(v2)
}

// TestStateVersion1: an attention-only cache reads version 1 files (the
// same rows and tokens; re-saving writes version 2); a cache with
// recurrent state refuses them, saying why; a v1 file one byte short is
// refused.
func TestStateVersion1(t *testing.T) {
	src := stateCache(t, F16, false, false)
	toks := fillRandom(t, src, 0, 13, 2)
	v2 := saveState(t, src, 0, toks)
	v1 := toV1(t, v2)
	if !bytes.Equal(fromV1(v1), v2) {
		t.Fatal("toV1/fromV1 do not invert")
	}
	in, err := ReadStateInfo(bytes.NewReader(v1), int64(len(v1)))
	if err != nil || in.Version != 1 || in.Recurrent != 0 || !slices.Equal(in.Tokens, toks) {
		t.Fatalf("v1 header %+v, %v", in, err)
	}
	dst := stateCache(t, F16, true, true)
	got, err := dst.RestoreState(bytes.NewReader(v1), int64(len(v1)), 1, testModel)
	if err != nil || !slices.Equal(got, toks) || !sameRows(src, 0, dst, 1, len(toks)) {
		t.Fatalf("v1 restore: %v", err)
	}
	if again := saveState(t, dst, 1, got); !bytes.Equal(again, v2) {
		t.Fatal("a restored v1 file does not re-save as the v2 file")
	}
	refuse(t, v1, testRec, ErrStateMismatch, "version 1 file, which holds no recurrent state")
	refuse(t, v1[:len(v1)-1], 0, ErrBadState, "truncated or corrupt")
	refuse(t, v1[:stateFixedV1+3], 0, ErrBadState, "shorter than")
}

// TestStateRecurrentFileChanged: a file that changes between the check and
// the load leaves the sequence empty with a zero recurrent state and an
// advanced Generation (its old contents are gone), never half-loaded.
func TestStateRecurrentFileChanged(t *testing.T) {
	src := recCache(t, F32, false, false, testRec)
	file := saveState(t, src, 0, fillRandom(t, src, 0, 33, 3))
	c := recCache(t, F32, false, false, testRec)
	fillRandom(t, c, 0, 10, 4)
	r := &flipAfter{b: slices.Clone(file)}
	_, err := c.RestoreState(r, int64(len(file)), 0, testModel)
	if !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), "changed") || c.Len(0) != 0 || c.Generation(0) != 1 {
		t.Fatalf("error %v, length %d, generation %d", err, c.Len(0), c.Generation(0))
	}
	if slices.ContainsFunc(c.Recurrent(0), func(v float32) bool { return v != 0 }) {
		t.Fatal("a failed load left recurrent state behind")
	}
}
