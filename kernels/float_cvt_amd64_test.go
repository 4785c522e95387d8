package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"
)

// Tests of the F16/BF16 row conversions of every implementation: bit-exact
// with the scalar F32ToF16/F16ToF32/F32ToBF16/BF16ToF32 on every half and
// bfloat16, on a dense sweep of float32 bit patterns, on the rounding
// boundaries between neighbouring halves, and on length sweeps with guard
// bands and misaligned starts.

// fltAllHalves returns the 65536 16-bit patterns as a little-endian row.
func fltAllHalves() []byte {
	b := make([]byte, 2<<16)
	for h := range 1 << 16 {
		binary.LittleEndian.PutUint16(b[2*h:], uint16(h))
	}
	return b
}

func TestFloatF16BF16ToF32Exhaustive(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		src := fltAllHalves()
		for _, c := range []struct {
			typ  DType
			conv func(uint16) float32
		}{{F16, F16ToF32}, {BF16, BF16ToF32}} {
			dst := make([]float32, 1<<16)
			kt.dequantize[c.typ](dst, src)
			for h := range 1 << 16 {
				if got, want := math.Float32bits(dst[h]), math.Float32bits(c.conv(uint16(h))); got != want {
					t.Fatalf("%v %#04x: %#08x, want %#08x", c.typ, h, got, want)
				}
			}
		}
	})
}

// fltF32Probes returns float32 bit patterns that stress a conversion to a
// 16-bit format: for every 16-bit value the patterns at and next to the
// halfway point to its neighbour (computed from the decoded values, so the
// subnormal halves get theirs too), and hand-picked NaN payloads and
// overflow, underflow and subnormal edges.
func fltF32Probes(typ DType) []float32 {
	var v []float32
	for h := range 1 << 16 {
		var lo, hi float64
		if typ == F16 {
			lo, hi = float64(F16ToF32(uint16(h))), float64(F16ToF32(uint16(h+1)))
		} else {
			lo, hi = float64(BF16ToF32(uint16(h))), float64(BF16ToF32(uint16(h+1)))
		}
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || (lo < 0) != (hi < 0) {
			continue
		}
		mid := float32((lo + hi) / 2)
		mb := math.Float32bits(mid)
		for d := -2; d <= 2; d++ {
			v = append(v, math.Float32frombits(uint32(int64(mb)+int64(d))))
		}
	}
	for _, bits := range []uint32{0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fffffff, 0xff800001, 0xffc01234, 0x7f802000, 0x7fa00000, 0x477fefff, 0x477ff000, 0x33000000, 0x33000001, 0x337fffff, 0x387fc000, 0x387fe000, 0x7f7fffff, 0x7f7f8000, 0x00000001, 0x807fffff} {
		v = append(v, math.Float32frombits(bits))
	}
	return v
}

// TestFloatF32ToF16BF16Dense converts every 1021st float32 bit pattern
// (4.2 million, all exponents and signs) and the probes above.
// WAGGLE_FULL_F32_SWEEP=1 converts all 2^32 patterns instead (minutes).
func TestFloatF32ToF16BF16Dense(t *testing.T) {
	stride := uint64(1021)
	if os.Getenv("WAGGLE_FULL_F32_SWEEP") != "" {
		stride = 1
	}
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		for _, c := range []struct {
			typ  DType
			conv func(float32) uint16
		}{{F16, F32ToF16}, {BF16, F32ToBF16}} {
			check := func(src []float32, dst []byte) {
				kt.quantize[c.typ](dst, src)
				for i, f := range src {
					if got, want := binary.LittleEndian.Uint16(dst[2*i:]), c.conv(f); got != want {
						t.Fatalf("%v of %#08x: %#04x, want %#04x", c.typ, math.Float32bits(f), got, want)
					}
				}
			}
			probes := fltF32Probes(c.typ)
			check(probes, make([]byte, 2*len(probes)))
			src, dst := make([]float32, 0, 1<<16), make([]byte, 2<<16)
			for b := uint64(0); b < 1<<32; b += stride {
				src = append(src, math.Float32frombits(uint32(b)))
				if len(src) == cap(src) {
					check(src, dst)
					src = src[:0]
				}
			}
			check(src, dst)
		}
	})
}

func TestFloatConvertSweep(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, typ := range []DType{F16, BF16} {
			for _, n := range fltSizes() {
				x := fltOperands(uint64(n)+31, n)
				want := make([]byte, 2*n)
				ref.quantize[typ](want, x)
				for _, shift := range fltShifts {
					buf := make([]byte, shift+2*n+2*fltGuard)
					for i := range buf {
						buf[i] = 0xa5
					}
					q := buf[shift : shift+2*n]
					kt.quantize[typ](q, fltFill(x, shift))
					for i, b := range buf[shift+2*n:] {
						if b != 0xa5 {
							t.Fatalf("%v n=%d: quantize wrote guard byte %d", typ, n, i)
						}
					}
					if string(q) != string(want) {
						t.Fatalf("%v n=%d shift=%d: quantized row differs from generic", typ, n, shift)
					}
					back := fltBuf(n, shift+1)
					kt.dequantize[typ](back, q)
					fltCheckGuard(t, fmt.Sprintf("%v dequantize n=%d", typ, n), back)
					wantBack := make([]float32, n)
					ref.dequantize[typ](wantBack, want)
					for i := range back {
						if math.Float32bits(back[i]) != math.Float32bits(wantBack[i]) {
							t.Fatalf("%v n=%d: dequantized %d = %#08x, generic %#08x", typ, n, i, math.Float32bits(back[i]), math.Float32bits(wantBack[i]))
						}
					}
				}
			}
		}
	})
}
