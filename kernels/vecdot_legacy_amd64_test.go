package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of the amd64 legacy-quant assembly (vecdot_legacy_amd64.s,
// quantize_q8_amd64.s) against the generic kernels. They run every
// implementation forEachImpl gives, generic included, so on a machine
// without AVX2 (or under -tags purego) they still check the harness.

// legacyTypes are the weight types vecdot_legacy_amd64.s implements.
var legacyTypes = []DType{Q4_0, Q4_1, Q5_0, Q5_1, Q8_0}

// legacyBlockCounts sweeps around the two-block unroll of the
// single-column routines and past a few hundred values.
var legacyBlockCounts = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 128, 129}

// vecDotNOf returns kt's multi-column kernel for t, or the VecDot loop the
// exported VecDotN falls back to when kt has none.
func vecDotNOf(kt *kernelTable, t DType) vecDotNFunc {
	if f := kt.vecDotN[t]; f != nil {
		return f
	}
	f := kt.vecDot[t]
	xn := func(n int) int { return t.VecDotType().RowBytes(n) }
	return func(n int, w, x []byte, xStride int, out []float32) {
		vecDotNLoop(f, n, w, x, xStride, xn(n), out)
	}
}

// shifted returns a copy of b that starts off bytes into a fresh buffer
// and is followed by guard sentinel bytes, so misaligned loads and reads
// past the end (which the guard cannot catch, but the race detector and
// page-end placement can) are exercised; the guard is returned separately.
func shifted(b []byte, off int) (s, guard []byte) {
	buf := make([]byte, off+len(b)+32)
	for i := range buf {
		buf[i] = 0xa5
	}
	s = buf[off : off+len(b) : off+len(b)]
	copy(s, b)
	return s, buf[off+len(b):]
}

// checkGuard fails when a guard band lost its 0xa5 sentinel.
func checkGuard(t *testing.T, what string, guard []byte) {
	t.Helper()
	for i, v := range guard {
		if v != 0xa5 {
			t.Fatalf("%s: guard byte %d overwritten (%#x)", what, i, v)
		}
	}
}

// implBound is the allowed |impl - generic| for one dot: tolVecDotImpl of
// the term sum, by the same scaling FuzzVecDot uses.
func implBound(t DType, w, xq []byte, n int) float64 {
	xd := make([]float32, n)
	DequantizeRow(t.VecDotType(), xd, xq)
	_, allowed := dotBound(t, w, xq, xd)
	return allowed * tolVecDotImpl / tolVecDotDequant
}

func TestLegacyVecDotSweep(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(101)
		for _, typ := range legacyTypes {
			for _, nb := range legacyBlockCounts {
				n := nb * 32
				w := randomWeights(r, typ, n)
				xq, _ := quantizeActs(typ, randomActs(r, n))
				want := ref.vecDot[typ](n, w, xq)
				allowed := implBound(typ, w, xq, n)
				for off := range 4 {
					ws, wg := shifted(w, off)
					xs, xg := shifted(xq, 3-off)
					got := kt.vecDot[typ](n, ws, xs)
					if d := math.Abs(float64(got - want)); !(d <= allowed) {
						t.Fatalf("%v n=%d off=%d: %s=%g generic=%g (|diff| %g > %g)", typ, n, off, name, got, want, d, allowed)
					}
					checkGuard(t, "w", wg)
					checkGuard(t, "x", xg)
				}
			}
		}
	})
}

// unitScaleRow returns random quants with every fp16 scale (and q4_1/q5_1
// minimum, q8_1 sum) set to 1.0, so that a dot is a sum of integers that
// float32 represents exactly: any implementation must then equal generic
// bit for bit, which checks the integer block sums themselves.
func unitScaleRow(r *rand.Rand, t DType, n int) []byte {
	b := make([]byte, t.RowBytes(n))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	sanitizeScales(t, b, func() uint16 { return 0x3c00 })
	return b
}

// unitScaleActs is unitScaleRow for activations: quants in [-127, 127],
// as QuantizeRow makes them (the sign trick's precondition), with extremes
// planted at both ends.
func unitScaleActs(r *rand.Rand, t DType, n int) []byte {
	vt := t.VecDotType()
	b := unitScaleRow(r, vt, n)
	bb, q0 := vt.BlockBytes(), vt.BlockBytes()-32
	for off := 0; off < len(b); off += bb {
		for j := range 32 {
			if q := &b[off+q0+j]; *q == 0x80 {
				*q = 0x81
			}
		}
		b[off+q0] = 0x81   // -127
		b[off+q0+31] = 127 // 127
		b[off+q0+5] = byte(r.IntN(2) * 0x7f)
	}
	return b
}

func TestLegacyIntegerSumsExact(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(102)
		for _, typ := range legacyTypes {
			for _, nb := range []int{1, 2, 3, 7, 16} {
				n := nb * 32
				w := unitScaleRow(r, typ, n)
				if typ == Q8_0 {
					w[2] = 0x80 // a -128 weight, which |q| must carry as 128
				}
				xq := unitScaleActs(r, typ, n)
				want := ref.vecDot[typ](n, w, xq)
				if got := kt.vecDot[typ](n, w, xq); got != want {
					t.Fatalf("%v n=%d unit scales: %s=%v generic=%v", typ, n, name, got, want)
				}
				out := make([]float32, MaxDotCols)
				x4 := append(append(append(append([]byte{}, xq...), xq...), xq...), xq...)
				vecDotNOf(kt, typ)(n, w, x4, len(xq), out)
				for c, v := range out {
					if v != want {
						t.Fatalf("%v n=%d unit scales: %s VecDotN out[%d]=%v generic=%v", typ, n, name, c, v, want)
					}
				}
			}
		}
	})
}

func TestLegacyVecDotNSweep(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(103)
		for _, typ := range legacyTypes {
			f := vecDotNOf(kt, typ)
			for _, nb := range []int{0, 1, 2, 3, 5, 17} {
				n := nb * 32
				xn := typ.VecDotType().RowBytes(n)
				for nc := 1; nc <= MaxDotCols; nc++ {
					for _, pad := range []int{0, 1, 37} {
						checkVecDotN(t, r, name, f, ref, typ, n, nc, xn+pad)
					}
				}
			}
		}
	})
}

// checkVecDotN runs one multi-column dot with the columns stride bytes
// apart in a buffer that starts at an odd address, compares every column
// with the generic VecDot and checks that out[nc:] is untouched.
func checkVecDotN(t *testing.T, r *rand.Rand, name string, f vecDotNFunc, ref *kernelTable, typ DType, n, nc, stride int) {
	t.Helper()
	w := randomWeights(r, typ, n)
	xn := typ.VecDotType().RowBytes(n)
	x := make([]byte, (nc-1)*stride+xn)
	cols := make([][]byte, nc)
	for c := range nc {
		cols[c], _ = quantizeActs(typ, randomActs(r, n))
		copy(x[c*stride:], cols[c])
	}
	xs, xg := shifted(x, 1+nc)
	ws, wg := shifted(w, nc)
	sentinel := float32(math.Float32frombits(0x7fc0_dead))
	buf := make([]float32, MaxDotCols+4)
	for i := range buf {
		buf[i] = sentinel
	}
	f(n, ws, xs, stride, buf[:nc])
	for c := range nc {
		want := ref.vecDot[typ](n, w, cols[c])
		allowed := implBound(typ, w, cols[c], n)
		if d := math.Abs(float64(buf[c] - want)); !(d <= allowed) {
			t.Fatalf("%v n=%d nc=%d stride=%d col %d: %s=%g generic=%g (|diff| %g > %g)", typ, n, nc, stride, c, name, buf[c], want, d, allowed)
		}
	}
	for i := nc; i < len(buf); i++ {
		if math.Float32bits(buf[i]) != math.Float32bits(sentinel) {
			t.Fatalf("%v nc=%d: out[%d] written (%g)", typ, nc, i, buf[i])
		}
	}
	checkGuard(t, "w", wg)
	checkGuard(t, "x", xg)
}

// q8EdgeBlocks returns blocks that stress the quantizer: a zero block,
// exact halves after scaling (amax 127 makes the multiplier 1), a tiny
// amax whose d is an fp16 subnormal, huge values, negative zeros, and a
// lone outlier.
func q8EdgeBlocks() []float32 {
	var x []float32
	blk := func(f func(j int) float32) {
		for j := range 32 {
			x = append(x, f(j))
		}
	}
	blk(func(int) float32 { return 0 })
	blk(func(j int) float32 { return float32(j%16) + 0.5 - 8*float32(j%2) })
	blk(func(j int) float32 {
		if j == 0 {
			return 127
		}
		return float32(j) - 15.5
	})
	blk(func(j int) float32 { return float32(j-16) * 3.1e-6 })
	blk(func(j int) float32 { return float32(j-16) * 1e30 })
	blk(func(j int) float32 { return float32(math.Copysign(0, -1)) })
	blk(func(j int) float32 {
		if j == 31 {
			return -1000
		}
		return float32(j) * 0.01
	})
	blk(func(j int) float32 { return float32(j-16) * 1e-30 })
	return x
}

func TestLegacyQuantizeQ8(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(104)
		for _, typ := range []DType{Q8_0, Q8_1} {
			inputs := [][]float32{q8EdgeBlocks()}
			for _, nb := range legacyBlockCounts {
				inputs = append(inputs, randomActs(r, nb*32))
			}
			for _, src := range inputs {
				for off := range 3 {
					checkQuantizeQ8(t, name, kt, ref, typ, src, off)
				}
			}
		}
	})
}

// checkQuantizeQ8 quantizes src (copied to start off floats into its
// buffer) into a dst that starts at an odd byte offset and compares the
// bytes with generic's, then checks the guard band after dst.
func checkQuantizeQ8(t *testing.T, name string, kt, ref *kernelTable, typ DType, src []float32, off int) {
	t.Helper()
	sb := make([]float32, len(src)+off)
	s := sb[off:]
	copy(s, src)
	want := make([]byte, typ.RowBytes(len(src)))
	ref.quantize[typ](want, src)
	dst, guard := shifted(make([]byte, len(want)), 1+2*off)
	kt.quantize[typ](dst, s)
	for i := range want {
		if dst[i] != want[i] {
			b := i / typ.BlockBytes()
			t.Fatalf("%v n=%d off=%d: %s byte %d (block %d, +%d) = %#x, generic %#x", typ, len(src), off, name, i, b, i%typ.BlockBytes(), dst[i], want[i])
		}
	}
	checkGuard(t, fmt.Sprintf("%v dst", typ), guard)
}

// FuzzLegacyAMD64 differentially fuzzes the legacy dots (single- and
// multi-column) and the q8 quantizers of every implementation against
// generic. raw supplies the weight bytes (scales made finite), the
// activation floats and their bit patterns.
func FuzzLegacyAMD64(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(3), []byte{0x3c, 0x11, 0xff, 0x80})
	f.Add(uint8(4), uint8(5), uint8(0), []byte{0x80, 0x80, 0x7f, 0x00, 0x04})
	f.Add(uint8(2), uint8(0), uint8(2), []byte{0xff, 0x7b, 0x00, 0x04, 0x38})
	f.Fuzz(func(t *testing.T, ti, nb, nc uint8, raw []byte) {
		typ := legacyTypes[int(ti)%len(legacyTypes)]
		n := (1 + int(nb)%9) * 32
		cols := 1 + int(nc)%MaxDotCols
		w := make([]byte, typ.RowBytes(n))
		for i := range w {
			if len(raw) > 0 {
				w[i] = raw[i%len(raw)] ^ byte(i*13)
			}
		}
		finiteWeights(typ, w)
		src := fuzzFloats(raw, n*cols)
		xn := typ.VecDotType().RowBytes(n)
		x := make([]byte, cols*xn)
		for c := range cols {
			QuantizeRow(typ.VecDotType(), x[c*xn:], src[c*n:(c+1)*n])
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			for c := range cols {
				xc := x[c*xn : (c+1)*xn]
				want := ref.vecDot[typ](n, w, xc)
				if math.IsInf(float64(want), 0) || math.IsNaN(float64(want)) {
					t.Skip("dot outside float32 range")
				}
				allowed := implBound(typ, w, xc, n)
				if got := kt.vecDot[typ](n, w, xc); !(math.Abs(float64(got-want)) <= allowed) {
					t.Fatalf("%v n=%d col %d: %s=%g generic=%g allowed %g", typ, n, c, name, got, want, allowed)
				}
			}
			out := make([]float32, cols)
			vecDotNOf(kt, typ)(n, w, x, xn, out)
			for c := range cols {
				want := ref.vecDot[typ](n, w, x[c*xn:(c+1)*xn])
				if !(math.Abs(float64(out[c]-want)) <= implBound(typ, w, x[c*xn:(c+1)*xn], n)) {
					t.Fatalf("%v n=%d VecDotN col %d/%d: %s=%g generic=%g", typ, n, c, cols, name, out[c], want)
				}
			}
			for _, qt := range []DType{Q8_0, Q8_1} {
				checkQuantizeQ8(t, name, kt, ref, qt, src, int(nb)%3)
			}
		})
	})
}

// fuzzFloats makes n finite floats from raw: mostly the bit patterns of
// raw (with Inf/NaN exponents cleared), scaled by small integers, so ties,
// signed zeros, subnormals and wide ranges all occur. Blocks whose amax
// is so small that 127/amax overflows are unspecified and are scaled up.
func fuzzFloats(raw []byte, n int) []float32 {
	x := make([]float32, n)
	if len(raw) == 0 {
		return x
	}
	for i := range x {
		var b [4]byte
		for k := range b {
			b[k] = raw[(4*i+k)%len(raw)] ^ byte(i>>(k*2))
		}
		v := binary.LittleEndian.Uint32(b[:])
		if v&0x7f800000 == 0x7f800000 {
			v &^= 0x40000000
		}
		x[i] = math.Float32frombits(v)
		if raw[i%len(raw)]&3 == 0 {
			x[i] = float32(int8(raw[i%len(raw)])) / 2
		}
	}
	for b := 0; b+32 <= n; b += 32 {
		if amax := absMax(x[b : b+32]); amax != 0 && amax < 1e-36 {
			x[b] = 1
		}
	}
	return x
}

// BenchmarkVecDotN compares one multi-column call over cols activation
// columns with cols single-column VecDots of the same implementation
// ("loop"). SetBytes counts the weight row once per column, so GB/s is
// comparable with BenchmarkVecDot's.
func BenchmarkVecDotN(b *testing.B) {
	const n = 4096
	for _, typ := range legacyTypes {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			r := newRand(23)
			w := randomWeights(r, typ, n)
			xn := typ.VecDotType().RowBytes(n)
			x := make([]byte, MaxDotCols*xn)
			for c := range MaxDotCols {
				QuantizeRow(typ.VecDotType(), x[c*xn:], randomActs(r, n))
			}
			out := make([]float32, MaxDotCols)
			fN, f1 := kt.vecDotN[typ], kt.vecDot[typ]
			for _, cols := range []int{1, 2, 4} {
				if fN != nil {
					b.Run(fmt.Sprintf("%v/%s/%d/cols=%d", typ, name, n, cols), func(b *testing.B) {
						b.SetBytes(int64(cols * len(w)))
						for b.Loop() {
							fN(n, w, x, xn, out[:cols])
						}
					})
				}
				b.Run(fmt.Sprintf("%v/%s-loop/%d/cols=%d", typ, name, n, cols), func(b *testing.B) {
					b.SetBytes(int64(cols * len(w)))
					for b.Loop() {
						vecDotNLoop(f1, n, w, x, xn, xn, out[:cols])
					}
				})
			}
		}
	}
}
