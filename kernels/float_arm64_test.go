//go:build !purego

package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"unsafe"
)

// neonFloatImpls returns the full kernel tables of the arm64
// implementations, by name.
func neonFloatImpls(t *testing.T) map[string]kernelTable {
	m := map[string]kernelTable{}
	for _, name := range armImpls(t) {
		kt, _ := resolve(name)
		m[name] = kt
	}
	return m
}

// neonFloatSizes are lengths around the 8-value step of the float kernels.
var neonFloatSizes = []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 33, 63, 64, 65, 127, 129, 1000}

// guardedFloatsAt is guardedFloats with the slice ending `tail` floats
// before the fault page, so starts vary with tail.
func guardedFloatsAt(t *testing.T, x []float32, tail int) []float32 {
	b := guardedBytes(t, 4*(len(x)+tail), 0)
	if len(x) == 0 {
		return []float32{}
	}
	g := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(x))
	copy(g, x)
	return g
}

// TestNEONF16RowsExhaustive converts every fp16 pattern to float32 and
// back through the arm64 row converters, bit for bit against F16ToF32 and
// F32ToF16, with the source ending at a fault page and a sentinel after
// the destination.
func TestNEONF16RowsExhaustive(t *testing.T) {
	src := make([]byte, 2<<16)
	for h := range 1 << 16 {
		binary.LittleEndian.PutUint16(src[2*h:], uint16(h))
	}
	for name, kt := range neonFloatImpls(t) {
		for _, n := range []int{1 << 16, 1<<16 - 3} {
			g := guardedCopy(t, src[:2*n], 0)
			dst := make([]float32, n+1)
			dst[n] = 42
			kt.dequantize[F16](dst[:n], g)
			for h := range n {
				if got, want := math.Float32bits(dst[h]), math.Float32bits(F16ToF32(uint16(h))); got != want {
					t.Fatalf("%s F16ToF32(%#04x) = %#08x, want %#08x", name, h, got, want)
				}
			}
			if dst[n] != 42 {
				t.Fatalf("%s: dequantize wrote past the row", name)
			}
			back := make([]byte, 2*n+2)
			kt.quantize[F16](back[:2*n], guardedFloats(t, dst[:n]))
			for h := range n {
				want := F32ToF16(dst[h])
				if got := binary.LittleEndian.Uint16(back[2*h:]); got != want {
					t.Fatalf("%s F32ToF16(%#08x) = %#04x, want %#04x", name, math.Float32bits(dst[h]), got, want)
				}
			}
			if back[2*n] != 0 || back[2*n+1] != 0 {
				t.Fatalf("%s: quantize wrote past the row", name)
			}
		}
	}
}

// neonF16Probes returns float32 patterns around every fp16 rounding
// boundary (halfway points and their neighbours, subnormal halves
// included), NaNs with every kind of payload and both signs, and the
// overflow and underflow edges.
func neonF16Probes() []float32 {
	var v []float32
	for h := range 1<<15 - 1 {
		lo, hi := float64(F16ToF32(uint16(h))), float64(F16ToF32(uint16(h+1)))
		if math.IsNaN(hi) || math.IsInf(lo, 0) {
			continue
		}
		mb := math.Float32bits(float32((lo + hi) / 2))
		for d := -2; d <= 2; d++ {
			f := math.Float32frombits(uint32(int64(mb) + int64(d)))
			v = append(v, f, -f)
		}
	}
	for _, bits := range []uint32{
		0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fffffff, 0xff800001, 0xffc01234, 0x7f802000, 0x7fa00000, 0xffffffff,
		0x7f800000, 0xff800000, 0x477fefff, 0x477ff000, 0x477fe000, 0x33000000, 0x33000001, 0x337fffff,
		0x387fc000, 0x387fe000, 0x7f7fffff, 0x00000001, 0x807fffff, 0x80000000, 0,
	} {
		v = append(v, math.Float32frombits(bits))
	}
	return v
}

// TestNEONF32ToF16Dense converts the probes and every 4099th float32 bit
// pattern (about a million, all exponents, signs and NaN payloads) and
// requires F32ToF16's bits.
func TestNEONF32ToF16Dense(t *testing.T) {
	for name, kt := range neonFloatImpls(t) {
		check := func(src []float32) {
			dst := make([]byte, 2*len(src))
			kt.quantize[F16](dst, src)
			for i, f := range src {
				if got, want := binary.LittleEndian.Uint16(dst[2*i:]), F32ToF16(f); got != want {
					t.Fatalf("%s F32ToF16(%#08x) = %#04x, want %#04x", name, math.Float32bits(f), got, want)
				}
			}
		}
		check(neonF16Probes())
		src := make([]float32, 0, 1<<16)
		for b := uint64(0); b < 1<<32; b += 4099 {
			src = append(src, math.Float32frombits(uint32(b)))
			if len(src) == cap(src) {
				check(src)
				src = src[:0]
			}
		}
		check(src)
	}
}

// TestNEONFloatDots checks the F32/F16/BF16 VecDot and Dot kernels against the
// generic float64 sums within tolVecDotImpl/tolDotImpl, with rows ending at
// a fault page at several byte offsets (unaligned floats included), and
// exactly on small-integer rows whose sums float64 and float32 both hold.
func TestNEONFloatDots(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(201)
	for name, kt := range neonFloatImpls(t) {
		for _, typ := range []DType{F32, F16, BF16} {
			for _, n := range neonFloatSizes {
				for _, exact := range []bool{false, true} {
					a, b := randomActs(r, n), randomActs(r, n)
					if exact {
						for i := range a {
							a[i], b[i] = float32(r.IntN(33)-16), float32(r.IntN(33)-16)
						}
					}
					w, x := make([]byte, typ.RowBytes(n)), make([]byte, typ.RowBytes(n))
					QuantizeRow(typ, w, a)
					QuantizeRow(typ, x, b)
					want := ref.vecDot[typ](n, w, x)
					var mag float64
					for i := 0; i < n; i++ {
						mag += math.Abs(float64(a[i]) * float64(b[i]))
					}
					for _, tail := range []int{0, 1, 2, 5} {
						got := kt.vecDot[typ](n, guardedCopy(t, w, tail), guardedCopy(t, x, (tail+3)%4))
						what := fmt.Sprintf("%s %v n=%d tail=%d", name, typ, n, tail)
						if exact && got != want {
							t.Errorf("%s: %v, generic %v (exact integers)", what, got, want)
						} else if d := math.Abs(float64(got) - float64(want)); !(d <= tolVecDotImpl*mag+1e-30) {
							t.Errorf("%s: %v, generic %v", what, got, want)
						}
					}
					if typ != F32 {
						continue
					}
					for _, tail := range []int{0, 3} {
						got := kt.dot(guardedFloatsAt(t, a, tail), guardedFloatsAt(t, b, 0))
						want := ref.dot(a, b)
						if exact && got != want || math.Abs(float64(got)-float64(want)) > tolDotImpl*mag+1e-30 {
							t.Errorf("%s Dot n=%d tail=%d: %v, generic %v", name, n, tail, got, want)
						}
					}
				}
			}
		}
	}
}

// TestNEONElementwise checks Add, Mul and Scale bit for bit against the
// generic loops (one float32 rounding each), with inputs ending at a fault
// page, a sentinel after the destination, and dst aliasing a or b.
func TestNEONElementwise(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(202)
	same := func(x, y []float32) bool {
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	}
	for name, kt := range neonFloatImpls(t) {
		for _, n := range neonFloatSizes {
			a, b := randomActs(r, n), randomActs(r, n)
			if n > 2 {
				a[0], b[1], a[2] = float32(math.Inf(1)), 1e-40, float32(math.NaN())
			}
			for op, pair := range map[string][2]func(dst, a, b []float32){"add": {kt.add, ref.add}, "mul": {kt.mul, ref.mul}} {
				want := make([]float32, n)
				pair[1](want, a, b)
				for tail := range 3 {
					ga, gb := guardedFloatsAt(t, a, tail), guardedFloatsAt(t, b, 2-tail)
					dst := make([]float32, n+1)
					dst[n] = 42
					pair[0](dst[:n], ga, gb)
					if !same(dst[:n], want) || dst[n] != 42 {
						t.Errorf("%s %s n=%d tail=%d: differs from generic", name, op, n, tail)
					}
					pair[0](ga, ga, gb) // dst aliases a
					if !same(ga, want) {
						t.Errorf("%s %s n=%d: aliased result differs", name, op, n)
					}
				}
			}
			for _, s := range []float32{0.375, -3e-39, 7} {
				want := append([]float32(nil), a...)
				ref.scale(want, s)
				got := guardedFloatsAt(t, a, 1)
				kt.scale(got, s)
				if !same(got, want) {
					t.Errorf("%s scale n=%d s=%g: differs from generic", name, n, s)
				}
			}
		}
	}
}

// FuzzNEONFloat feeds fuzzed float32 bit patterns to the F16 and BF16
// conversions (bit-exact) and to the float dots (tolerance, skipped when the generic
// sum overflows).
func FuzzNEONFloat(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 1, 0, 0x80, 0x7f, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0x80, 0x33}, uint8(17))
	f.Fuzz(func(t *testing.T, raw []byte, nn uint8) {
		n := int(nn)
		a, b := make([]float32, n), make([]float32, n)
		for i := 0; i < n && len(raw) >= 4; i++ {
			j := 4 * i % (len(raw) - 3)
			a[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[j:]) ^ uint32(i)*0x01000193)
			b[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[(j+1)%(len(raw)-3):]))
		}
		ref, _ := resolve("generic")
		for name, kt := range neonFloatImpls(t) {
			for _, typ := range []DType{F16, BF16} {
				got, want := make([]byte, 2*n), make([]byte, 2*n)
				kt.quantize[typ](got, a)
				ref.quantize[typ](want, a)
				if string(got) != string(want) {
					t.Fatalf("%s %v row of %v: %x, want %x", name, typ, a, got, want)
				}
			}
			var mag float64
			for i := range a {
				mag += math.Abs(float64(a[i]) * float64(b[i]))
			}
			if math.IsNaN(mag) || mag > 1e37 {
				continue
			}
			if g, w := kt.dot(a, b), ref.dot(a, b); math.Abs(float64(g)-float64(w)) > tolDotImpl*mag+1e-30 {
				t.Fatalf("%s Dot: %v, generic %v", name, g, w)
			}
		}
	})
}

// cancelRow returns the weights and activations of n values that are zero
// except in the group of 8 starting at g, whose products are +big, +big,
// -big, -big and four tiny ones at random positions, big/tiny > 2^53: the
// float64 sum keeps a tiny product only if it meets it before or after a
// big pair has cancelled, so most changes of summation order change the
// result.
func cancelRow(r interface{ Perm(int) []int }, n, g int, big, tiny float32) (w, x []float32) {
	w, x = make([]float32, n), make([]float32, n)
	for k, p := range r.Perm(8) {
		switch {
		case k < 2:
			w[g+p], x[g+p] = big, big
		case k < 4:
			w[g+p], x[g+p] = big, -big
		default:
			w[g+p], x[g+p] = tiny, tiny
		}
	}
	return w, x
}

// TestNEONFloatVecDotNOrder checks F32/F16/BF16 VecDotN against VecDot bit for
// bit on cancelling rows (cancelRow), where the float64 lane sums depend on
// the order: a column summed in another lane order than VecDot's fails
// here, while it would pass on ordinary rows. Column 0 has cancelRow's
// products exactly; the others pair its weights with their own
// activations, whose products span big*big to tiny*tiny as well.
func TestNEONFloatVecDotNOrder(t *testing.T) {
	r := newRand(203)
	for name, kt := range neonFloatImpls(t) {
		for _, typ := range []DType{F32, F16, BF16} {
			big, tiny := float32(1<<30), float32(1)
			if typ == F16 {
				big, tiny = 1<<15, float32(math.Ldexp(1, -24))
			}
			for trial := range 200 {
				n := []int{8, 16, 24, 40}[trial%4]
				g := 8 * r.IntN(n/8)
				xn := typ.RowBytes(n)
				w := make([]byte, xn)
				x := make([]byte, MaxDotCols*xn)
				for c := range MaxDotCols {
					wf, xf := cancelRow(r, n, g, big, tiny)
					if c == 0 {
						QuantizeRow(typ, w, wf)
					}
					QuantizeRow(typ, x[c*xn:], xf)
				}
				for nc := 1; nc <= MaxDotCols; nc++ {
					out := make([]float32, nc)
					kt.vecDotN[typ](n, w, x, xn, out)
					for c := range nc {
						if one := kt.vecDot[typ](n, w, x[c*xn:(c+1)*xn]); math.Float32bits(out[c]) != math.Float32bits(one) {
							t.Errorf("%s %v n=%d nc=%d col %d: VecDotN %v, VecDot %v", name, typ, n, nc, c, out[c], one)
						}
					}
				}
			}
		}
	}
}

// TestNEONBF16RowsExhaustive converts every bf16 pattern to float32 and
// back through the arm64 row converters, bit for bit against BF16ToF32
// and F32ToBF16 (which quiets a NaN, so the round trip is checked against
// it rather than against the pattern), with the source ending at a fault
// page, odd lengths, and sentinels after both destinations.
func TestNEONBF16RowsExhaustive(t *testing.T) {
	src := make([]byte, 2<<16)
	for h := range 1 << 16 {
		binary.LittleEndian.PutUint16(src[2*h:], uint16(h))
	}
	for name, kt := range neonFloatImpls(t) {
		for _, n := range []int{1 << 16, 1<<16 - 3, 1<<16 - 9} {
			g := guardedCopy(t, src[:2*n], 0)
			dst := make([]float32, n+1)
			dst[n] = 42
			kt.dequantize[BF16](dst[:n], g)
			for h := range n {
				if got, want := math.Float32bits(dst[h]), math.Float32bits(BF16ToF32(uint16(h))); got != want {
					t.Fatalf("%s BF16ToF32(%#04x) = %#08x, want %#08x", name, h, got, want)
				}
			}
			if dst[n] != 42 {
				t.Fatalf("%s: bf16 dequantize wrote past the row", name)
			}
			back := make([]byte, 2*n+2)
			kt.quantize[BF16](back[:2*n], guardedFloats(t, dst[:n]))
			for h := range n {
				want := F32ToBF16(dst[h])
				if got := binary.LittleEndian.Uint16(back[2*h:]); got != want {
					t.Fatalf("%s F32ToBF16(%#08x) = %#04x, want %#04x", name, math.Float32bits(dst[h]), got, want)
				}
			}
			if back[2*n] != 0 || back[2*n+1] != 0 {
				t.Fatalf("%s: bf16 quantize wrote past the row", name)
			}
		}
	}
}

// TestNEONF32ToBF16Dense converts, for every bf16 pattern h, the float32
// patterns at and around its rounding boundaries (low halves 0x0000,
// 0x0001, 0x7fff, 0x8000 (the tie), 0x8001, 0xffff: ties to even, carries
// into the exponent, overflow to Inf, NaN payloads that live only in the
// low half), then every 4099th float32 pattern, and requires F32ToBF16's
// bits. The rows have odd lengths so the scalar tail runs too.
func TestNEONF32ToBF16Dense(t *testing.T) {
	for name, kt := range neonFloatImpls(t) {
		check := func(src []float32) {
			g := guardedFloatsAt(t, src, 1)
			dst := make([]byte, 2*len(src)+2)
			kt.quantize[BF16](dst[:2*len(src)], g)
			for i, f := range src {
				if got, want := binary.LittleEndian.Uint16(dst[2*i:]), F32ToBF16(f); got != want {
					t.Fatalf("%s F32ToBF16(%#08x) = %#04x, want %#04x", name, math.Float32bits(f), got, want)
				}
			}
			if dst[2*len(src)] != 0 || dst[2*len(src)+1] != 0 {
				t.Fatalf("%s: bf16 quantize wrote past the row", name)
			}
		}
		src := make([]float32, 0, 6<<16)
		for h := range uint32(1 << 16) {
			for _, lo := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff} {
				src = append(src, math.Float32frombits(h<<16|lo))
			}
		}
		check(src[:len(src)-1])
		src = src[:0]
		for b := uint64(0); b < 1<<32; b += 4099 {
			src = append(src, math.Float32frombits(uint32(b)))
			if len(src) == 1<<16+5 {
				check(src)
				src = src[:0]
			}
		}
		check(src)
	}
}
