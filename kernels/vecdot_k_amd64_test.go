//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// kqTypes are the K-quant weight types with amd64 assembly.
var kqTypes = []DType{Q2_K, Q3_K, Q4_K, Q5_K, Q6_K}

// kqGuardFill appends n bytes of garbage to b (the guard band a kernel must not
// read into its result) and returns the row with its capacity cut to len(b),
// so an out-of-bounds Go read would panic, plus the whole buffer.
func kqGuardFill(r *rand.Rand, b []byte, n int) (row, all []byte) {
	all = append(append([]byte(nil), b...), make([]byte, n)...)
	for i := len(b); i < len(all); i++ {
		all[i] = byte(r.Uint32())
	}
	return all[:len(b):len(b)], all
}

// kqShifted returns a copy of b starting shift bytes into a fresh buffer, so
// the kernel sees a start address of any alignment.
func kqShifted(b []byte, shift int) []byte {
	return append(make([]byte, shift), b...)[shift:]
}

// kqAllowed is the error allowed between two implementations of VecDot(t)
// on (w, xq): tolVecDotImpl of the term sum (see doc.go).
func kqAllowed(t DType, w, xq []byte, xd []float32) float64 {
	_, allowed := dotBound(t, w, xq, xd)
	return allowed * tolVecDotImpl / tolVecDotDequant
}

// TestKQuantDotMatchesGeneric runs every implementation's K-quant VecDot
// against the generic one on 1..8 super-blocks, misaligned starts and rows
// followed by garbage.
func TestKQuantDotMatchesGeneric(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(31)
		for _, typ := range kqTypes {
			for nb := 1; nb <= 8; nb++ {
				n := nb * QK_K
				for rep := 0; rep < 4; rep++ {
					w := randomWeights(r, typ, n)
					xq, xd := quantizeActs(typ, randomActs(r, n))
					want := ref.vecDot[typ](n, w, xq)
					allowed := kqAllowed(typ, w, xq, xd)
					for _, shift := range []int{0, 1, 3, 17} {
						ws, _ := kqGuardFill(r, kqShifted(w, shift), 64)
						xs, _ := kqGuardFill(r, kqShifted(xq, shift), 64)
						got := kt.vecDot[typ](n, ws, xs)
						if d := math.Abs(float64(got - want)); !(d <= allowed) {
							t.Errorf("%v nb=%d rep=%d shift=%d: %s=%g generic=%g |diff|=%g > %g",
								typ, nb, rep, shift, name, got, want, d, allowed)
						}
					}
				}
			}
			if got := kt.vecDot[typ](0, nil, nil); got != 0 {
				t.Errorf("%v n=0: %s=%g, want 0", typ, name, got)
			}
		}
	})
}

// kqExactActs returns n activations that quantize to q8_K with d = 1 exactly:
// -127 first in each super-block (iscale = 1), small integers elsewhere, so
// that every partial sum of a unit-scale dot stays an exact float32 integer.
func kqExactActs(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.IntN(17) - 8)
		if i%QK_K == 0 {
			x[i] = -127
		}
	}
	return x
}

// TestKQuantDotExactIntegers uses unit weight and activation scales: every
// implementation must then return exactly the generic result, because every
// float operation acts on integers below 2^24. This checks the integer block
// sums (quants, scales, mins, offsets) independently of float rounding.
func TestKQuantDotExactIntegers(t *testing.T) {
	one := F32ToF16(1)
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(32)
		for _, typ := range kqTypes {
			for nb := 1; nb <= 4; nb++ {
				n := nb * QK_K
				w := randomWeights(r, typ, n)
				sanitizeScales(typ, w, func() uint16 { return one })
				xq, _ := quantizeActs(typ, kqExactActs(r, n))
				want := ref.vecDot[typ](n, w, xq)
				if want != float32(math.Trunc(float64(want))) {
					t.Fatalf("%v: generic result %v is not an integer", typ, want)
				}
				if got := kt.vecDot[typ](n, w, xq); got != want {
					t.Errorf("%v nb=%d: %s=%v, exact generic=%v", typ, nb, name, got, want)
				}
			}
		}
	})
}

// TestKQuantDotNMatchesVecDot checks VecDotN of every implementation against
// the same implementation's VecDot, column by column and bit for bit (the
// multi-column kernels keep the single-column accumulation order), and
// against generic within tolerance, for 1..4 columns at tight and misaligned
// strides, with sentinels after the outputs.
func TestKQuantDotNMatchesVecDot(t *testing.T) {
	const sentinel = float32(-12345.5)
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(33)
		for _, typ := range kqTypes {
			for _, nb := range []int{1, 2, 3, 8} {
				n := nb * QK_K
				xn := Q8_K.RowBytes(n)
				w := randomWeights(r, typ, n)
				for _, pad := range []int{0, 5} {
					stride := xn + pad
					x := make([]byte, MaxDotCols*stride)
					xd := make([][]float32, MaxDotCols)
					for c := range MaxDotCols {
						var q []byte
						q, xd[c] = quantizeActs(typ, randomActs(r, n))
						copy(x[c*stride:], q)
					}
					for nc := 1; nc <= MaxDotCols; nc++ {
						buf := make([]float32, nc+2)
						buf[nc], buf[nc+1] = sentinel, sentinel
						xs := x[:(nc-1)*stride+xn]
						kqDotN(kt, typ, n, w, xs, stride, buf[:nc])
						if buf[nc] != sentinel || buf[nc+1] != sentinel {
							t.Errorf("%v nc=%d: %s wrote past out", typ, nc, name)
						}
						for c := range nc {
							col := x[c*stride : c*stride+xn]
							if one := kt.vecDot[typ](n, w, col); buf[c] != one {
								t.Errorf("%v nb=%d nc=%d pad=%d col %d: %s VecDotN=%g VecDot=%g",
									typ, nb, nc, pad, c, name, buf[c], one)
							}
							want := ref.vecDot[typ](n, w, col)
							if d := math.Abs(float64(buf[c] - want)); !(d <= kqAllowed(typ, w, col, xd[c])) {
								t.Errorf("%v nb=%d nc=%d col %d: %s VecDotN=%g generic=%g", typ, nb, nc, c, name, buf[c], want)
							}
						}
					}
				}
			}
		}
	})
}

// kqDotN calls kt's VecDotN kernel for typ, or the per-column loop when the
// implementation has none (what the exported VecDotN does).
func kqDotN(kt *kernelTable, typ DType, n int, w, x []byte, stride int, out []float32) {
	if f := kt.vecDotN[typ]; f != nil {
		f(n, w, x, stride, out)
		return
	}
	vecDotNLoop(kt.vecDot[typ], n, w, x, stride, Q8_K.RowBytes(n), out)
}

// q8KEdgeBlocks returns super-blocks of activations that exercise the q8_K
// quantizer's corners: ties between +max and -max (the first one sets the
// sign of the scale), halves that round to even, an all-zero block, negative
// zeros, subnormal maxima (iscale overflows to infinity), large values, and
// a maximum in the last position.
func q8KEdgeBlocks(r *rand.Rand) [][]float32 {
	blk := func(f func(i int) float32) []float32 {
		x := make([]float32, QK_K)
		for i := range x {
			x[i] = f(i)
		}
		return x
	}
	return [][]float32{
		blk(func(i int) float32 { return float32(r.NormFloat64()) }),
		blk(func(i int) float32 {
			switch i { // ties inside one 8-lane group and across groups
			case 3, 200:
				return -4
			case 5, 9:
				return 4
			}
			return float32(r.NormFloat64())
		}),
		// max 127 -> iscale -1: x.5 values must round half to even.
		blk(func(i int) float32 {
			if i == 0 {
				return 127
			}
			return float32(i%64-32) + 0.5
		}),
		blk(func(int) float32 { return 0 }),
		blk(func(i int) float32 { return float32(math.Copysign(0, -1)) }),
		blk(func(i int) float32 {
			if i%3 == 0 {
				return math.Float32frombits(uint32(1 + r.IntN(1000)))
			}
			return 0
		}),
		blk(func(i int) float32 { return math.Float32frombits(uint32(r.IntN(1 << 23))) }),
		blk(func(i int) float32 { return float32(r.NormFloat64() * 1e30) }),
		blk(func(i int) float32 {
			if i == QK_K-1 {
				return -1000
			}
			return float32(r.NormFloat64())
		}),
		blk(func(i int) float32 { return 1 }),
	}
}

// TestQuantizeQ8_KBitExact checks every implementation's q8_K quantizer
// byte for byte against the generic one on 1..8 random super-blocks, the
// edge blocks of q8KEdgeBlocks, misaligned destinations and a guard band
// after the output.
func TestQuantizeQ8_KBitExact(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(34)
		var inputs [][]float32
		for nb := 1; nb <= 8; nb++ {
			inputs = append(inputs, randomActs(r, nb*QK_K))
		}
		var edges []float32
		for _, b := range q8KEdgeBlocks(r) {
			inputs = append(inputs, b)
			edges = append(edges, b...)
		}
		inputs = append(inputs, edges)
		for i, x := range inputs {
			n := len(x)
			want := make([]byte, Q8_K.RowBytes(n))
			ref.quantize[Q8_K](want, x)
			for _, shift := range []int{0, 1, 6} {
				buf := make([]byte, shift+len(want)+32)
				for j := range buf {
					buf[j] = 0xa5
				}
				kt.quantize[Q8_K](buf[shift:shift+len(want)], x)
				if got := buf[shift : shift+len(want)]; string(got) != string(want) {
					t.Errorf("input %d (n=%d) shift %d: %s differs from generic at byte %d", i, n, shift, name, kqFirstDiff(got, want))
				}
				for j := shift + len(want); j < len(buf); j++ {
					if buf[j] != 0xa5 {
						t.Fatalf("input %d: %s wrote past dst at %d", i, name, j-shift)
					}
				}
			}
		}
	})
}

func kqFirstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// FuzzKQuantDot checks, for a fuzzed K-quant type, super-block count, raw
// weight bytes (scales made finite), activation seed and column count, that
// every implementation's VecDot and VecDotN agree with generic within
// tolerance, and that VecDotN equals the implementation's VecDot.
func FuzzKQuantDot(f *testing.F) {
	f.Add(uint8(2), uint8(0), []byte{0x3c, 0x11, 0xff, 0x80}, uint64(1), uint8(3))
	f.Add(uint8(4), uint8(7), []byte{0xff, 0x7b, 0x00, 0x04}, uint64(9), uint8(4))
	f.Add(uint8(0), uint8(2), []byte{0x00}, uint64(5), uint8(1))
	f.Fuzz(func(t *testing.T, ti, nb uint8, raw []byte, seed uint64, ncols uint8) {
		typ := kqTypes[int(ti)%len(kqTypes)]
		n := (1 + int(nb)%8) * QK_K
		nc := 1 + int(ncols)%MaxDotCols
		w := make([]byte, typ.RowBytes(n))
		for i := range w {
			if len(raw) > 0 {
				w[i] = raw[i%len(raw)] ^ byte(i*7)
			}
		}
		finiteWeights(typ, w)
		r := newRand(seed)
		xn := Q8_K.RowBytes(n)
		x := make([]byte, nc*xn)
		xd := make([][]float32, nc)
		for c := range nc {
			var q []byte
			q, xd[c] = quantizeActs(typ, randomActs(r, n))
			copy(x[c*xn:], q)
		}
		ref, _ := resolve("generic")
		for c := range nc {
			want := float64(ref.vecDot[typ](n, w, x[c*xn:(c+1)*xn]))
			if math.IsInf(want, 0) || math.IsNaN(want) || math.Abs(want) > 1e30 {
				t.Skip("dot outside float32 range")
			}
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			out := make([]float32, nc)
			kqDotN(kt, typ, n, w, x, xn, out)
			for c := range nc {
				col := x[c*xn : (c+1)*xn]
				one := kt.vecDot[typ](n, w, col)
				want := ref.vecDot[typ](n, w, col)
				if d := math.Abs(float64(one - want)); !(d <= kqAllowed(typ, w, col, xd[c])) {
					t.Fatalf("%v n=%d col %d: %s=%g generic=%g", typ, n, c, name, one, want)
				}
				if out[c] != one {
					t.Fatalf("%v n=%d nc=%d col %d: %s VecDotN=%g VecDot=%g", typ, n, nc, c, name, out[c], one)
				}
			}
		})
	})
}

// FuzzQuantizeQ8_K checks every q8_K quantizer byte for byte against the
// generic one on fuzzed finite float32 bit patterns (one or two blocks).
func FuzzQuantizeQ8_K(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf}, false)
	f.Add([]byte{1, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, raw []byte, two bool) {
		n := QK_K
		if two {
			n *= 2
		}
		x := make([]float32, n)
		for i := range x {
			var u uint32
			for k := range 4 {
				if len(raw) > 0 {
					u |= uint32(raw[(4*i+k)%len(raw)]^byte(i>>3)) << (8 * k)
				}
			}
			v := math.Float32frombits(u)
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				v = 0
			}
			x[i] = v
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			want := make([]byte, Q8_K.RowBytes(n))
			got := make([]byte, len(want))
			ref.quantize[Q8_K](want, x)
			kt.quantize[Q8_K](got, x)
			if string(got) != string(want) {
				t.Fatalf("%s differs from generic at byte %d", name, kqFirstDiff(got, want))
			}
		})
	})
}

// BenchmarkKQuantVecDotN measures one weight row against 1..4 activation columns
// per implementation; b.SetBytes is the weight row, so MB/s compares the
// weight bandwidth of one call. The "<impl>-loop" rows are the baseline:
// the same implementation's VecDot once per column.
func BenchmarkKQuantVecDotN(b *testing.B) {
	const n = 4096
	for _, typ := range kqTypes {
		r := newRand(35)
		w := randomWeights(r, typ, n)
		xn := Q8_K.RowBytes(n)
		x := make([]byte, MaxDotCols*xn)
		for c := range MaxDotCols {
			q, _ := quantizeActs(typ, randomActs(r, n))
			copy(x[c*xn:], q)
		}
		out := make([]float32, MaxDotCols)
		for _, name := range Impls() {
			kt, _ := resolve(name)
			for _, nc := range []int{1, 2, 4} {
				b.Run(fmt.Sprintf("%v/%s/%dx%d", typ, name, nc, n), func(b *testing.B) {
					b.SetBytes(int64(len(w)))
					for b.Loop() {
						kqDotN(&kt, typ, n, w, x, xn, out[:nc])
					}
				})
				if name == "generic" || kt.vecDotN[typ] == nil {
					continue
				}
				b.Run(fmt.Sprintf("%v/%s-loop/%dx%d", typ, name, nc, n), func(b *testing.B) {
					b.SetBytes(int64(len(w)))
					for b.Loop() {
						vecDotNLoop(kt.vecDot[typ], n, w, x, xn, xn, out[:nc])
					}
				})
			}
		}
	}
}

// TestKQuantDotNNoAlloc guards the decode/prefill hot path: VecDotN through
// every implementation's table allocates nothing.
func TestKQuantDotNNoAlloc(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		const n = 2 * QK_K
		r := newRand(36)
		for _, typ := range kqTypes {
			w := randomWeights(r, typ, n)
			xq, _ := quantizeActs(typ, randomActs(r, n))
			x := append(append(append(append([]byte(nil), xq...), xq...), xq...), xq...)
			out := make([]float32, MaxDotCols)
			for nc := 1; nc <= MaxDotCols; nc++ {
				if a := testing.AllocsPerRun(20, func() { kqDotN(kt, typ, n, w, x, len(xq), out[:nc]) }); a != 0 {
					t.Errorf("%v nc=%d: %s VecDotN allocates %v times", typ, nc, name, a)
				}
			}
		}
	})
}
