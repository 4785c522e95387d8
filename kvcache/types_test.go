package kvcache

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTypeNamesAndIDs: every type parses from its llama.cpp name (any
// case), round-trips through its ggml id, and the ids are ggml's
// (f32 0, f16 1, q4_0 2, q8_0 8, bf16 30, turbo3 42, turbo2_tcq 46).
func TestTypeNamesAndIDs(t *testing.T) {
	for _, name := range TypeNames() {
		typ, err := ParseType(name)
		if err != nil || typ.String() != name {
			t.Fatalf("%q: %v %v", name, typ, err)
		}
		if u, err := ParseType(" " + string([]rune(name)[0]-32) + name[1:]); err != nil || u != typ {
			t.Fatalf("%q upper-case: %v %v", name, u, err)
		}
		back, ok := TypeFromGGML(typ.GGMLType())
		if !ok || back != typ {
			t.Fatalf("%v: ggml id %d maps back to %v", typ, typ.GGMLType(), back)
		}
	}
	for typ, id := range map[Type]uint32{F32: 0, F16: 1, Q4_0: 2, Q8_0: 8, IQ4NL: 20, BF16: 30, Turbo3: 42, Turbo4: 43, Turbo2: 44, Turbo3TCQ: 45, Turbo2TCQ: 46} {
		if typ.GGMLType() != id {
			t.Errorf("%v: ggml id %d, want %d", typ, typ.GGMLType(), id)
		}
	}
	if _, err := ParseType("q3_k"); err == nil {
		t.Fatal("an unsupported type parsed")
	}
}

// TestHeadBytes: block types need whole blocks per head; turbo heads are
// padded to 128 values; the sizes are the formats'.
func TestHeadBytes(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		hd   int
		want int
	}{{F16, 72, 144}, {Q8_0, 64, 68}, {Q4_0, 128, 72}, {Q5_1, 64, 48}, {IQ4NL, 64, 36}, {BF16, 64, 128},
		{Turbo3, 64, 50}, {Turbo3, 128, 50}, {Turbo3, 256, 100}, {Turbo2TCQ, 80, 36}} {
		if got, err := c.typ.HeadBytes(c.hd); err != nil || got != c.want {
			t.Errorf("%v head %d: %d bytes (%v), want %d", c.typ, c.hd, got, err, c.want)
		}
	}
	if _, err := Q4_0.HeadBytes(72); err == nil {
		t.Error("q4_0 accepted a head of 72 values")
	}
	if _, err := New(Options{NLayer: 1, NKV: 256, NCtx: 8, NSeq: 1, TypeK: Turbo3, TypeV: F16}); err == nil {
		t.Error("a turbo cache without HeadDim was accepted")
	}
}

// TestEncodeDecodeRow: every type round-trips a row of several heads
// within its precision (relative RMS error, measured then bounded with a
// margin), and heads stay in place (a zero head decodes to zeros next to
// non-zero ones).
func TestEncodeDecodeRow(t *testing.T) {
	bounds := map[Type]float64{F32: 0, F16: 1e-3, BF16: 5e-3, Q8_0: 1e-2, Q5_0: 5e-2, Q5_1: 5e-2, Q4_0: 1e-1, Q4_1: 1e-1, IQ4NL: 1e-1,
		Turbo4: 0.11, Turbo3: 0.2, Turbo3TCQ: 0.16, Turbo2: 0.37, Turbo2TCQ: 0.3}
	const nHead, hd = 3, 64
	for typ, bound := range bounds {
		r := rand.New(rand.NewPCG(uint64(typ)+1, 2)) // per type: map order must not matter
		src := make([]float32, nHead*hd)
		for i := hd; i < len(src); i++ { // head 0 stays zero
			src[i] = float32(r.NormFloat64())
		}
		rb, err := typ.RowBytes(nHead, hd)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]byte, rb)
		typ.EncodeRow(row, src, nHead, hd)
		dst := make([]float32, len(src))
		typ.DecodeRow(dst, row, nHead, hd)
		var num, den float64
		for i := range src {
			if i < hd && dst[i] != 0 {
				t.Fatalf("%v: the zero head decodes to %v at %d", typ, dst[i], i)
			}
			e := float64(dst[i] - src[i])
			num, den = num+e*e, den+float64(src[i])*float64(src[i])
		}
		rel := math.Sqrt(num / den)
		t.Logf("%v: relative error %.3g", typ, rel)
		if rel > bound {
			t.Errorf("%v: relative error %.3g, bound %.3g", typ, rel, bound)
		}
	}
	if len(bounds) != int(numTypes) {
		t.Fatalf("bounds cover %d of %d types", len(bounds), numTypes)
	}
}
