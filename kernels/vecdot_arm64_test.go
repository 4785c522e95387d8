//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// bitExactTypes are the weight types whose arm64 kernels apply the float
// scales in the generic kernel's order, so they must match it bit for bit
// (the legacy types, and Q2_K whose generic kernel also keeps one integer
// total per super-block). The others (8 integer lanes in the generic
// Q3_K..Q6_K code versus one total here, float64 lanes in another order for
// F32/F16) are held to tolVecDotImpl. Every type must give the same bits on neon and neondot:
// their integer sums are exact and their float steps identical.
var bitExactTypes = map[DType]bool{Q8_0: true, Q4_0: true, Q4_1: true, Q5_0: true, Q5_1: true, Q2_K: true}

// armImpls returns the arm64 implementations this CPU runs
// (TestNEONImplsRegistered logs which).
func armImpls(t *testing.T) []string {
	var names []string
	for _, name := range []string{"neon", "neondot"} {
		if _, err := resolve(name); err == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no arm64 implementation runs here")
	}
	return names
}

func funcPC(f any) uintptr { return reflect.ValueOf(f).Pointer() }

func TestNEONImplsRegistered(t *testing.T) {
	if !slices.Equal(archLevels, []Level{Generic, NEON, NEONDot}) || NEON.Parent() != Generic || NEONDot.Parent() != NEON {
		t.Fatalf("arm64 levels %v: want generic <- neon <- neondot", archLevels)
	}
	if !NEON.Available() {
		t.Fatal("neon unavailable on an arm64 CPU")
	}
	t.Logf("ASIMD=%v ASIMDDP=%v; Impls()=%v, Impl()=%s", cpuFeatures.ASIMD, cpuFeatures.ASIMDDP, Impls(), Impl())
	if NEONDot.Available() != cpuFeatures.ASIMDDP {
		t.Fatalf("neondot available=%v, ASIMDDP=%v", NEONDot.Available(), cpuFeatures.ASIMDDP)
	}
	if cpuFeatures.ASIMDDP {
		if bestLevel() != NEONDot {
			t.Fatalf("dot-product CPU picks %v, want neondot", bestLevel())
		}
		return
	}
	// No dot product (qemu -cpu cortex-a53): neondot is known but refused,
	// and the default is plain NEON.
	if slices.Contains(Impls(), "neondot") {
		t.Fatalf("Impls()=%v lists neondot without ASIMDDP", Impls())
	}
	if bestLevel() != NEON {
		t.Fatalf("best level %v, want neon", bestLevel())
	}
	if _, err := SelectImpl("neondot"); err == nil {
		t.Fatal("SelectImpl(neondot) succeeded without ASIMDDP")
	}
}

// TestNEONEnvOverride checks that WAGGLE_KERNELS=neon runs the plain NEON
// kernels even on a dot-product CPU, and that neondot is honoured only
// where it runs (an error elsewhere).
func TestNEONEnvOverride(t *testing.T) {
	l, err := levelFromEnv("neon")
	if kt := resolveLevel(l); err != nil || l != NEON || funcPC(kt.vecDot[Q8_0]) != funcPC(vecDotQ8_0NEON) {
		t.Fatalf("WAGGLE_KERNELS=neon selects %v, %v (Q8_0 dot %#x, want %#x)", l, err, funcPC(kt.vecDot[Q8_0]), funcPC(vecDotQ8_0NEON))
	}
	l, err = levelFromEnv("NeonDot")
	switch kt := resolveLevel(l); {
	case cpuFeatures.ASIMDDP && (err != nil || l != NEONDot || funcPC(kt.vecDot[Q8_0]) != funcPC(vecDotQ8_0NEONDot)):
		t.Fatalf("WAGGLE_KERNELS=neondot selects %v, %v on a dot-product CPU", l, err)
	case !cpuFeatures.ASIMDDP && err == nil:
		t.Fatalf("WAGGLE_KERNELS=neondot without ASIMDDP selects %v", l)
	}
}

// armSizes returns block counts around the kernels' loop thresholds, and
// odd lengths for the float types.
func armSizes(typ DType) []int {
	bs := typ.BlockSize()
	var ns []int
	for _, nb := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17} {
		ns = append(ns, nb*bs)
	}
	if bs == 1 {
		ns = append(ns, 1, 3, 4, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 255, 257)
	}
	return ns
}

// guardedCopy copies b into guarded memory ending tail bytes before a
// fault page.
func guardedCopy(t *testing.T, b []byte, tail int) []byte {
	g := guardedBytes(t, len(b), tail)
	copy(g, b)
	return g
}

// checkDot compares one implementation's result with the generic one.
func checkDot(t *testing.T, typ DType, n int, w, xq []byte, xd []float32, got, want float32, what string) {
	t.Helper()
	if bitExactTypes[typ] {
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("%v n=%d %s: %g, generic %g (must be bit-identical)", typ, n, what, got, want)
		}
		return
	}
	_, allowed := dotBound(typ, w, xq, xd)
	allowed *= tolVecDotImpl / tolVecDotDequant
	if d := math.Abs(float64(got) - float64(want)); !(d <= allowed) {
		t.Errorf("%v n=%d %s: %g, generic %g, |diff| %g > %g", typ, n, what, got, want, d, allowed)
	}
}

// TestNEONVecDotMatchesGeneric sweeps every weight type and length on every
// arm64 implementation, with the inputs ending at a fault page (tail 0) or
// a few bytes before it (misaligned starts), and checks that neon and
// neondot agree bit for bit.
func TestNEONVecDotMatchesGeneric(t *testing.T) {
	ref, _ := resolve("generic")
	impls := armImpls(t)
	r := newRand(101)
	for _, typ := range weightTypes {
		for _, n := range armSizes(typ) {
			w := randomWeights(r, typ, n)
			xq, xd := quantizeActs(typ, randomActs(r, n))
			want := ref.vecDot[typ](n, w, xq)
			for _, tail := range []int{0, 1, 3, 6} {
				gw, gx := guardedCopy(t, w, tail), guardedCopy(t, xq, (tail*5)%8)
				var first float32
				for i, name := range impls {
					kt, _ := resolve(name)
					got := kt.vecDot[typ](n, gw, gx)
					checkDot(t, typ, n, w, xq, xd, got, want, fmt.Sprintf("%s tail=%d", name, tail))
					if i == 0 {
						first = got
					} else if math.Float32bits(got) != math.Float32bits(first) {
						t.Errorf("%v n=%d: %s=%g but %s=%g", typ, n, name, got, impls[0], first)
					}
				}
			}
		}
	}
}

// TestNEONVecDotBitExactLong runs the bit-exact types over long rows: a
// reordered float step changes a block's rounding only about once in a
// hundred blocks, which short sweeps miss.
func TestNEONVecDotBitExactLong(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(106)
	const n = 32 * 2048
	for typ := range bitExactTypes {
		w := randomWeights(r, typ, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		want := ref.vecDot[typ](n, w, xq)
		for _, name := range armImpls(t) {
			kt, _ := resolve(name)
			if got := kt.vecDot[typ](n, w, xq); math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("%v n=%d %s: %g, generic %g (must be bit-identical)", typ, n, name, got, want)
			}
		}
	}
}

// TestNEONVecDotIntegerExact uses unit scales and small activations, so
// every dot is an integer far below 2^24: any difference from the generic
// kernel is then an error in the integer block sums, not rounding.
func TestNEONVecDotIntegerExact(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(102)
	one := F32ToF16(1)
	for _, typ := range weightTypes {
		if typ.BlockSize() == 1 {
			continue
		}
		for _, nb := range []int{1, 3, 8} {
			n := nb * typ.BlockSize()
			w := randomWeights(r, typ, n)
			sanitizeScales(typ, w, func() uint16 { return one })
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.IntN(7) - 3)
			}
			for b := 0; b < n; b += 32 {
				x[b] = 127
			}
			for b := 0; b < n; b += QK_K {
				x[b] = -127
			}
			xq, _ := quantizeActs(typ, x)
			want := ref.vecDot[typ](n, w, xq)
			for _, name := range armImpls(t) {
				kt, _ := resolve(name)
				if got := kt.vecDot[typ](n, w, xq); got != want {
					t.Errorf("%v n=%d %s: %v, generic %v (exact integers)", typ, n, name, got, want)
				}
			}
		}
	}
}

// TestNEONVecDotN checks every registered multi-column kernel against the
// same implementation's one-column kernel (bit for bit) for 1..4 columns
// and several strides, with the last column ending at a fault page and a
// sentinel after the outputs.
func TestNEONVecDotN(t *testing.T) {
	r := newRand(103)
	for _, name := range armImpls(t) {
		kt, _ := resolve(name)
		for _, typ := range weightTypes {
			f := kt.vecDotN[typ]
			if f == nil {
				continue
			}
			for _, nb := range []int{0, 1, 2, 5, 9} {
				n := nb * typ.BlockSize()
				xn := typ.VecDotType().RowBytes(n)
				w := guardedCopy(t, randomWeights(r, typ, n), nb%3)
				for nc := 1; nc <= MaxDotCols; nc++ {
					for _, stride := range []int{xn, xn + 1, xn + 13} {
						x := make([]byte, (nc-1)*stride+xn)
						for c := 0; c < nc; c++ {
							xq, _ := quantizeActs(typ, randomActs(r, n))
							copy(x[c*stride:], xq)
						}
						x = guardedCopy(t, x, 0)
						out := []float32{-1, -1, -1, -1, 42, 43}
						f(n, w, x, stride, out[:nc])
						for c := 0; c < nc; c++ {
							want := kt.vecDot[typ](n, w, x[c*stride:c*stride+xn])
							if math.Float32bits(out[c]) != math.Float32bits(want) {
								t.Errorf("%s %v n=%d nc=%d stride=%d: out[%d]=%g, VecDot %g", name, typ, n, nc, stride, c, out[c], want)
							}
						}
						for c := nc; c < len(out); c++ {
							if sentinel := []float32{-1, -1, -1, -1, 42, 43}[c]; out[c] != sentinel {
								t.Errorf("%s %v nc=%d: wrote out[%d]=%g", name, typ, nc, c, out[c])
							}
						}
					}
				}
			}
		}
	}
}

// guardedFloats copies x into guarded memory ending at a fault page.
func guardedFloats(t *testing.T, x []float32) []float32 {
	if len(x) == 0 {
		return x
	}
	b := guardedBytes(t, 4*len(x), 0)
	g := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(x))
	copy(g, x)
	return g
}

// quantProbes returns activation rows that stress the quantizers: random
// rows, ties at every scale, the largest magnitude first, last or tied
// with its negation, zero blocks, subnormal and huge blocks.
func quantProbes(r interface{ NormFloat64() float64 }, n int) [][]float32 {
	var rows [][]float32
	random := make([]float32, n)
	for i := range random {
		random[i] = float32(r.NormFloat64())
	}
	rows = append(rows, random)
	ties := make([]float32, n)
	for i := range ties {
		ties[i] = float32(i%255-127) + 0.5
	}
	rows = append(rows, ties)
	for _, scale := range []float32{0, 1e-40, 1e-38, 3e-37, 1e30, -2.5} {
		x := make([]float32, n)
		for i := range x {
			x[i] = scale * float32(i%17-8) / 8
		}
		rows = append(rows, x)
	}
	tied := slices.Clone(random)
	for b := 0; b+QK_K <= n; b += QK_K {
		tied[b+5], tied[b+200] = 9, -9 // equal magnitudes: the first decides the sign
	}
	for b := 0; b+32 <= n; b += 32 {
		tied[b+31] = -20
	}
	rows = append(rows, tied)
	// Blocks of 32 alternating between normal and tiny (127/amax = +Inf,
	// the q8_1 fallback) magnitudes, so the assembly resumes after a
	// fallback block.
	mixed := slices.Clone(random)
	for b := 0; b+32 <= n; b += 64 {
		for i := b; i < b+32; i++ {
			mixed[i] *= 1e-38
		}
	}
	rows = append(rows, mixed)
	return rows
}

// TestNEONQuantizeMatchesGeneric checks the activation quantizers byte for
// byte against the generic ones, with the input ending at a fault page and
// a poisoned tail after the output.
func TestNEONQuantizeMatchesGeneric(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(104)
	for _, name := range armImpls(t) {
		kt, _ := resolve(name)
		for _, typ := range []DType{Q8_0, Q8_1, Q8_K} {
			for _, nb := range []int{0, 1, 2, 3, 5} {
				n := nb * typ.BlockSize()
				for pi, x := range quantProbes(r, n) {
					want := make([]byte, typ.RowBytes(n))
					ref.quantize[typ](want, x)
					got := make([]byte, len(want)+8)
					for i := range got {
						got[i] = 0xee
					}
					kt.quantize[typ](got[:len(want)], guardedFloats(t, x))
					if string(got[:len(want)]) != string(want) {
						t.Errorf("%s %v n=%d probe %d: differs from generic\n got %x\nwant %x", name, typ, n, pi, got[:len(want)], want)
					}
					for i := len(want); i < len(got); i++ {
						if got[i] != 0xee {
							t.Fatalf("%s %v n=%d: wrote past the row at byte %d", name, typ, n, i)
						}
					}
				}
			}
		}
	}
}

// FuzzNEONVecDot is the differential fuzz target of the arm64 kernels:
// fuzzed weight bytes (scales made finite) against fuzzed activations, every
// arm64 implementation against generic, neon against neondot bit for bit,
// and VecDotN against VecDot.
func FuzzNEONVecDot(f *testing.F) {
	for i := range weightTypes {
		f.Add(uint8(i), uint8(i), []byte{0x11, 0x80, 0xff, 0x7f}, uint64(i), uint8(3))
		// Longer rows, all-ones and alternating high bits (q5/q3 high bits,
		// q2/q3 scales and mins at their extremes), 1 and 2 columns.
		f.Add(uint8(i), uint8(9), []byte{0xff}, uint64(100+i), uint8(0))
		f.Add(uint8(i), uint8(7), []byte{0xaa, 0x55, 0x0f, 0xf0, 0x3c}, uint64(200+i), uint8(1))
	}
	f.Fuzz(func(t *testing.T, ti, nb uint8, raw []byte, seed uint64, ncols uint8) {
		typ := weightTypes[int(ti)%len(weightTypes)]
		n := int(nb%10) * typ.BlockSize()
		if typ.BlockSize() == 1 {
			n = int(nb) % 300
		}
		w := make([]byte, typ.RowBytes(n))
		for i := range w {
			if len(raw) > 0 {
				w[i] = raw[i%len(raw)] ^ byte(i*13)
			}
		}
		finiteWeights(typ, w)
		nc := 1 + int(ncols)%MaxDotCols
		xn := typ.VecDotType().RowBytes(n)
		x := make([]byte, nc*xn)
		r := newRand(seed)
		var xd []float32
		for c := 0; c < nc; c++ {
			xq, d := quantizeActs(typ, randomActs(r, n))
			copy(x[c*xn:], xq)
			if c == 0 {
				xd = d
			}
		}
		ref, _ := resolve("generic")
		want := ref.vecDot[typ](n, w, x[:xn])
		if math.IsInf(float64(want), 0) || math.IsNaN(float64(want)) || math.Abs(float64(want)) > 1e30 {
			t.Skip("dot outside float32 range")
		}
		var prev []float32
		for _, name := range armImpls(t) {
			kt, _ := resolve(name)
			got := kt.vecDot[typ](n, w, x[:xn])
			checkDot(t, typ, n, w, x[:xn], xd, got, want, name)
			out := make([]float32, nc)
			vecDotNWith(&kt, typ, n, w, x, xn, out)
			for c := range out {
				if one := kt.vecDot[typ](n, w, x[c*xn:(c+1)*xn]); math.Float32bits(out[c]) != math.Float32bits(one) {
					t.Fatalf("%s %v n=%d: VecDotN[%d]=%g VecDot=%g", name, typ, n, c, out[c], one)
				}
			}
			if prev != nil && !slices.EqualFunc(prev, out, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatalf("%v n=%d: neon %v, neondot %v", typ, n, prev, out)
			}
			prev = out
		}
	})
}

// vecDotNWith runs the table's VecDotN kernel, or the per-column loop when
// it has none (as VecDotN does).
func vecDotNWith(kt *kernelTable, typ DType, n int, w, x []byte, xStride int, out []float32) {
	if f := kt.vecDotN[typ]; f != nil {
		f(n, w, x, xStride, out)
		return
	}
	vecDotNLoop(kt.vecDot[typ], n, w, x, xStride, typ.VecDotType().RowBytes(n), out)
}

// FuzzNEONQuantize feeds fuzzed float32 bit patterns (finite, |v| <= 1e30,
// subnormals kept) to the q8 quantizers of every arm64 implementation and
// requires the generic bytes.
func FuzzNEONQuantize(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3f, 1, 0, 0, 0x80, 0, 0, 0xfe, 0x42})
	f.Fuzz(func(t *testing.T, ti uint8, raw []byte) {
		types := []DType{Q8_0, Q8_1, Q8_K}
		typ := types[int(ti)%len(types)]
		n := typ.BlockSize() * (1 + int(ti/3)%3)
		x := make([]float32, n)
		for i := range x {
			var u uint32
			for k := 0; k < 4 && len(raw) > 0; k++ {
				u |= uint32(raw[(4*i+k)%len(raw)]^byte(i>>2)) << (8 * k)
			}
			v := math.Float32frombits(u)
			if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 1e30 {
				v = 0
			}
			x[i] = v
		}
		ref, _ := resolve("generic")
		want := make([]byte, typ.RowBytes(n))
		ref.quantize[typ](want, x)
		for _, name := range armImpls(t) {
			kt, _ := resolve(name)
			got := make([]byte, len(want))
			kt.quantize[typ](got, x)
			if string(got) != string(want) {
				t.Fatalf("%s %v: got %x\nwant %x\nx=%v", name, typ, got, want, x)
			}
		}
	})
}

// BenchmarkVecDotNARM64 measures the multi-column kernels:
// VecDotN/<type>/<impl>/<n>, bytes = weight row (read once for 4 columns).
func BenchmarkVecDotNARM64(b *testing.B) {
	for _, typ := range []DType{F32, F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K} {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			const n = 4096
			r := newRand(105)
			w := randomWeights(r, typ, n)
			xn := typ.VecDotType().RowBytes(n)
			x := make([]byte, MaxDotCols*xn)
			for c := 0; c < MaxDotCols; c++ {
				xq, _ := quantizeActs(typ, randomActs(r, n))
				copy(x[c*xn:], xq)
			}
			out := make([]float32, MaxDotCols)
			b.Run(fmt.Sprintf("%v/%s/%d", typ, name, n), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				for b.Loop() {
					vecDotNWith(&kt, typ, n, w, x, xn, out)
				}
			})
		}
	}
}
