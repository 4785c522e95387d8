package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestVecDotMatchesDequantizedDot checks, for every weight type and 1..8
// blocks, VecDot(t, w, QuantizeRow(VecDotType, x)) against the float64 dot of
// the dequantized weights and activations, on every implementation.
func TestVecDotMatchesDequantizedDot(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		r := newRand(1)
		for _, typ := range weightTypes {
			for _, n := range sweepSizes(typ) {
				for rep := 0; rep < 3; rep++ {
					w := randomWeights(r, typ, n)
					xq, xd := quantizeActs(typ, randomActs(r, n))
					want, allowed := dotBound(typ, w, xq, xd)
					got := kt.vecDot[typ](n, w, xq)
					if math.Abs(float64(got)-want) > allowed {
						t.Errorf("%v n=%d rep=%d: VecDot=%g, dequantized dot=%g, |diff|=%g > %g",
							typ, n, rep, got, want, math.Abs(float64(got)-want), allowed)
					}
				}
			}
		}
	})
}

// TestVecDotExactIntegers uses unit scales so that every product is a small
// integer: VecDot must then equal the exact integer dot, which checks the
// integer accumulation independently of float rounding.
func TestVecDotExactIntegers(t *testing.T) {
	r := newRand(2)
	one := F32ToF16(1)
	for _, typ := range weightTypes {
		if typ.BlockSize() == 1 {
			continue
		}
		n := 4 * typ.BlockSize()
		w := randomWeights(r, typ, n)
		sanitizeScales(typ, w, func() uint16 { return one })
		// Activations: integers in [-127, 127] so that the q8 scale is 1.
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.IntN(255) - 127)
		}
		for b := 0; b < n; b += 32 {
			x[b] = 127 // every q8_0/q8_1 block has amax 127 -> d = 1
		}
		for b := 0; b < n; b += QK_K {
			x[b] = -127 // q8_K: max = -127 -> iscale = 1, d = 1
		}
		xq, xd := quantizeActs(typ, x)
		for i := range x {
			if xd[i] != x[i] {
				t.Fatalf("%v: activation %d quantized to %v, want exactly %v", typ, i, xd[i], x[i])
			}
		}
		wd := make([]float32, n)
		DequantizeRow(typ, wd, w)
		var want float64
		for i := range wd {
			if wd[i] != float32(math.Trunc(float64(wd[i]))) {
				t.Fatalf("%v: weight %d = %v is not an integer with unit scales", typ, i, wd[i])
			}
			want += float64(wd[i]) * float64(x[i])
		}
		if got := VecDot(typ, n, w, xq); float64(got) != want {
			t.Errorf("%v: VecDot=%v, exact integer dot=%v", typ, got, want)
		}
	}
}

// TestVecDotImplsMatchGeneric cross-checks every non-generic implementation
// against the generic one on length sweeps, misaligned starts and guard
// bands (bytes after the row that must be ignored).
func TestVecDotImplsMatchGeneric(t *testing.T) {
	ref, _ := resolve("generic")
	for _, name := range nonGenericImpls(t) {
		kt, err := resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			r := newRand(3)
			for _, typ := range weightTypes {
				for _, n := range sweepSizes(typ) {
					w := randomWeights(r, typ, n)
					xq, xd := quantizeActs(typ, randomActs(r, n))
					for _, shift := range []int{0, 1, 3} {
						ws := append(make([]byte, shift), w...)[shift:]
						xs := append(make([]byte, shift), xq...)[shift:]
						want := ref.vecDot[typ](n, w, xq)
						got := kt.vecDot[typ](n, ws, xs)
						_, allowed := dotBound(typ, w, xq, xd)
						allowed *= tolVecDotImpl / tolVecDotDequant
						if math.Abs(float64(got-want)) > allowed {
							t.Errorf("%v n=%d shift=%d: %s=%g generic=%g", typ, n, shift, name, got, want)
						}
					}
				}
			}
		})
	}
}

func TestMatVec(t *testing.T) {
	r := newRand(4)
	for _, typ := range weightTypes {
		n := 2 * typ.BlockSize()
		if typ.BlockSize() == 1 {
			n = 64
		}
		const rows = 5
		rb := typ.RowBytes(n)
		w := randomWeights(r, typ, rows*n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		dst := make([]float32, rows+2)
		dst[rows], dst[rows+1] = 42, 43 // guard band
		MatVec(typ, dst[:rows], w, xq, n)
		for i := 0; i < rows; i++ {
			if want := VecDot(typ, n, w[i*rb:(i+1)*rb], xq); dst[i] != want {
				t.Errorf("%v row %d: MatVec=%v VecDot=%v", typ, i, dst[i], want)
			}
		}
		if dst[rows] != 42 || dst[rows+1] != 43 {
			t.Errorf("%v: MatVec wrote past len(dst)", typ)
		}
	}
}

func TestVecDotPanics(t *testing.T) {
	q4 := make([]byte, Q4_0.RowBytes(64))
	q8 := make([]byte, Q8_0.RowBytes(64))
	cases := []struct {
		name string
		f    func()
	}{
		{"n not multiple", func() { VecDot(Q4_0, 48, q4, q8) }},
		{"short weights", func() { VecDot(Q4_0, 64, q4[:len(q4)-1], q8) }},
		{"short acts", func() { VecDot(Q4_0, 64, q4, q8[:len(q8)-1]) }},
		{"unsupported type", func() { VecDot(Q8_K, 256, make([]byte, 292), make([]byte, 292)) }},
		{"unknown type", func() { VecDot(DType(4), 32, q4, q8) }},
		{"matvec short w", func() { MatVec(Q4_0, make([]float32, 2), q4, q8, 64) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				v := recover()
				if v == nil {
					t.Fatal("no panic")
				}
				if s := fmt.Sprint(v); !strings.HasPrefix(s, "kernels:") {
					t.Fatalf("panic %q does not start with kernels:", s)
				}
			}()
			c.f()
		})
	}
}

// TestVecDotZeroLength: n = 0 is a valid empty dot.
func TestVecDotZeroLength(t *testing.T) {
	for _, typ := range weightTypes {
		if got := VecDot(typ, 0, nil, nil); got != 0 {
			t.Errorf("%v: VecDot of nothing = %v", typ, got)
		}
	}
}

// TestNoAllocs guards the decode hot path: the kernels never allocate.
func TestNoAllocs(t *testing.T) {
	r := newRand(30)
	const n = 512
	w := randomWeights(r, Q4_K, 4*n)
	x := randomActs(r, n)
	xq := make([]byte, Q8_K.RowBytes(n))
	dst := make([]float32, 4)
	cache := make([]float32, 64)
	p := plainRope(64)
	allocs := testing.AllocsPerRun(20, func() {
		QuantizeRow(Q8_K, xq, x)
		MatVec(Q4_K, dst, w, xq, n)
		RMSNorm(x, x, 1e-5)
		SoftMax(x)
		SwiGLU(x, x, x)
		RopeCache(cache, 7, p)
		RopeApply(x, cache, 64, true)
	})
	if allocs != 0 {
		t.Errorf("kernels allocated %v times per run", allocs)
	}
}
