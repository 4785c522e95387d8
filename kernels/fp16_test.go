package kernels

import (
	"math"
	"testing"
)

// refHalfValue decodes a finite binary16 value with float64 arithmetic.
func refHalfValue(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	v := math.Ldexp(mant, -24) // subnormal: mant * 2^-24
	if exp != 0 {
		v = math.Ldexp(1024+mant, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// refF32ToF16 rounds f to binary16 with float64 arithmetic: scale the
// magnitude so the half's last mantissa bit is the units digit, round to
// even, then assemble the fields.
func refF32ToF16(f float32) uint16 {
	var sign uint16
	if math.Signbit(float64(f)) {
		sign = 0x8000
	}
	a := math.Abs(float64(f))
	if math.IsNaN(a) {
		return sign | 0x7e00
	}
	if a < math.Ldexp(1, -14) {
		return sign | uint16(math.RoundToEven(math.Ldexp(a, 24))) // may carry into 0x400
	}
	_, e := math.Frexp(a) // a in [2^(e-1), 2^e)
	e--
	m := math.RoundToEven(math.Ldexp(a, 10-e))
	if m == 2048 {
		m, e = 1024, e+1
	}
	if e+15 >= 31 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(m-1024)
}

func TestF16ToF32Exhaustive(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		got := F16ToF32(h)
		exp, mant := h>>10&0x1f, uint32(h&0x3ff)
		switch {
		case exp == 0x1f && mant != 0:
			bits := math.Float32bits(got)
			if !math.IsNaN(float64(got)) || bits>>31 != uint32(h>>15) || bits&0x3fffff != (mant<<13)&0x3fffff || bits&0x400000 == 0 {
				t.Fatalf("NaN %#04x -> %#08x: want quiet NaN with sign and payload kept", h, bits)
			}
		case exp == 0x1f:
			if !math.IsInf(float64(got), 1-2*int(h>>15)) {
				t.Fatalf("%#04x -> %v, want Inf", h, got)
			}
		default:
			if want := refHalfValue(h); float64(got) != want || math.Signbit(float64(got)) != (h&0x8000 != 0) {
				t.Fatalf("%#04x -> %v, want %v", h, got, want)
			}
		}
	}
}

func TestF32ToF16RoundTripsEveryHalf(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			if got := F32ToF16(F16ToF32(h)); got != h&0x8000|0x7e00 {
				t.Fatalf("NaN %#04x -> %#04x, want %#04x (ggml's canonical NaN)", h, got, h&0x8000|0x7e00)
			}
			continue
		}
		if got := F32ToF16(F16ToF32(h)); got != h {
			t.Fatalf("%#04x -> %v -> %#04x", h, F16ToF32(h), got)
		}
	}
}

// TestF32ToF16Halfway checks every midpoint between adjacent finite halves
// (exactly representable in float32) rounds to the even neighbour, and the
// float32s just beside it round to the nearer one.
func TestF32ToF16Halfway(t *testing.T) {
	for i := 0; i < 0x7c00; i++ {
		lo, hi := uint16(i), uint16(i+1)
		var mid float32
		if hi == 0x7c00 {
			mid = 65520 // between 65504 and the first unrepresentable 65536
		} else {
			mid = float32((refHalfValue(lo) + refHalfValue(hi)) / 2)
			if float64(mid) != (refHalfValue(lo)+refHalfValue(hi))/2 {
				t.Fatalf("midpoint of %#04x not exact in float32", lo)
			}
		}
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		for _, sign := range []uint16{0, 0x8000} {
			m := mid
			if sign != 0 {
				m = -mid
			}
			if got := F32ToF16(m); got != sign|even {
				t.Fatalf("tie %v: got %#04x want %#04x", m, got, sign|even)
			}
			below := math.Nextafter32(mid, 0)
			above := math.Nextafter32(mid, float32(math.Inf(1)))
			if sign != 0 {
				below, above = -below, -above
			}
			if got := F32ToF16(below); got != sign|lo {
				t.Fatalf("just below tie %v: got %#04x want %#04x", below, got, sign|lo)
			}
			if got := F32ToF16(above); got != sign|hi {
				t.Fatalf("just above tie %v: got %#04x want %#04x", above, got, sign|hi)
			}
		}
	}
}

func TestF32ToF16Special(t *testing.T) {
	cases := []struct {
		f    float32
		want uint16
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0x8000},
		{float32(math.Inf(1)), 0x7c00}, {float32(math.Inf(-1)), 0xfc00},
		{float32(math.NaN()), 0x7e00},
		{math.Float32frombits(0xffc00001), 0xfe00}, // negative NaN keeps its sign
		{1e10, 0x7c00}, {-1e10, 0xfc00},
		{65504, 0x7bff}, {65519.996, 0x7bff}, {65520, 0x7c00},
		{float32(math.Ldexp(1, -24)), 0x0001}, {float32(math.Ldexp(1, -25)), 0},
		{float32(math.Ldexp(1.0000001, -25)), 0x0001}, {float32(math.Ldexp(3, -25)), 0x0002},
		{math.Float32frombits(1), 0},               // float32 subnormal
		{float32(math.Ldexp(1023.5, -24)), 0x0400}, // rounds up into the normals
		{1, 0x3c00}, {-2, 0xc000}, {0.1, 0x2e66}, {1.0 / 3, 0x3555},
	}
	for _, c := range cases {
		if got := F32ToF16(c.f); got != c.want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

func TestF32ToF16Random(t *testing.T) {
	r := newRand(5)
	for i := 0; i < 1<<20; i++ {
		bits := r.Uint32()
		if i%2 == 0 { // concentrate on the half range
			bits = bits&0x80000000 | (0x33000000 + bits%0x14800000)
		}
		f := math.Float32frombits(bits)
		if got, want := F32ToF16(f), refF32ToF16(f); got != want {
			t.Fatalf("F32ToF16(%v / %#08x) = %#04x, reference %#04x", f, bits, got, want)
		}
	}
}

// refF32ToBF16 picks the nearer of the two bf16 values around f (ties to
// even), comparing distances in float64.
func refF32ToBF16(f float32) uint16 {
	bits := math.Float32bits(f)
	if math.IsNaN(float64(f)) {
		return uint16(bits>>16) | 0x40
	}
	lo := uint16(bits >> 16)
	hi := lo + 1
	if bits&0xffff == 0 {
		return lo
	}
	a := math.Abs(float64(f))
	vlo := math.Abs(float64(BF16ToF32(lo)))
	vhi := math.Abs(float64(BF16ToF32(hi)))
	if math.IsInf(vhi, 0) {
		vhi = math.Ldexp(1, 128)
	}
	switch dl, dh := a-vlo, vhi-a; {
	case dl < dh:
		return lo
	case dh < dl:
		return hi
	case lo&1 == 0:
		return lo
	default:
		return hi
	}
}

func TestBF16(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := BF16ToF32(h)
		if math.Float32bits(f) != uint32(h)<<16 {
			t.Fatalf("BF16ToF32(%#04x) bits %#08x", h, math.Float32bits(f))
		}
		want := h
		if math.IsNaN(float64(f)) {
			want |= 0x40
		}
		if got := F32ToBF16(f); got != want {
			t.Fatalf("F32ToBF16(BF16ToF32(%#04x)) = %#04x, want %#04x", h, got, want)
		}
	}
	r := newRand(6)
	for i := 0; i < 1<<20; i++ {
		bits := r.Uint32()
		if i%4 == 0 {
			bits = bits&^0xffff | 0x8000 // exact ties
		}
		f := math.Float32frombits(bits)
		if got, want := F32ToBF16(f), refF32ToBF16(f); got != want {
			t.Fatalf("F32ToBF16(%#08x) = %#04x, reference %#04x", bits, got, want)
		}
	}
	cases := []struct {
		bits uint32
		want uint16
	}{
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x7f7fffff, 0x7f80}, // max float rounds to Inf
		{0x7f800001, 0x7fc0}, // signalling NaN forced quiet
		{0xff800000, 0xff80}, // -Inf
		{0x00000001, 0x0000}, // tiny subnormal rounds to zero
		{0x00008000, 0x0000}, // tie at zero
		{0x00018000, 0x0002}, // subnormal tie, odd rounds up
	}
	for _, c := range cases {
		if got := F32ToBF16(math.Float32frombits(c.bits)); got != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
		}
	}
}
