package kernels

import (
	"fmt"
	"math"
	"testing"
)

// Tests of the float kernels (F32/F16/BF16 dots, vector ops, RMSNorm,
// SoftMax, F16/BF16 conversions) of every implementation against the
// generic one. They go through the kernel tables only, so they also run
// (trivially, generic against generic) under -tags purego.

// fltSizes are the lengths the sweeps use: every length up to 70 and the
// neighbours of the 8/16/32/64-value unroll steps of longer rows.
func fltSizes() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	for _, b := range []int{96, 128, 256, 1024, 4096} {
		ns = append(ns, b-1, b, b+1, b+8, b+24)
	}
	return ns
}

// fltShifts are the misalignments (in elements) the sweeps start at.
var fltShifts = []int{0, 1, 3}

// fltGuard is the number of guard elements placed after every output.
const fltGuard = 9

// fltBuf returns a slice of n float32s that starts shift elements into a
// fresh buffer and is followed by fltGuard guard values (a NaN pattern).
func fltBuf(n, shift int) []float32 {
	b := make([]float32, shift+n+fltGuard)
	for i := range b {
		b[i] = math.Float32frombits(0x7fc0dead)
	}
	return b[shift : shift+n : shift+n+fltGuard]
}

// fltCheckGuard fails if the fltGuard values after s changed.
func fltCheckGuard(t *testing.T, what string, s []float32) {
	t.Helper()
	g := s[len(s):cap(s)]
	for i, v := range g {
		if math.Float32bits(v) != 0x7fc0dead {
			t.Fatalf("%s: wrote guard element %d past the end (%#x)", what, i, math.Float32bits(v))
		}
	}
}

// fltFill copies src into a fresh buffer at the given shift.
func fltFill(src []float32, shift int) []float32 {
	b := fltBuf(len(src), shift)
	copy(b, src)
	return b
}

// fltClose reports whether got is within tol of want relative to |want|,
// with an absolute floor of tiny for results near the subnormal range.
// NaN matches only NaN; infinities must match exactly.
func fltClose(got, want float32, tol, tiny float64) bool {
	if want != want {
		return got != got
	}
	if math.IsInf(float64(want), 0) || math.IsInf(float64(got), 0) {
		return got == want
	}
	return math.Abs(float64(got)-float64(want)) <= tol*math.Abs(float64(want))+tiny
}

func TestFloatVecDotImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(101)
		for _, typ := range []DType{F32, F16, BF16} {
			for _, n := range fltSizes() {
				w := randomWeights(r, typ, n)
				xq, xd := quantizeActs(typ, randomActs(r, n))
				want := ref.vecDot[typ](n, w, xq)
				_, allowed := dotBound(typ, w, xq, xd)
				allowed *= tolVecDotImpl / tolVecDotDequant
				for _, shift := range fltShifts {
					// Misaligned by shift bytes (not elements), with
					// NaN bytes after both rows that must not be read.
					pad := []byte{0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f}
					ws := append(append(make([]byte, shift), w...), pad...)[shift:]
					xs := append(append(make([]byte, shift), xq...), pad...)[shift:]
					got := kt.vecDot[typ](n, ws, xs)
					if math.Abs(float64(got-want)) > allowed {
						t.Errorf("%v n=%d shift=%d: %g, generic %g (allowed %g)", typ, n, shift, got, want, allowed)
					}
				}
			}
		}
	})
}

func TestFloatVecDotNImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(102)
		for _, typ := range []DType{F32, F16, BF16} {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 63, 64, 65, 257, 1024} {
				xn := typ.RowBytes(n)
				stride := xn + 3 // odd stride: columns start misaligned
				w := randomWeights(r, typ, n)
				x := make([]byte, MaxDotCols*stride)
				var xd [MaxDotCols][]float32
				for c := range MaxDotCols {
					var q []byte
					q, xd[c] = quantizeActs(typ, randomActs(r, n))
					copy(x[c*stride:], q)
					for i := xn; i < stride; i++ {
						x[c*stride+i] = 0xff // NaN bytes between columns
					}
				}
				for nc := 1; nc <= MaxDotCols; nc++ {
					out := fltBuf(nc, 1)
					f := kt.vecDotN[typ]
					if f == nil {
						vecDotNLoop(kt.vecDot[typ], n, w, x, stride, xn, out)
					} else {
						f(n, w, x, stride, out)
					}
					fltCheckGuard(t, fmt.Sprintf("%v n=%d nc=%d", typ, n, nc), out)
					for c := range nc {
						xc := x[c*stride : c*stride+xn]
						want := ref.vecDot[typ](n, w, xc)
						_, allowed := dotBound(typ, w, xc, xd[c])
						allowed *= tolVecDotImpl / tolVecDotDequant
						if math.Abs(float64(out[c]-want)) > allowed {
							t.Errorf("%v n=%d nc=%d col %d: %g, generic VecDot %g", typ, n, nc, c, out[c], want)
						}
					}
				}
			}
		}
	})
}

// TestFloatDotImpls covers Dot and the F32 vec dot on one-signed rows too,
// where the float32 accumulators cannot hide behind cancellation.
func TestFloatDotImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(103)
		for _, n := range fltSizes() {
			a, b := randomActs(r, n), randomActs(r, n)
			for _, positive := range []bool{false, true} {
				var mag float64
				for i := range a {
					if positive {
						a[i], b[i] = float32(math.Abs(float64(a[i]))), float32(math.Abs(float64(b[i])))
					}
					mag += math.Abs(float64(a[i]) * float64(b[i]))
				}
				want := ref.dot(a, b)
				for _, shift := range fltShifts {
					got := kt.dot(fltFill(a, shift), fltFill(b, shift+1))
					if math.Abs(float64(got-want)) > tolDotImpl*mag+1e-30 {
						t.Errorf("n=%d positive=%v shift=%d: %g, generic %g", n, positive, shift, got, want)
					}
				}
			}
		}
	})
}

// fltBinOps are the element-wise ops with their generic references.
var fltBinOps = []struct {
	name string
	get  func(kt *kernelTable) func(dst, a, b []float32)
}{
	{"Add", func(kt *kernelTable) func(dst, a, b []float32) { return kt.add }},
	{"Mul", func(kt *kernelTable) func(dst, a, b []float32) { return kt.mul }},
	{"SwiGLU", func(kt *kernelTable) func(dst, a, b []float32) { return kt.swiGLU }},
}

// fltSpecials are inputs every element-wise op must treat like generic:
// signed zeros, infinities, NaN, subnormals, the exp overflow and underflow
// thresholds around ±88.7 and ±103.9, and the edges of its two-step path.
var fltSpecials = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	1e-45, -1e-45, 1e-39, -3e-39, 1e-30, 1, -1, 0.5, -0.5, 20, -20,
	87.3, -87.3, 88.37, 88.38, 88.72, 88.73, -88.72, -88.73, 89, -89,
	87.4, -87.4, 100, -100, 103.9, -103.9, 104, -104, 133, -133, 200, -200, 3e38, -3e38,
}

// fltOperands returns n values for element-wise tests: mostly normal
// values of mixed scale, with the special values spread through them.
func fltOperands(seed uint64, n int) []float32 {
	r := newRand(seed)
	x := randomActs(r, n)
	for i := range x {
		x[i] *= float32(math.Ldexp(1, r.IntN(12)-4))
		if r.IntN(4) == 0 {
			x[i] = fltSpecials[r.IntN(len(fltSpecials))]
		}
	}
	return x
}

func TestFloatElementwiseImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, op := range fltBinOps {
			f, g := op.get(kt), op.get(ref)
			// Add and Mul round exactly like the generic loops.
			tol := 0.0
			if op.name == "SwiGLU" {
				tol = tolElementwise
			}
			for _, n := range fltSizes() {
				a, b := fltOperands(uint64(n), n), fltOperands(uint64(n)+1000, n)
				want := make([]float32, n)
				g(want, a, b)
				for _, shift := range fltShifts {
					as, bs := fltFill(a, shift), fltFill(b, shift+2)
					dst := fltBuf(n, shift+1)
					f(dst, as, bs)
					fltCheckGuard(t, op.name, dst)
					fltCompare(t, fmt.Sprintf("%s n=%d shift=%d", op.name, n, shift), dst, want, tol)
					// dst == a and dst == b.
					f(as, as, bs)
					fltCompare(t, fmt.Sprintf("%s n=%d dst=a", op.name, n), as, want, tol)
					copy(as, a)
					f(bs, as, bs)
					fltCompare(t, fmt.Sprintf("%s n=%d dst=b", op.name, n), bs, want, tol)
				}
			}
		}
	})
}

// fltCompare checks got against want element by element within tol
// (relative, floor 2^-140); tol 0 demands identical bits except NaN
// payloads.
func fltCompare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	for i := range want {
		ok := fltClose(got[i], want[i], tol, 0x1p-140)
		if tol == 0 && want[i] == want[i] {
			ok = math.Float32bits(got[i]) == math.Float32bits(want[i])
		}
		if !ok {
			t.Fatalf("%s: element %d = %g (%#x), generic %g (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestFloatScaleImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, n := range fltSizes() {
			x := fltOperands(uint64(n)+7, n)
			for _, s := range []float32{0.37, -2, 0, float32(math.Inf(1))} {
				want := append([]float32(nil), x...)
				ref.scale(want, s)
				for _, shift := range fltShifts {
					got := fltFill(x, shift)
					kt.scale(got, s)
					fltCheckGuard(t, "Scale", got)
					fltCompare(t, fmt.Sprintf("Scale n=%d s=%g", n, s), got, want, 0)
				}
			}
		}
	})
}

func TestFloatRMSNormImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(104)
		for _, n := range fltSizes()[1:] {
			x := randomActs(r, n)
			for _, eps := range []float32{0, 1e-6, 1e-5} {
				want := make([]float32, n)
				ref.rmsNorm(want, x, eps)
				for _, shift := range fltShifts {
					xs := fltFill(x, shift)
					dst := fltBuf(n, shift+1)
					kt.rmsNorm(dst, xs, eps)
					fltCheckGuard(t, "RMSNorm", dst)
					fltCompare(t, fmt.Sprintf("RMSNorm n=%d eps=%g", n, eps), dst, want, tolRMSNorm)
					kt.rmsNorm(xs, xs, eps) // in place
					fltCompare(t, fmt.Sprintf("RMSNorm in place n=%d", n), xs, dst, 0)
				}
			}
		}
	})
}

func TestFloatSoftMaxImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		r := newRand(105)
		for _, n := range fltSizes()[1:] {
			for _, spread := range []float32{1, 8, 60} {
				x := randomActs(r, n)
				for i := range x {
					x[i] *= spread
					if r.IntN(7) == 0 {
						x[i] = float32(math.Inf(-1)) // masked
					}
				}
				x[r.IntN(n)] = spread // at least one finite entry
				want := append([]float32(nil), x...)
				ref.softMax(want)
				for _, shift := range fltShifts {
					got := fltFill(x, shift)
					kt.softMax(got)
					fltCheckGuard(t, "SoftMax", got)
					fltCompare(t, fmt.Sprintf("SoftMax n=%d spread=%g", n, spread), got, want, tolSoftMax)
				}
			}
		}
	})
}

// TestFloatNoAllocs: the float kernels of every implementation allocate
// nothing (the four-column path keeps its results on the stack).
func TestFloatNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		const n = 100
		r := newRand(106)
		a, b := randomActs(r, n), randomActs(r, n)
		out := make([]float32, MaxDotCols)
		rows := map[DType][]byte{}
		for _, typ := range []DType{F32, F16, BF16} {
			rows[typ] = randomWeights(r, typ, MaxDotCols*n)
		}
		allocs := testing.AllocsPerRun(10, func() {
			for typ, x := range rows {
				rb := typ.RowBytes(n)
				if f := kt.vecDotN[typ]; f != nil {
					f(n, x, x, rb, out[:3])
					f(n, x, x, rb, out)
				}
				out[0] += kt.vecDot[typ](n, x, x[rb:])
			}
			kt.quantize[F16](rows[F16], a)
			kt.dequantize[BF16](b, rows[BF16][:2*n])
			kt.rmsNorm(a, a, 1e-5)
			kt.softMax(a)
			kt.swiGLU(a, a, b)
		})
		if allocs != 0 {
			t.Errorf("%v allocations per run", allocs)
		}
	})
}
