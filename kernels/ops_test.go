package kernels

import (
	"math"
	"testing"
)

func relErr(got float32, want float64) float64 {
	return math.Abs(float64(got)-want) / math.Max(math.Abs(want), 1e-30)
}

func TestRMSNorm(t *testing.T) {
	r := newRand(9)
	for _, n := range []int{1, 2, 7, 64, 1000} {
		x := randomActs(r, n)
		dst := make([]float32, n)
		const eps = 1e-5
		RMSNorm(dst, x, eps)
		var ss float64
		for _, v := range x {
			ss += float64(v) * float64(v)
		}
		scale := 1 / math.Sqrt(ss/float64(n)+eps)
		for i := range x {
			if e := relErr(dst[i], float64(x[i])*scale); e > tolRMSNorm {
				t.Fatalf("n=%d i=%d: %v vs %v (rel %g)", n, i, dst[i], float64(x[i])*scale, e)
			}
		}
		RMSNorm(x, x, eps) // in place gives the same bits
		for i := range x {
			if x[i] != dst[i] {
				t.Fatalf("in-place RMSNorm differs at %d", i)
			}
		}
	}
	// Hand case: x = (3, 4): mean square 12.5, eps 0 -> scale 1/sqrt(12.5).
	dst := make([]float32, 2)
	RMSNorm(dst, []float32{3, 4}, 0)
	if relErr(dst[0], 3/math.Sqrt(12.5)) > tolRMSNorm || relErr(dst[1], 4/math.Sqrt(12.5)) > tolRMSNorm {
		t.Errorf("RMSNorm(3,4) = %v", dst)
	}
	mustPanic(t, "length mismatch", func() { RMSNorm(make([]float32, 2), make([]float32, 3), 0) })
	mustPanic(t, "empty", func() { RMSNorm(nil, nil, 0) })
	mustPanic(t, "negative eps", func() { RMSNorm(dst, dst, -1) })
}

func TestSoftMax(t *testing.T) {
	r := newRand(10)
	for _, n := range []int{1, 3, 16, 100, 5000} {
		x := randomActs(r, n)
		for i := range x {
			x[i] *= 4
		}
		mx := math.Inf(-1)
		for _, v := range x {
			mx = math.Max(mx, float64(v))
		}
		want := make([]float64, n)
		var sum float64
		for i, v := range x {
			// ggml subtracts the max in float32; that rounding is part of
			// the semantics (it dominates for large differences).
			want[i] = math.Exp(float64(v - float32(mx)))
			sum += want[i]
		}
		SoftMax(x)
		var total float64
		for i := range x {
			if e := relErr(x[i], want[i]/sum); e > tolSoftMax && want[i]/sum > 1e-30 {
				t.Fatalf("n=%d i=%d: %v vs %v", n, i, x[i], want[i]/sum)
			}
			total += float64(x[i])
		}
		if math.Abs(total-1) > 1e-5 {
			t.Fatalf("n=%d: sum %v", n, total)
		}
	}
	// Masked entries and shift invariance by hand: softmax(0, ln 3, -inf) = (1/4, 3/4, 0).
	x := []float32{1000, 1000 + float32(math.Log(3)), float32(math.Inf(-1))}
	SoftMax(x)
	if relErr(x[0], 0.25) > 1e-4 || relErr(x[1], 0.75) > 1e-4 || x[2] != 0 {
		t.Errorf("SoftMax = %v", x)
	}
	SoftMax(nil)
}

func TestSiLUAndSwiGLU(t *testing.T) {
	if SiLU(0) != 0 || SiLU(100) != 100 || SiLU(-100) != 0 {
		t.Errorf("SiLU specials: %v %v %v", SiLU(0), SiLU(100), SiLU(-100))
	}
	if relErr(SiLU(1), 1/(1+math.Exp(-1))) > tolSwiGLU {
		t.Errorf("SiLU(1) = %v", SiLU(1))
	}
	r := newRand(12)
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, n := range []int{0, 1, 7, 8, 9, 31, 33, 257} {
			g, u := randomActs(r, n), randomActs(r, n)
			dst := make([]float32, n+1)
			dst[n] = 7
			kt.swiGLU(dst[:n], g, u)
			for i := 0; i < n; i++ {
				gv, uv := float64(g[i]), float64(u[i])
				want := gv / (1 + math.Exp(-gv)) * uv
				if math.Abs(float64(dst[i])-want) > tolSwiGLU*math.Max(math.Abs(want), 1e-6) {
					t.Fatalf("n=%d i=%d: %v vs %v", n, i, dst[i], want)
				}
			}
			if dst[n] != 7 {
				t.Fatalf("n=%d: wrote past dst", n)
			}
		}
	})
	mustPanic(t, "length mismatch", func() { SwiGLU(make([]float32, 2), make([]float32, 2), make([]float32, 1)) })
}

func TestDotAddMulScale(t *testing.T) {
	r := newRand(13)
	forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
		for _, n := range []int{0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000} {
			a, b := randomActs(r, n), randomActs(r, n)
			var want, mag float64
			for i := range a {
				p := float64(a[i]) * float64(b[i])
				want += p
				mag += math.Abs(p)
			}
			if got := kt.dot(a, b); math.Abs(float64(got)-want) > tolDotImpl*mag+1e-30 {
				t.Errorf("dot n=%d: %v vs %v", n, got, want)
			}
			sum, prod := make([]float32, n), make([]float32, n)
			kt.add(sum, a, b)
			kt.mul(prod, a, b)
			sc := append([]float32(nil), a...)
			kt.scale(sc, 0.375)
			for i := range a {
				if sum[i] != a[i]+b[i] || prod[i] != a[i]*b[i] || sc[i] != a[i]*0.375 {
					t.Fatalf("n=%d i=%d: add/mul/scale wrong", n, i)
				}
			}
		}
	})
	if got := Dot([]float32{1, 2, 3}, []float32{4, 5, 6}); got != 32 {
		t.Errorf("Dot = %v, want 32", got)
	}
	a := []float32{1, 2}
	Add(a, a, a) // aliasing allowed
	Mul(a, a, []float32{3, 4})
	Scale(a, 0.5)
	if a[0] != 3 || a[1] != 8 {
		t.Errorf("Add/Mul/Scale aliasing: %v", a)
	}
	mustPanic(t, "Dot length", func() { Dot(a, a[:1]) })
	mustPanic(t, "Add length", func() { Add(a, a, a[:1]) })
	mustPanic(t, "Mul length", func() { Mul(a[:1], a, a) })
}

func TestArgMax(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		x    []float32
		want int
	}{
		{nil, -1},
		{[]float32{1}, 0},
		{[]float32{1, 3, 2, 3}, 1},
		{[]float32{-5, -1, -1}, 1},
		{[]float32{nan, 2, 5, 5}, 2},
		{[]float32{nan, nan}, 0},
		{[]float32{float32(math.Inf(-1)), -1e30}, 1},
	}
	for _, c := range cases {
		if got := ArgMax(c.x); got != c.want {
			t.Errorf("ArgMax(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
