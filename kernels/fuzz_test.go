package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzVecDot checks VecDot of every weight type, on every implementation,
// against the float64 dot of the dequantized operands. The fuzzer picks the
// type, the block count, the raw weight bytes (scale fields included, made
// finite) and the seed of the activations.
func FuzzVecDot(f *testing.F) {
	for i, typ := range weightTypes {
		f.Add(uint8(i), uint8(i%4), []byte{byte(typ), 0x3c, 0x11, 0xff, 0x80}, uint64(i))
	}
	f.Add(uint8(2), uint8(3), []byte{0xff, 0x7b, 0x00, 0x04}, uint64(99)) // large and subnormal scales
	f.Fuzz(func(t *testing.T, ti, nb uint8, raw []byte, seed uint64) {
		typ := weightTypes[int(ti)%len(weightTypes)]
		n := (1 + int(nb)%4) * typ.BlockSize()
		if typ.BlockSize() == 1 {
			n = 1 + int(nb)%100
		}
		w := make([]byte, typ.RowBytes(n))
		for i := range w {
			if len(raw) > 0 {
				w[i] = raw[i%len(raw)] ^ byte(i*7)
			}
		}
		finiteWeights(typ, w)
		x := randomActs(newRand(seed), n)
		xq, xd := quantizeActs(typ, x)
		want, allowed := dotBound(typ, w, xq, xd)
		if math.IsInf(want, 0) || math.IsNaN(want) || math.Abs(want) > 1e30 {
			t.Skip("dot outside float32 range")
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			got := kt.vecDot[typ](n, w, xq)
			if math.Abs(float64(got)-want) > allowed {
				t.Fatalf("%v n=%d: VecDot=%g dequantized=%g allowed %g", typ, n, got, want, allowed)
			}
			if g := ref.vecDot[typ](n, w, xq); math.Abs(float64(got-g)) > allowed*tolVecDotImpl/tolVecDotDequant {
				t.Fatalf("%v n=%d: %s=%g generic=%g", typ, n, name, got, g)
			}
		})
	})
}

// finiteWeights clears the exponent of every Inf/NaN scale or value so
// that the weights are finite numbers (any finite bit pattern is kept).
func finiteWeights(typ DType, w []byte) {
	fixHalf := func(off int) {
		h := binary.LittleEndian.Uint16(w[off:])
		if h&0x7c00 == 0x7c00 {
			binary.LittleEndian.PutUint16(w[off:], h&^0x4000)
		}
	}
	switch typ {
	case F32:
		for i := 0; i+4 <= len(w); i += 4 {
			v := binary.LittleEndian.Uint32(w[i:])
			if v&0x7f800000 == 0x7f800000 {
				binary.LittleEndian.PutUint32(w[i:], v&^0x40000000)
			}
		}
	case F16:
		for i := 0; i+2 <= len(w); i += 2 {
			fixHalf(i)
		}
	case BF16:
		for i := 0; i+2 <= len(w); i += 2 {
			if h := binary.LittleEndian.Uint16(w[i:]); h&0x7f80 == 0x7f80 {
				binary.LittleEndian.PutUint16(w[i:], h&^0x4000)
			}
		}
	default:
		bb := typ.BlockBytes()
		for off := 0; off < len(w); off += bb {
			for _, f := range halfFields[typ] {
				fixHalf(off + f)
			}
		}
	}
}

// FuzzQuantizeRow checks that every quantizer is deterministic across
// implementations and that dequantizing its output stays within one
// quantization step of finite input.
func FuzzQuantizeRow(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3f, 0xff, 0xff, 0x7f, 0x7f})
	f.Fuzz(func(t *testing.T, ti uint8, raw []byte) {
		types := []DType{F32, F16, BF16, Q4_0, Q8_0, Q8_1, Q8_K}
		typ := types[int(ti)%len(types)]
		n := typ.BlockSize() * 2
		if typ.BlockSize() == 1 {
			n = 64
		}
		x := make([]float32, n)
		for i := range x {
			var b [4]byte
			for k := range b {
				if len(raw) > 0 {
					b[k] = raw[(4*i+k)%len(raw)]
				}
			}
			v := math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1e30 {
				v = 0
			}
			x[i] = v
		}
		out := make([]byte, typ.RowBytes(n))
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			want := make([]byte, len(out))
			ref.quantize[typ](want, x)
			kt.quantize[typ](out, x)
			if string(out) != string(want) {
				t.Fatalf("%v: %s differs from generic", typ, name)
			}
		})
		y := make([]float32, n)
		DequantizeRow(typ, y, out)
		if typ == F32 {
			for i := range x {
				if x[i] != y[i] {
					t.Fatalf("f32 round trip %v -> %v", x[i], y[i])
				}
			}
		}
	})
}
