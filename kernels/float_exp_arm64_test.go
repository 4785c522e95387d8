//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"testing"
	"unsafe"
)

// Tests of the NEON SwiGLU, SoftMax and RMSNorm against the generic
// kernels, within the per-op tolerances of doc.go that the AVX2 versions
// are held to, and of the NEON exponential against expModel, the
// documented algorithm written out in Go, bit for bit.

// neonActSizes are every length up to 70 and the neighbours of longer
// multiples of the 8-value step.
func neonActSizes() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	for _, b := range []int{96, 128, 256, 1024, 4096} {
		ns = append(ns, b-1, b, b+1, b+8, b+24)
	}
	return ns
}

// neonSentinel is the bit pattern the guard slots after an output hold.
const neonSentinel = 0x7fc0dead

// neonGuardedOut copies x into memory that ends at a fault page, with
// guard sentinel values between the slice and the page, so a read past
// the end of a guard-0 slice faults and a write into the guards shows up
// in neonCheckGuard. The start moves with guard (misaligned for odd guard
// counts relative to 16 bytes).
func neonGuardedOut(t *testing.T, x []float32, guard int) []float32 {
	b := guardedBytes(t, 4*(len(x)+guard), 0)
	all := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(x)+guard)
	for i := range all {
		all[i] = math.Float32frombits(neonSentinel)
	}
	copy(all, x)
	return all[:len(x):len(all)]
}

// neonCheckGuard fails if a guard slot after s changed.
func neonCheckGuard(t *testing.T, what string, s []float32) {
	t.Helper()
	for i, v := range s[len(s):cap(s)] {
		if math.Float32bits(v) != neonSentinel {
			t.Fatalf("%s: wrote guard element %d past the end (%#x)", what, i, math.Float32bits(v))
		}
	}
}

// neonClose reports whether got is within tol of want relative to |want|,
// with an absolute floor of 2^-140 for results near the subnormal range;
// NaN matches only NaN, infinities must match exactly, and tol 0 demands
// the same bits.
func neonClose(got, want float32, tol float64) bool {
	switch {
	case want != want:
		return got != got
	case tol == 0:
		return math.Float32bits(got) == math.Float32bits(want)
	case math.IsInf(float64(want), 0) || math.IsInf(float64(got), 0):
		return got == want
	}
	return math.Abs(float64(got)-float64(want)) <= tol*math.Abs(float64(want))+0x1p-140
}

func neonCompare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	for i := range want {
		if !neonClose(got[i], want[i], tol) {
			t.Fatalf("%s: element %d = %g (%#x), want %g (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// neonSpecials are inputs SwiGLU must treat like generic: signed zeros,
// infinities, NaN, subnormals, and arguments around exp's overflow and
// underflow thresholds (±88.7, ±103.9) and the edges of its two-step path
// (|n| = 126 and 192, about ±87.3 and ±133).
var neonSpecials = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	1e-45, -1e-45, 1e-39, -3e-39, 1e-30, 1, -1, 0.5, -0.5, 20, -20,
	87.3, -87.3, 88.37, 88.38, 88.72, 88.73, -88.72, -88.73, 89, -89,
	87.4, -87.4, 100, -100, 103.9, -103.9, 104, -104, 133, -133, 200, -200, 3e38, -3e38,
}

// neonOperands returns n values of mixed scale with the specials spread
// through them.
func neonOperands(seed uint64, n int) []float32 {
	r := newRand(seed)
	x := randomActs(r, n)
	for i := range x {
		x[i] *= float32(math.Ldexp(1, r.IntN(12)-4))
		if r.IntN(4) == 0 {
			x[i] = neonSpecials[r.IntN(len(neonSpecials))]
		}
	}
	return x
}

// fma32 returns a*b+c rounded once to float32. The product is exact in
// float64 and TwoSum gives the float64 sum's error, so the only case where
// rounding the float64 sum again would differ (the sum landing exactly on
// a float32 midpoint with a non-zero error) is resolved towards the error.
func fma32(a, b, c float32) float32 {
	p, cc := float64(a)*float64(b), float64(c)
	s := p + cc
	bv := s - p
	e := (p - (s - bv)) + (cc - bv)
	r := float32(s)
	if e == 0 || math.IsInf(s, 0) || math.IsNaN(s) || float64(r) == s {
		return r
	}
	toward := float32(math.Inf(1))
	if float64(r) > s {
		toward = float32(math.Inf(-1))
	}
	other := math.Nextafter32(r, toward) // the float32 on s's other side
	if math.Abs(s-float64(r)) != math.Abs(float64(other)-s) {
		return r // not a midpoint: float32(s) is the correct rounding
	}
	if (e > 0) == (other > r) {
		return other
	}
	return r
}

// expModel is EXP4 and EXPBIG (float_exp_arm64.s) step by step: every
// product feeding an addition is either fused (fma32) or rounded
// explicitly, as the assembly does.
func expModel(x float32) float32 {
	f := math.Float32frombits
	shift := f(0x4b400000)
	z := fma32(x, f(0x3fb8aa3b), shift)
	n := z - shift
	b := fma32(-n, f(0x3f317200), x)
	b = fma32(-n, f(0x35bfbe8e), b)
	e := math.Float32bits(z) << 23
	k := f(e + 0x3f800000)
	u := float32(b * b)
	t := fma32(f(0x3c072010), b, f(0x3d2b9f17))
	c := fma32(f(0x3e2aaf33), b, f(0x3efffedb))
	c = fma32(t, u, c)
	j := fma32(c, u, float32(f(0x3f7ffff6)*b))
	r := fma32(k, j, k)
	if an := math.Abs(float64(n)); an > 126 {
		var g uint32
		if n <= 0 {
			g = 0x82000000
		}
		s1, s2 := f(g+0x7f000000), f(e-g)
		r = float32(fma32(s2, j, s2) * s1)
		if an > 192 {
			r = float32(s1 * s1)
		}
	}
	return r
}

// TestNEONExpModel checks that expModel is an exponential within
// tolSoftMax of math.Exp where the result is a normal float32, so the
// bit-exact tests below pin the assembly to an accurate function.
func TestNEONExpModel(t *testing.T) {
	for x := float32(-87); x <= 88; x += 0.0137 {
		want := float32(math.Exp(float64(x)))
		if got := expModel(x); !neonClose(got, want, tolSoftMax) {
			t.Fatalf("expModel(%g) = %g, exp %g", x, got, want)
		}
	}
	for x, want := range map[float32]float32{float32(math.Inf(-1)): 0, -200: 0, 200: float32(math.Inf(1)), float32(math.Inf(1)): float32(math.Inf(1))} {
		if got := expModel(x); got != want {
			t.Errorf("expModel(%g) = %g, want %g", x, got, want)
		}
	}
}

// neonExpProbes returns every 4099th float32 pattern with |x| <= 110 (the
// exponential's whole interesting range, both signs, subnormals included)
// plus the specials.
func neonExpProbes() []float32 {
	var x []float32
	for b := uint64(0); b < 1<<32; b += 4099 {
		if v := math.Float32frombits(uint32(b)); math.Abs(float64(v)) <= 110 {
			x = append(x, v)
		}
	}
	return append(x, neonSpecials...)
}

// TestNEONExpBits runs the NEON exponential through SwiGLU with up = 1
// (dst = g/(1+exp(-g)), two exact steps around it) and through SoftMax's
// exponential pass, and requires expModel's bits, NaN only for NaN.
func TestNEONExpBits(t *testing.T) {
	g := neonExpProbes()
	g = g[:len(g)&^7]
	ones := make([]float32, len(g))
	for i := range ones {
		ones[i] = 1
	}
	dst := make([]float32, len(g))
	swiGLUF32NEON(&dst[0], &g[0], &ones[0], len(g))
	for i, v := range g {
		if want := v / (1 + expModel(-v)); !neonClose(dst[i], want, 0) {
			t.Fatalf("SwiGLU(g=%g (%#x), 1) = %g (%#x), model %g (%#x)", v, math.Float32bits(v), dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
		}
	}
	for _, m := range []float32{0, 3.5, -20} {
		x := append([]float32(nil), g...)
		sum := expSumF32NEON(&x[0], len(x), m)
		var want float64
		for i, v := range g {
			e := expModel(v - m)
			if !neonClose(x[i], e, 0) {
				t.Fatalf("m=%g: exp(%g - m) = %g (%#x), model %g (%#x)", m, v, x[i], math.Float32bits(x[i]), e, math.Float32bits(e))
			}
			want += float64(e)
		}
		if math.IsNaN(sum) != math.IsNaN(want) || !math.IsNaN(want) && math.Abs(sum-want) > 1e-12*math.Abs(want) {
			t.Errorf("m=%g: sum %g, want %g", m, sum, want)
		}
	}
}

// TestNEONSwiGLU checks SwiGLU against the generic kernel within
// tolElementwise over every length, misaligned starts, inputs ending at a
// fault page, guards after the output, and dst aliasing gate or up; and
// bit for bit against the model on the whole vectorised part.
func TestNEONSwiGLU(t *testing.T) {
	ref, _ := resolve("generic")
	for name, kt := range neonFloatImpls(t) {
		for _, n := range neonActSizes() {
			a, b := neonOperands(uint64(n), n), neonOperands(uint64(n)+1000, n)
			want := make([]float32, n)
			ref.swiGLU(want, a, b)
			model := make([]float32, n)
			for i := range model {
				model[i] = float32(a[i]/(1+expModel(-a[i]))) * b[i]
				if i >= n&^7 {
					model[i] = want[i] // the scalar tail is the generic code
				}
			}
			for guard := range 3 {
				what := fmt.Sprintf("%s SwiGLU n=%d guard=%d", name, n, guard)
				as, bs := guardedFloatsAt(t, a, guard), guardedFloatsAt(t, b, 2-guard)
				dst := neonGuardedOut(t, make([]float32, n), 2*guard+1)
				kt.swiGLU(dst, as, bs)
				neonCheckGuard(t, what, dst)
				neonCompare(t, what, dst, want, tolElementwise)
				neonCompare(t, what+" (model)", dst, model, 0)
				kt.swiGLU(as, as, bs) // dst == gate
				neonCompare(t, what+" dst=gate", as, dst, 0)
				copy(as, a)
				kt.swiGLU(bs, as, bs) // dst == up
				neonCompare(t, what+" dst=up", bs, dst, 0)
			}
		}
	}
}

// TestNEONSoftMax checks SoftMax against the generic kernel within
// tolSoftMax: every length, spreads up to exp's underflow, masked (-Inf)
// entries, inputs ending at a fault page with guards after them.
func TestNEONSoftMax(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(301)
	for name, kt := range neonFloatImpls(t) {
		for _, n := range neonActSizes()[1:] {
			for _, spread := range []float32{1, 8, 60, 200} {
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
				for guard := range 3 {
					what := fmt.Sprintf("%s SoftMax n=%d spread=%g guard=%d", name, n, spread, guard)
					got := neonGuardedOut(t, x, guard)
					kt.softMax(got)
					neonCheckGuard(t, what, got)
					neonCompare(t, what, got, want, tolSoftMax)
				}
			}
		}
		// All but one entry masked, and a single entry.
		for _, n := range []int{1, 8, 9, 17} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(math.Inf(-1))
			}
			x[n-1] = -3
			kt.softMax(x)
			if x[n-1] != 1 || n > 1 && x[0] != 0 {
				t.Errorf("%s SoftMax one finite of %d: %v", name, n, x)
			}
		}
	}
}

// TestNEONRMSNorm checks RMSNorm against the generic kernel within
// tolRMSNorm (it differs only in the order of the float64 sum), in place
// bit for bit, with inputs ending at a fault page and guards after the
// output, and exactly on rows whose float64 sum of squares is exact.
func TestNEONRMSNorm(t *testing.T) {
	ref, _ := resolve("generic")
	r := newRand(302)
	for name, kt := range neonFloatImpls(t) {
		for _, n := range neonActSizes()[1:] {
			for _, exact := range []bool{false, true} {
				x := randomActs(r, n)
				if exact {
					for i := range x {
						x[i] = float32(r.IntN(65) - 32)
					}
				}
				for _, eps := range []float32{0, 1e-6, 1e-5} {
					want := make([]float32, n)
					ref.rmsNorm(want, x, eps)
					tol := tolRMSNorm
					if exact {
						tol = 0
					}
					for guard := range 3 {
						what := fmt.Sprintf("%s RMSNorm n=%d eps=%g exact=%v guard=%d", name, n, eps, exact, guard)
						xs := guardedFloatsAt(t, x, guard)
						dst := neonGuardedOut(t, make([]float32, n), guard+1)
						kt.rmsNorm(dst, xs, eps)
						neonCheckGuard(t, what, dst)
						neonCompare(t, what, dst, want, tol)
						kt.rmsNorm(xs, xs, eps)
						neonCompare(t, what+" in place", xs, dst, 0)
					}
				}
			}
		}
	}
}

// TestNEONNewKernelsNoAllocs: the NEON BF16, activation and attention
// kernels allocate nothing.
func TestNEONNewKernelsNoAllocs(t *testing.T) {
	const n = 100
	r := newRand(303)
	a, b := randomActs(r, n), randomActs(r, n)
	bf := randomWeights(r, BF16, MaxDotCols*n)
	v := randomValueRows(304, F32, 9, 72, 4*80, 0)
	p, dst := randomProbs(305, 9, false), make([]float32, 72)
	out := make([]float32, MaxDotCols)
	for name, kt := range neonFloatImpls(t) {
		allocs := testing.AllocsPerRun(10, func() {
			out[0] = kt.vecDot[BF16](n, bf, bf[2*n:])
			kt.vecDotN[BF16](n, bf, bf, 2*n, out)
			kt.quantize[BF16](bf[:2*n], a)
			kt.dequantize[BF16](b, bf[:2*n])
			kt.rmsNorm(a, a, 1e-5)
			kt.softMax(a)
			kt.swiGLU(a, a, b)
			kt.attnValues[F32](dst, p, v, 4*80)
			kt.attnScores[F32](out, v, 4*80, v[:4*72], 72)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run", name, allocs)
		}
	}
}

// FuzzNEONActivations feeds fuzzed float32 bit patterns to SwiGLU (bit for
// bit against expModel on the vectorised part, within tolElementwise of
// generic everywhere), and, with NaN and huge values masked out, to
// RMSNorm and SoftMax within their tolerances.
func FuzzNEONActivations(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 0x33, 0x33, 0xb1, 0x42, 0, 0, 0x80, 0xff, 1, 0, 0, 0x80}, uint8(19))
	f.Fuzz(neonActivationsCheck)
}

// neonActivationsCheck is FuzzNEONActivations' body, a plain function so a
// loop can drive it too (go test -fuzz cannot run under qemu -exec).
func neonActivationsCheck(t *testing.T, raw []byte, nn uint8) {
	n := int(nn)
	if n == 0 || len(raw) < 4 {
		return
	}
	g, u := make([]float32, n), make([]float32, n)
	for i := range g {
		j := 4 * i % (len(raw) - 3)
		g[i] = math.Float32frombits(uint32(raw[j]) | uint32(raw[j+1])<<8 | uint32(raw[j+2])<<16 | uint32(raw[j+3])<<24 ^ uint32(i)*0x9e3779b9)
		u[i] = float32(i%7) - 3
	}
	ref, _ := resolve("generic")
	for name, kt := range neonFloatImpls(t) {
		want, got := make([]float32, n), make([]float32, n)
		ref.swiGLU(want, g, u)
		kt.swiGLU(got, g, u)
		for i := range got {
			model := want[i]
			if i < n&^7 {
				model = float32(g[i]/(1+expModel(-g[i]))) * u[i]
			}
			if !neonClose(got[i], model, 0) || !neonClose(got[i], want[i], tolElementwise) {
				t.Fatalf("%s SwiGLU(%g, %g) = %g, model %g, generic %g", name, g[i], u[i], got[i], model, want[i])
			}
		}
		x := append([]float32(nil), g...)
		for i, v := range x {
			if v != v || math.Abs(float64(v)) > 1e15 {
				x[i] = float32(i % 5)
			}
		}
		ref.rmsNorm(want, x, 1e-6)
		kt.rmsNorm(got, x, 1e-6)
		neonCompare(t, name+" RMSNorm", got, want, tolRMSNorm)
		copy(want, x)
		copy(got, x)
		ref.softMax(want)
		kt.softMax(got)
		neonCompare(t, name+" SoftMax", got, want, tolSoftMax)
	}
}
