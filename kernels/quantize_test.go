package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

// blockQuants returns the int8 quants of block b of a q8 row.
func blockQuants(row []byte, off, n int) []int {
	q := make([]int, n)
	for i := range q {
		q[i] = int(int8(row[off+i]))
	}
	return q
}

// q8Probe is a 32-value block whose largest magnitude is 127, so d = 1,
// the multiplier 127/amax = 1, and the quants are x rounded half to even
// (llama.cpp's x86 activation quantizer, see q8Scale).
func q8Probe() (x []float32, want []int) {
	x = []float32{127, 63.5, -63.5, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, -0.49999997, 126.5, -126.5, 3.25, -3.75}
	want = []int{127, 64, -64, 0, 0, 2, 2, -2, 0, 0, 126, -126, 3, -4}
	for len(x) < 32 {
		x = append(x, 0)
		want = append(want, 0)
	}
	return x, want
}

func TestQuantizeQ8_0KnownAnswers(t *testing.T) {
	x, want := q8Probe()
	b := make([]byte, 34)
	QuantizeRow(Q8_0, b, x)
	if d := binary.LittleEndian.Uint16(b); d != 0x3c00 {
		t.Fatalf("d = %#04x, want fp16 1.0", d)
	}
	if got := blockQuants(b, 2, 32); !equalInts(got, want) {
		t.Fatalf("quants %v\nwant   %v", got, want)
	}
	// amax 254 -> d = 2, id = 127/254 = 0.5: 5 -> 2.5 -> 2, -1 -> -0.5 -> 0,
	// 3 -> 1.5 -> 2 (ties to even).
	x2 := make([]float32, 32)
	x2[0], x2[1], x2[2], x2[3] = -254, 5, -1, 3
	QuantizeRow(Q8_0, b, x2)
	if d := binary.LittleEndian.Uint16(b); d != 0x4000 {
		t.Fatalf("d = %#04x, want fp16 2.0", d)
	}
	if got := blockQuants(b, 2, 4); !equalInts(got, []int{-127, 2, 0, 2}) {
		t.Fatalf("quants %v", got)
	}
	// All zero: d = 0 and quants 0.
	for i := range b {
		b[i] = 0xff
	}
	QuantizeRow(Q8_0, b, make([]float32, 32))
	for i, v := range b {
		if v != 0 {
			t.Fatalf("zero block byte %d = %#x", i, v)
		}
	}
}

func TestQuantizeQ8_1KnownAnswers(t *testing.T) {
	x, want := q8Probe()
	b := make([]byte, 36)
	QuantizeRow(Q8_1, b, x)
	if d := binary.LittleEndian.Uint16(b); d != 0x3c00 {
		t.Fatalf("d = %#04x, want fp16 1.0", d)
	}
	sum := 0
	for _, q := range want {
		sum += q
	}
	if s := binary.LittleEndian.Uint16(b[2:]); s != F32ToF16(float32(sum)) {
		t.Fatalf("s = %#04x (%v), want fp16(%d)", s, F16ToF32(s), sum)
	}
	if got := blockQuants(b, 4, 32); !equalInts(got, want) {
		t.Fatalf("quants %v\nwant   %v", got, want)
	}
	// s uses the float32 d, not the fp16-rounded one: amax 100 gives
	// d = 100/127 (fp16 rounds it), and 32 values of 100 give sum 32*127.
	x2 := make([]float32, 32)
	for i := range x2 {
		x2[i] = 100
	}
	QuantizeRow(Q8_1, b, x2)
	d32 := float32(100) / 127
	if s := binary.LittleEndian.Uint16(b[2:]); s != F32ToF16(float32(32*127)*d32) {
		t.Fatalf("s = %v, want fp16(%v)", F16ToF32(s), float32(32*127)*d32)
	}
}

func TestQuantizeQ8_KKnownAnswers(t *testing.T) {
	x := make([]float32, QK_K)
	// The first value of largest magnitude is 127: iscale = -1, d = -1, and
	// every quant is nearest_int(-x), ties to even.
	vals := []float32{127, 63.5, -63.5, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -127}
	want := []int{-127, -64, 64, 0, 0, -2, -2, 2, -4, 127}
	copy(x, vals)
	x[16], x[17] = 10, 20 // second bsum group
	b := make([]byte, 292)
	QuantizeRow(Q8_K, b, x)
	if d := math.Float32frombits(binary.LittleEndian.Uint32(b)); d != -1 {
		t.Fatalf("d = %v, want -1", d)
	}
	if got := blockQuants(b, 4, len(want)); !equalInts(got, want) {
		t.Fatalf("quants %v\nwant   %v", got, want)
	}
	sum0 := 0
	for _, q := range want {
		sum0 += q
	}
	bs := func(j int) int { return int(int16(binary.LittleEndian.Uint16(b[260+2*j:]))) }
	if bs(0) != sum0 || bs(1) != -30 || bs(2) != 0 {
		t.Fatalf("bsums %d %d %d, want %d -30 0", bs(0), bs(1), bs(2), sum0)
	}
	// Ties on magnitude: the first one wins, so -127 first gives d = +1.
	x[0], x[9] = -127, 127
	QuantizeRow(Q8_K, b, x)
	if d := math.Float32frombits(binary.LittleEndian.Uint32(b)); d != 1 {
		t.Fatalf("d = %v, want 1", d)
	}
	// All zero: d = 0, quants and bsums 0.
	for i := range b {
		b[i] = 0xff
	}
	QuantizeRow(Q8_K, b, make([]float32, QK_K))
	for i, v := range b {
		if v != 0 {
			t.Fatalf("zero block byte %d = %#x", i, v)
		}
	}
}

func TestQuantizeQ4_0KnownAnswers(t *testing.T) {
	// max = -8 (largest magnitude, negative): d = 1, q = min(15, trunc(x + 8.5)).
	x := make([]float32, 32)
	vals := []float32{-8, 7, 7.49, 0, -0.5, -0.6, 6.5, 3.2}
	want := []int{0, 15, 15, 8, 8, 7, 15, 11}
	copy(x, vals)
	b := make([]byte, 18)
	QuantizeRow(Q4_0, b, x)
	if d := binary.LittleEndian.Uint16(b); d != 0x3c00 {
		t.Fatalf("d = %#04x, want 1.0", d)
	}
	for j, w := range want {
		if got := int(b[2+j] & 15); got != w {
			t.Errorf("value %d (%v): nibble %d, want %d", j, vals[j], got, w)
		}
	}
	if got := int(b[2] >> 4); got != 8 { // x[16] = 0 -> 8
		t.Errorf("value 16: nibble %d, want 8", got)
	}
	// max = +8: d = -1, so 8 -> 0.5 -> 0 and -8 -> 16.5 -> clamped 15.
	x[0], x[1] = 8, -8
	QuantizeRow(Q4_0, b, x)
	if d := binary.LittleEndian.Uint16(b); d != 0xbc00 {
		t.Fatalf("d = %#04x, want -1.0", d)
	}
	if b[2]&15 != 0 || b[3]&15 != 15 {
		t.Errorf("nibbles %d %d, want 0 15", b[2]&15, b[3]&15)
	}
}

// TestQuantizeRoundTrip checks that dequantizing a quantized row is within
// half a quantization step of the input (q8 formats) or one step for q4_0,
// and that the float formats round-trip through their converters.
func TestQuantizeRoundTrip(t *testing.T) {
	r := newRand(7)
	for _, typ := range []DType{Q8_0, Q8_1, Q8_K, Q4_0} {
		for nb := 1; nb <= 4; nb++ {
			n := nb * typ.BlockSize()
			x := randomActs(r, n)
			b := make([]byte, typ.RowBytes(n))
			QuantizeRow(typ, b, x)
			y := make([]float32, n)
			DequantizeRow(typ, y, b)
			bs := typ.BlockSize()
			for blk := 0; blk < nb; blk++ {
				amax := 0.0
				for _, v := range x[blk*bs : (blk+1)*bs] {
					amax = math.Max(amax, math.Abs(float64(v)))
				}
				step := amax / 127
				if typ == Q4_0 {
					step = amax / 8 * 2 // the clamp at 15 can cost a whole step
				}
				for i := blk * bs; i < (blk+1)*bs; i++ {
					if e := math.Abs(float64(x[i] - y[i])); e > step/2*1.01+amax*1e-3 {
						t.Fatalf("%v value %d: %v -> %v, error %g > half step %g", typ, i, x[i], y[i], e, step/2)
					}
				}
			}
		}
	}
}

func TestQuantizePanics(t *testing.T) {
	mustPanic(t, "type without quantizer", func() { QuantizeRow(DType(16), make([]byte, 66), make([]float32, 256)) }) // IQ2_XXS
	mustPanic(t, "short dst", func() { QuantizeRow(Q8_0, make([]byte, 33), make([]float32, 32)) })
	mustPanic(t, "not a block multiple", func() { QuantizeRow(Q8_0, make([]byte, 68), make([]float32, 40)) })
}

func TestQuantizeImplsMatchGeneric(t *testing.T) {
	ref, _ := resolve("generic")
	for _, name := range nonGenericImpls(t) {
		kt, _ := resolve(name)
		r := newRand(8)
		for typ := DType(0); typ < dtypeLimit; typ++ {
			if !typ.CanQuantize() {
				continue
			}
			for nb := 1; nb <= 8; nb++ {
				n := nb * typ.BlockSize()
				x := randomActs(r, n)
				want, got := make([]byte, typ.RowBytes(n)), make([]byte, typ.RowBytes(n))
				ref.quantize[typ](want, x)
				kt.quantize[typ](got, x)
				if string(got) != string(want) {
					t.Errorf("%s %v n=%d: quantized bytes differ from generic", name, typ, n)
				}
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
