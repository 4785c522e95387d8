package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIQ4NLExactBlock: a block whose values are d·table entries (with the
// largest magnitude at -127·d) quantizes to exactly those indices and d,
// dequantizes back exactly, and its dot with a q8_0 row equals the integer
// sum times the two scales.
func TestIQ4NLExactBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const d = 0.5
	idx := make([]uint8, 32)
	x := make([]float32, 32)
	for j := range x {
		idx[j] = uint8(1 + r.IntN(15))
		if j == 7 {
			idx[j] = 0 // -127: the value of largest magnitude
		}
		x[j] = d * float32(kvaluesIQ4NL[idx[j]])
	}
	blk := make([]byte, IQ4_NL.RowBytes(32))
	QuantizeRow(IQ4_NL, blk, x)
	if got := f16At(blk); got != d {
		t.Fatalf("d = %v, want %v", got, d)
	}
	for j := range 16 {
		if lo, hi := blk[2+j]&0x0f, blk[2+j]>>4; lo != idx[j] || hi != idx[16+j] {
			t.Fatalf("byte %d = %#x, want indices %d, %d", j, blk[2+j], idx[j], idx[16+j])
		}
	}
	back := make([]float32, 32)
	DequantizeRow(IQ4_NL, back, blk)
	for j := range x {
		if back[j] != x[j] {
			t.Fatalf("value %d: %v, want %v", j, back[j], x[j])
		}
	}
	act := make([]float32, 32)
	for j := range act {
		act[j] = float32(r.NormFloat64())
	}
	xq := make([]byte, Q8_0.RowBytes(32))
	QuantizeRow(Q8_0, xq, act)
	var sum int32
	for j := range 32 {
		sum += int32(kvaluesIQ4NL[idx[j]]) * int32(int8(xq[2+j]))
	}
	want := d * f16At(xq) * float32(sum)
	if got := VecDot(IQ4_NL, 32, blk, xq); got != want {
		t.Fatalf("VecDot %v, want %v", got, want)
	}
}

// TestIQ4NLRoundTrip: Gaussian rows come back within the 4-bit table's
// error (relative RMS 0.1, measured ~0.09), a zero block stays zero, and
// every index is the nearest table entry to x/d (ties upward).
func TestIQ4NLRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 4096
	x := make([]float32, n)
	for i := 32; i < n; i++ { // block 0 stays zero
		x[i] = float32(r.NormFloat64())
	}
	q := make([]byte, IQ4_NL.RowBytes(n))
	QuantizeRow(IQ4_NL, q, x)
	y := make([]float32, n)
	DequantizeRow(IQ4_NL, y, q)
	var num, den float64
	for i := range x {
		if i < 32 && y[i] != 0 {
			t.Fatalf("zero block decodes to %v", y[i])
		}
		e := float64(y[i] - x[i])
		num, den = num+e*e, den+float64(x[i])*float64(x[i])
	}
	if rel := math.Sqrt(num / den); rel > 0.1 {
		t.Fatalf("relative RMS error %.3g", rel)
	}
	for _, c := range []struct {
		x    float32
		want uint8
	}{{-200, 0}, {-127, 0}, {-115.5, 1}, {-115.6, 0}, {0, 8}, {-4.5, 8}, {-4.6, 7}, {113, 15}, {500, 15}} {
		if got := bestIndexInt8(c.x); got != c.want {
			t.Errorf("bestIndexInt8(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
