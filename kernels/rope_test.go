package kernels

import (
	"math"
	"testing"
)

func plainRope(nRot int) *RopeParams {
	return &RopeParams{NRot: nRot, FreqBase: 10000, FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: 4096}
}

func closeTo(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > tolRope {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func TestRopePositionZeroIsIdentity(t *testing.T) {
	p := plainRope(8)
	cache := make([]float32, 8)
	RopeCache(cache, 0, p)
	closeTo(t, "cache", cache, []float64{1, 0, 1, 0, 1, 0, 1, 0})
	for _, neox := range []bool{false, true} {
		x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		RopeApply(x, cache, 8, neox)
		closeTo(t, "x", x, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	}
}

func TestRopeHandComputed(t *testing.T) {
	// nRot 2, pos 1: theta = 1 rad.
	cache := make([]float32, 2)
	RopeCache(cache, 1, plainRope(2))
	closeTo(t, "cache", cache, []float64{math.Cos(1), math.Sin(1)})
	x := []float32{1, 0, 42}
	RopeApply(x, cache, 2, false)
	closeTo(t, "x", x, []float64{math.Cos(1), math.Sin(1), 42})

	// nRot 4, pos 3, base 10000: theta_0 = 3, theta_1 = 3 * 10000^(-1/2) = 0.03.
	c4 := make([]float32, 4)
	RopeCache(c4, 3, plainRope(4))
	t0, t1 := 3.0, 0.03
	closeTo(t, "cache", c4, []float64{math.Cos(t0), math.Sin(t0), math.Cos(t1), math.Sin(t1)})
	rot := func(a, b, th float64) (float64, float64) {
		return a*math.Cos(th) - b*math.Sin(th), a*math.Sin(th) + b*math.Cos(th)
	}
	a, b, c, d := 0.5, -1.0, 2.0, 0.25
	// Normal: pairs (x0,x1) with theta_0 and (x2,x3) with theta_1.
	n0, n1 := rot(a, b, t0)
	n2, n3 := rot(c, d, t1)
	x = []float32{float32(a), float32(b), float32(c), float32(d), 9}
	RopeApply(x, c4, 4, false)
	closeTo(t, "normal", x, []float64{n0, n1, n2, n3, 9})
	// Neox: pairs (x0,x2) with theta_0 and (x1,x3) with theta_1.
	e0, e2 := rot(a, c, t0)
	e1, e3 := rot(b, d, t1)
	x = []float32{float32(a), float32(b), float32(c), float32(d), 9}
	RopeApply(x, c4, 4, true)
	closeTo(t, "neox", x, []float64{e0, e1, e2, e3, 9})
}

func TestRopeFreqFactors(t *testing.T) {
	p := plainRope(4)
	p.FreqFactors = []float32{1, 4}
	c := make([]float32, 4)
	RopeCache(c, 10, p)
	// theta_1 = 10 * 0.01 / 4.
	closeTo(t, "cache", c, []float64{math.Cos(10), math.Sin(10), math.Cos(0.025), math.Sin(0.025)})
	p.FreqFactors = []float32{1}
	mustPanic(t, "short FreqFactors", func() { RopeCache(c, 1, p) })
}

// TestRopeLongPositions compares against cos/sin of the angles ggml defines:
// theta_i built by the float32 recurrence from pos, evaluated in float64.
func TestRopeLongPositions(t *testing.T) {
	const n = 128
	p := plainRope(n)
	c := make([]float32, n)
	for _, pos := range []int{1, 17, 4095, 100000} {
		RopeCache(c, pos, p)
		ts := float32(math.Pow(10000, float64(float32(-2)/n)))
		theta := float32(pos)
		want := make([]float64, n)
		for i := 0; i < n; i += 2 {
			want[i], want[i+1] = math.Cos(float64(theta)), math.Sin(float64(theta))
			theta *= ts
		}
		closeTo(t, "cache", c, want)
	}
}

func TestRopeYaRN(t *testing.T) {
	const n = 64
	c0, c1 := make([]float32, n), make([]float32, n)
	// ext_factor 0 is the plain path, also with a frequency scale.
	p := plainRope(n)
	p.FreqScale = 0.25
	RopeCache(c0, 100, p)
	ts := math.Pow(10000, -2.0/n)
	want := make([]float64, n)
	for i := 0; i < n; i += 2 {
		th := 100 * math.Pow(ts, float64(i/2)) * 0.25
		want[i], want[i+1] = math.Cos(th), math.Sin(th)
	}
	closeTo(t, "ext 0", c0, want)

	// ext_factor 1: the YaRN formulas in float64.
	p.ExtFactor, p.AttnFactor, p.NCtxOrig = 1, 1, 2048
	RopeCache(c1, 100, p)
	corr := func(beta float64) float64 {
		return n * math.Log(2048/(beta*2*math.Pi)) / (2 * math.Log(10000))
	}
	lo := math.Max(0, math.Floor(corr(32)))
	hi := math.Min(n-1, math.Ceil(corr(1)))
	mscale := 1 + 0.1*math.Log(1/0.25)
	for i := 0; i < n; i += 2 {
		ext := 100 * math.Pow(ts, float64(i/2))
		y := (float64(i/2) - lo) / math.Max(0.001, hi-lo)
		mix := 1 - math.Min(1, math.Max(0, y))
		th := ext*0.25*(1-mix) + ext*mix
		want[i], want[i+1] = math.Cos(th)*mscale, math.Sin(th)*mscale
	}
	closeTo(t, "yarn", c1, want)
	if l, h := RopeYarnCorrDims(n, 2048, 10000, 32, 1); float64(l) != lo || float64(h) != hi {
		t.Errorf("corr dims %v %v, want %v %v", l, h, lo, hi)
	}
	// attn_factor scales both.
	p.ExtFactor, p.FreqScale, p.AttnFactor = 0, 1, 2
	RopeCache(c1, 0, p)
	if c1[0] != 2 || c1[1] != 0 {
		t.Errorf("attn factor 2 at pos 0: %v %v", c1[0], c1[1])
	}
}

func TestRopePanics(t *testing.T) {
	c := make([]float32, 8)
	mustPanic(t, "odd nRot", func() { RopeApply(make([]float32, 8), c, 3, false) })
	mustPanic(t, "short x", func() { RopeApply(make([]float32, 4), c, 8, false) })
	mustPanic(t, "short cache", func() { RopeCache(c[:4], 1, plainRope(8)) })
}
