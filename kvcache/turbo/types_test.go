package turbo

import "testing"

func TestLayouts(t *testing.T) {
	want := []struct {
		typ    Type
		id     int
		name   string
		block  int
		bits   int
		bpv    float64
		row64  int // head dims 64, 80, 128, 192, 256
		row80  int
		row128 int
		row192 int
		row256 int
	}{
		{Turbo3, 42, "turbo3", 50, 3, 3.125, 50, 50, 50, 100, 100},
		{Turbo4, 43, "turbo4", 66, 4, 4.125, 66, 66, 66, 132, 132},
		{Turbo2, 44, "turbo2", 34, 2, 2.125, 34, 34, 34, 68, 68},
		{Turbo3TCQ, 45, "turbo3_tcq", 52, 3, 3.25, 52, 52, 52, 104, 104},
		{Turbo2TCQ, 46, "turbo2_tcq", 36, 2, 2.25, 36, 36, 36, 72, 72},
	}
	for _, w := range want {
		typ := w.typ
		if int(typ) != w.id || typ.String() != w.name || typ.BlockBytes() != w.block || typ.Bits() != w.bits ||
			typ.BitsPerValue() != w.bpv || !typ.Valid() {
			t.Errorf("%s: id %d block %d bits %d bpv %g", typ, int(typ), typ.BlockBytes(), typ.Bits(), typ.BitsPerValue())
		}
		for n, rb := range map[int]int{64: w.row64, 80: w.row80, 128: w.row128, 192: w.row192, 256: w.row256, 0: 0, -5: 0} {
			if got := typ.RowBytes(n); got != rb {
				t.Errorf("%s.RowBytes(%d) = %d, want %d", typ, n, got, rb)
			}
		}
		if p, err := ParseType(w.name); err != nil || p != typ {
			t.Errorf("ParseType(%q) = %v, %v", w.name, p, err)
		}
	}
	for _, bad := range []Type{0, 41, 47, -1} {
		if bad.Valid() || bad.BlockBytes() != 0 || bad.RowBytes(128) != 0 {
			t.Errorf("type %d looks valid", int(bad))
		}
	}
	if _, err := ParseType("q8_0"); err == nil {
		t.Error("ParseType accepted q8_0")
	}
	for n, p := range map[int]int{1: 128, 64: 128, 80: 128, 96: 128, 128: 128, 129: 256, 192: 256, 256: 256} {
		if PaddedLen(n) != p {
			t.Errorf("PaddedLen(%d) = %d, want %d", n, PaddedLen(n), p)
		}
	}
}

// TestEncodeDecodeLengthErrors: wrong lengths and types are errors, not
// panics, and leave nothing half-written that could be mistaken for data.
func TestEncodeDecodeLengthErrors(t *testing.T) {
	for _, typ := range Types {
		if err := typ.Encode(make([]byte, typ.RowBytes(80)+1), make([]float32, 80)); err == nil {
			t.Errorf("%s: Encode accepted a long dst", typ)
		}
		if err := typ.Encode(nil, nil); err == nil {
			t.Errorf("%s: Encode accepted an empty row", typ)
		}
		if err := typ.Decode(make([]float32, 129), make([]byte, typ.BlockBytes())); err == nil {
			t.Errorf("%s: Decode accepted 129 values from one block", typ)
		}
		if err := typ.DecodeRotated(make([]float32, 80), make([]byte, typ.BlockBytes())); err == nil {
			t.Errorf("%s: DecodeRotated accepted an unpadded dst", typ)
		}
	}
	if err := Type(7).Decode(make([]float32, 128), make([]byte, 50)); err == nil {
		t.Error("Decode accepted an invalid type")
	}
}
