package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// Tests of OnlineSoftMax: the generic kernel against float64 arithmetic,
// every implementation against the generic one (through the kernel
// tables, so they run on amd64, arm64 under qemu and with -tags purego),
// and a chain of chunks against SoftMax over the whole row.

// osmGuard is the number of guard values after every chunk.
const osmGuard = 9

// osmGuardBits is the pattern the guard values hold (a quiet NaN).
const osmGuardBits = 0x7fc0beef

// osmSizes are the chunk lengths the sweeps use: every length up to 70
// (the 8- and 16-value steps and attention's 64-row chunk) and the
// neighbours of longer rows.
func osmSizes() []int {
	var ns []int
	for n := 1; n <= 70; n++ {
		ns = append(ns, n)
	}
	for _, b := range []int{128, 256, 1024} {
		ns = append(ns, b-1, b, b+1, b+9)
	}
	return ns
}

// osmBuf copies src into a fresh buffer shift values in, followed by
// osmGuard guard values.
func osmBuf(src []float32, shift int) []float32 {
	b := make([]float32, shift+len(src)+osmGuard)
	for i := range b {
		b[i] = math.Float32frombits(osmGuardBits)
	}
	copy(b[shift:], src)
	return b[shift : shift+len(src) : len(b)]
}

func osmCheckGuard(t *testing.T, what string, s []float32) {
	t.Helper()
	for i, v := range s[len(s):cap(s)] {
		if math.Float32bits(v) != osmGuardBits {
			t.Fatalf("%s: wrote guard value %d past the end", what, i)
		}
	}
}

// osmScores returns n scores of the given spread, about one in seven -Inf
// (masked) when masked is set.
func osmScores(seed uint64, n int, spread float32, masked bool) []float32 {
	r := newRand(seed)
	x := randomActs(r, n)
	for i := range x {
		x[i] *= spread
		if masked && r.IntN(7) == 0 {
			x[i] = float32(math.Inf(-1))
		}
	}
	return x
}

// osmStarts are the running maxima a chunk may start from: none yet,
// below, inside and above the chunk's own (scaled) range.
var osmStarts = []float32{float32(math.Inf(-1)), -500, 0.5, 40}

func osmClose(got, want float32, tol float64) bool {
	return math.Abs(float64(got)-float64(want)) <= tol*math.Abs(float64(want))+0x1p-140
}

// TestOnlineSoftMaxGeneric checks the reference against float64 exp of
// the float32 difference (as SoftMax): the new maximum exactly, every
// exponential and the sum within tolSoftMax, and the exported wrapper's
// rescale factor.
func TestOnlineSoftMaxGeneric(t *testing.T) {
	restore := DisableAsm()
	defer restore()
	for _, n := range []int{1, 7, 64, 65, 300} {
		for _, m0 := range osmStarts {
			x := osmScores(uint64(n), n, 6, true)
			const scale = 0.125
			wantM := m0
			for _, v := range x {
				wantM = max(wantM, v*scale)
			}
			got := append([]float32(nil), x...)
			m := m0
			sum, rescale := OnlineSoftMax(got, scale, &m)
			if m != wantM {
				t.Fatalf("n=%d m0=%g: max %g, want %g", n, m0, m, wantM)
			}
			var wantSum float64
			for i, v := range x {
				e := math.Exp(float64(v*scale - wantM)) // the difference in float32, as ggml's expf(x-max)
				wantSum += e
				if !osmClose(got[i], float32(e), tolSoftMax) {
					t.Fatalf("n=%d m0=%g [%d]: %g, want %g", n, m0, i, got[i], e)
				}
			}
			if math.Abs(sum-wantSum) > tolSoftMax*wantSum {
				t.Fatalf("n=%d m0=%g: sum %g, want %g", n, m0, sum, wantSum)
			}
			if want := math.Exp(float64(m0) - float64(wantM)); !osmClose(rescale, float32(want), tolSoftMax) || (m0 == wantM && rescale != 1) {
				t.Fatalf("n=%d m0=%g: rescale %g, want %g", n, m0, rescale, want)
			}
		}
	}
}

// TestOnlineSoftMaxImpls runs every implementation against the generic
// one: lengths around the vector steps, misaligned starts, guard values
// after the chunk, -Inf scores, every kind of starting maximum, spreads up
// to exp's underflow. The maximum must match exactly (the scaling is one
// product per value and the maximum is exact), the values and the sum
// within tolSoftMax.
func TestOnlineSoftMaxImpls(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, n := range osmSizes() {
			for _, spread := range []float32{1, 8, 120} {
				for _, m0 := range osmStarts {
					x := osmScores(uint64(n)*31+uint64(spread), n, spread, true)
					what := fmt.Sprintf("%s n=%d spread=%g m0=%g", name, n, spread, m0)
					want := append([]float32(nil), x...)
					wm, ws := ref.onlineSoftMax(want, 0.3, m0)
					for _, shift := range []int{0, 1, 3} {
						got := osmBuf(x, shift)
						gm, gs := kt.onlineSoftMax(got, 0.3, m0)
						osmCheckGuard(t, what, got)
						osmCompare(t, what, got, want, gm, wm, gs, ws)
					}
				}
			}
		}
	})
}

func osmCompare(t *testing.T, what string, got, want []float32, gm, wm float32, gs, ws float64) {
	t.Helper()
	// == rather than the bits: when the largest scaled scores are +0
	// and -0 (a tiny negative score times the scale underflows), which
	// one a SIMD max keeps depends on lane order, and either gives the
	// same exponentials.
	if gm != wm {
		t.Fatalf("%s: max %g, generic %g", what, gm, wm)
	}
	for i := range want {
		if !osmClose(got[i], want[i], tolSoftMax) {
			t.Fatalf("%s [%d]: %g, generic %g", what, i, got[i], want[i])
		}
	}
	if !osmSumClose(gs, ws, len(want)) {
		t.Fatalf("%s: sum %g, generic %g", what, gs, ws)
	}
}

// osmSumClose: a chunk's sum within tolSoftMax relative, plus the
// absolute floor osmClose allows each element once per element: an
// exponential below 2^-126 is a float32 subnormal, so the ~1.5 ulp of the
// SIMD polynomial becomes an absolute error of a few 2^-149 steps, which no
// relative bound on a sum of such values covers.
func osmSumClose(got, want float64, n int) bool {
	return math.Abs(got-want) <= tolSoftMax*want+float64(n)*0x1p-140
}

// TestOnlineSoftMaxSubnormalSums sweeps chunks whose exponentials all
// fall in float32's subnormal range (scores 86-105 below the maximum),
// where the SIMD exponentials round in absolute steps: the
// case CI's fuzzing found (sum 4.69699e-39 against 4.69701e-39).
func TestOnlineSoftMaxSubnormalSums(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		x := make([]float32, 70)
		for v := float32(-86); v > -105; v -= 0.01 {
			for i := range x {
				x[i] = v - float32(i%7)*0.37
			}
			want := osmBuf(x, 0)
			wm, ws := ref.onlineSoftMax(want, 1, 0)
			got := osmBuf(x, 1)
			gm, gs := kt.onlineSoftMax(got, 1, 0)
			osmCheckGuard(t, name, got)
			osmCompare(t, fmt.Sprintf("%s v=%g", name, v), got, want, gm, wm, gs, ws)
		}
	})
}

// TestOnlineSoftMaxMasked: a chunk of only -Inf scores gives zeros, a zero
// sum, and leaves the maximum; from m = -Inf the maximum stays -Inf and
// the rescale factor is 1 (no NaN from -Inf − -Inf).
func TestOnlineSoftMaxMasked(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		for _, n := range []int{1, 8, 9, 64} {
			for _, m0 := range osmStarts {
				x := osmBuf(make([]float32, n), 1)
				for i := range x {
					x[i] = float32(math.Inf(-1))
				}
				m, sum := kt.onlineSoftMax(x, 0.5, m0)
				osmCheckGuard(t, name, x)
				if m != m0 || sum != 0 {
					t.Fatalf("%s n=%d m0=%g: max %g sum %g", name, n, m0, m, sum)
				}
				for i, v := range x {
					if v != 0 {
						t.Fatalf("%s n=%d m0=%g [%d] = %g, want 0", name, n, m0, i, v)
					}
				}
			}
		}
	})
	m := float32(math.Inf(-1))
	if _, r := OnlineSoftMax([]float32{float32(math.Inf(-1))}, 1, &m); r != 1 {
		t.Fatalf("rescale from -Inf to -Inf = %g, want 1", r)
	}
}

// TestOnlineSoftMaxChain: chunks of a row taken one after the other, each
// earlier exponential multiplied by the later rescale factors and the
// whole divided by the running sum, give SoftMax of the scaled row (within
// a few tolSoftMax: every rescale is one more rounding).
func TestOnlineSoftMaxChain(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 300} {
		for _, chunk := range []int{1, 8, 64} {
			x := osmScores(uint64(n)+5, n, 4, true)
			x[n/2] = 3 // at least one finite score
			want := append([]float32(nil), x...)
			Scale(want, 0.25)
			SoftMax(want)
			got := append([]float32(nil), x...)
			m, total := float32(math.Inf(-1)), 0.0
			for c := 0; c < n; c += chunk {
				sum, rescale := OnlineSoftMax(got[c:min(c+chunk, n)], 0.25, &m)
				Scale(got[:c], rescale)
				total = total*float64(rescale) + sum
			}
			Scale(got, float32(1/total))
			for i := range want {
				if !osmClose(got[i], want[i], 8*tolSoftMax) {
					t.Fatalf("n=%d chunk=%d [%d]: %g, SoftMax %g", n, chunk, i, got[i], want[i])
				}
			}
		}
	}
}

// TestOnlineSoftMaxNoAllocs: no implementation allocates.
func TestOnlineSoftMaxNoAllocs(t *testing.T) {
	x := osmScores(9, 64, 3, true)
	m := float32(math.Inf(-1))
	if a := testing.AllocsPerRun(10, func() { OnlineSoftMax(x, 0.5, &m) }); a != 0 {
		t.Errorf("OnlineSoftMax: %v allocations", a)
	}
}

// FuzzOnlineSoftMax compares every implementation with the generic one on
// chunks made from raw (each 4 bytes a score: any finite float32 or -Inf,
// larger magnitudes clamped to ±1e4 so that scale·x stays finite), with the
// scale and the starting maximum chosen by the fuzzer.
func FuzzOnlineSoftMax(f *testing.F) {
	seed := make([]byte, 0, 4*70)
	for i := range 70 {
		v := float32(i%11) - 5
		if i%9 == 0 {
			v = float32(math.Inf(-1))
		}
		seed = binary.LittleEndian.AppendUint32(seed, math.Float32bits(v))
	}
	f.Add(seed, float32(0.125), float32(math.Inf(-1)))
	f.Add(seed[:4*9], float32(3), float32(2))
	f.Add(seed[:4*64], float32(1e-3), float32(-100))
	f.Fuzz(func(t *testing.T, raw []byte, scale, m0 float32) {
		x := make([]float32, len(raw)/4)
		for i := range x {
			x[i] = osmFuzzValue(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		}
		scale = float32(math.Abs(float64(osmFuzzValue(scale)))) + 1e-3
		if m0 = osmFuzzValue(m0); math.IsInf(float64(m0), -1) {
			m0 = float32(math.Inf(-1))
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			want := osmBuf(x, 0)
			wm, ws := ref.onlineSoftMax(want, scale, m0)
			got := osmBuf(x, 1)
			gm, gs := kt.onlineSoftMax(got, scale, m0)
			osmCheckGuard(t, name, got)
			osmCompare(t, name, got, want, gm, wm, gs, ws)
		})
	})
}

// osmFuzzValue maps any float32 onto OnlineSoftMax's domain: NaN and +Inf
// to 0, -Inf kept, finite values clamped to ±1e4.
func osmFuzzValue(v float32) float32 {
	switch {
	case v != v || math.IsInf(float64(v), 1):
		return 0
	case math.IsInf(float64(v), -1):
		return v
	}
	return max(-1e4, min(1e4, v))
}
