package kvcache

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

func newTestCache(t *testing.T, typ Type) *Cache {
	t.Helper()
	c, err := New(Options{NLayer: 2, NKV: 8, NCtx: 4, NSeq: 3, TypeK: typ, TypeV: typ, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		if err := c.Reserve(s, 4); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// vec returns a distinct vector for (layer, seq, pos) whose values are exact
// in f16, so both cache types round-trip it.
func vec(layer, seq, pos int) []float32 {
	v := make([]float32, 8)
	for i := range v {
		v[i] = float32(layer*16+seq*4+pos) + float32(i)/8
	}
	return v
}

func readRow(typ Type, row []byte) []float32 {
	out := make([]float32, 8)
	kernels.DequantizeRow(typ.DType(), out, row)
	return out
}

func TestStoreReadBack(t *testing.T) {
	for _, typ := range []Type{F32, F16} {
		c := newTestCache(t, typ)
		for l := range 2 {
			for s := range 3 {
				for p := range 4 {
					c.Store(l, s, p, vec(l, s, p), vec(l+5, s, p))
				}
			}
		}
		for l := range 2 {
			for s := range 3 {
				for p := range 4 {
					if got := readRow(typ, c.KeyRow(l, s, p)); !slices.Equal(got, vec(l, s, p)) {
						t.Fatalf("%s key (%d,%d,%d) = %v", typ, l, s, p, got)
					}
					if got := readRow(typ, c.ValueRow(l, s, p)); !slices.Equal(got, vec(l+5, s, p)) {
						t.Fatalf("%s value (%d,%d,%d) = %v", typ, l, s, p, got)
					}
				}
			}
		}
	}
}

func TestTruncateAndFork(t *testing.T) {
	c := newTestCache(t, F32)
	for p := range 3 {
		for l := range 2 {
			c.Store(l, 0, p, vec(l, 0, p), vec(l, 0, p))
		}
	}
	c.SetLen(0, 3)
	if err := c.Fork(0, 2, 2); err != nil {
		t.Fatal(err)
	}
	if c.Len(2) != 2 {
		t.Fatalf("forked length %d", c.Len(2))
	}
	for l := range 2 {
		for p := range 2 {
			if got := readRow(F32, c.KeyRow(l, 2, p)); !slices.Equal(got, vec(l, 0, p)) {
				t.Fatalf("fork copied %v at layer %d pos %d", got, l, p)
			}
		}
	}
	if err := c.Fork(0, 1, 4); err == nil {
		t.Fatal("fork of more positions than the source holds succeeded")
	}
	if err := c.Truncate(0, 1); err != nil || c.Len(0) != 1 {
		t.Fatalf("truncate: len %d err %v", c.Len(0), err)
	}
	if err := c.Truncate(0, 10); err != nil || c.Len(0) != 1 {
		t.Fatalf("truncate past the end changed the length to %d (%v)", c.Len(0), err)
	}
	if err := c.Truncate(5, 0); err == nil {
		t.Fatal("truncate of a missing sequence succeeded")
	}
	if err := c.Truncate(0, -1); err == nil {
		t.Fatal("truncate to a negative position succeeded")
	}
}

func TestNewRejectsBadShapes(t *testing.T) {
	for _, o := range []Options{
		{NLayer: 1, NKV: 0, NCtx: 4, NSeq: 1},
		{NLayer: 1, NKV: 8, NCtx: 0, NSeq: 1},
		{NLayer: 1, NKV: 8, NCtx: 1 << 20, NSeq: 1 << 10},
		{NLayer: 1, NKV: 8, NCtx: 4, NSeq: 1, TypeK: Type(99)},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestParseType(t *testing.T) {
	for _, typ := range []Type{F32, F16} {
		got, err := ParseType(typ.String())
		if err != nil || got != typ {
			t.Errorf("ParseType(%q) = %v, %v", typ.String(), got, err)
		}
	}
	if _, err := ParseType("q9_9"); err == nil {
		t.Error("ParseType accepted q9_9")
	}
}

func TestBytes(t *testing.T) {
	c := newTestCache(t, F16)
	k, v := c.Bytes()
	if want := int64(2 * 3 * 4 * 8 * 2); k != want || v != want { // quota: 3 sequences of 2 pages of 2
		t.Fatalf("Bytes() = %d, %d; want %d each", k, v, want)
	}
}
