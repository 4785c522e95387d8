package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRotationMatchesDefinition compares the butterfly rotation with the
// dense matrix definition (float64) on random vectors and on every unit
// vector, so a wrong sign vector, stage order or scale is caught.
func TestRotationMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	inputs := make([][]float32, 0, BlockSize+8)
	for i := range BlockSize {
		e := make([]float32, BlockSize)
		e[i] = 1
		inputs = append(inputs, e)
	}
	for range 8 {
		inputs = append(inputs, gaussianRow(r, BlockSize))
	}
	for _, x := range inputs {
		x64 := make([]float64, BlockSize)
		for i, v := range x {
			x64[i] = float64(v)
		}
		for _, inverse := range []bool{false, true} {
			want := denseRotate(x64, inverse)
			got := append([]float32(nil), x...)
			if inverse {
				Unrotate(got)
			} else {
				Rotate(got)
			}
			scale := norm64(x)
			for i := range got {
				// float32 butterflies: 7 rounded additions of terms bounded by
				// the norm, so a few 1e-7 of the norm.
				if d := math.Abs(float64(got[i]) - want[i]); d > 1e-6*scale {
					t.Fatalf("inverse=%v: element %d = %g, definition %g", inverse, i, got[i], want[i])
				}
			}
		}
	}
}

// TestRotationOrthogonal: inverse(forward(x)) = x and the norm is kept, to
// float32 rounding, over several groups at once.
func TestRotationOrthogonal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := gaussianRow(r, 3*BlockSize)
	y := append([]float32(nil), x...)
	Rotate(y)
	if d := math.Abs(norm64(y)/norm64(x) - 1); d > 1e-6 {
		t.Errorf("norm changed by %g", d)
	}
	Unrotate(y)
	if e := relErr(y, x); e > 1e-12 {
		t.Errorf("round trip relative error %g", e)
	}
}

// TestRotateQueryPadsAndMatchesDot: for every head size the padded rotated
// query dotted with a padded rotated key equals the plain dot (the identity
// DotKey relies on), and UnrotateOutput crops back to the head.
func TestRotateQueryPadsAndMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 64, 80, 96, 127, 128, 129, 192, 256} {
		q, k := gaussianRow(r, n), gaussianRow(r, n)
		qr, kr := make([]float32, PaddedLen(n)), make([]float32, PaddedLen(n))
		RotateQuery(qr, q)
		RotateQuery(kr, k)
		if d := math.Abs(dot64(qr, kr) - dot64(q, k)); d > 1e-5*norm64(q)*norm64(k) {
			t.Errorf("n=%d: rotated dot differs by %g", n, d)
		}
		back := make([]float32, n)
		UnrotateOutput(back, qr)
		if e := relErr(back, q); e > 1e-12 {
			t.Errorf("n=%d: UnrotateOutput(RotateQuery(q)) relative error %g", n, e)
		}
	}
}

func TestRotatePanicsOnBadLength(t *testing.T) {
	for name, f := range map[string]func(){
		"Rotate":         func() { Rotate(make([]float32, 100)) },
		"Unrotate":       func() { Unrotate(make([]float32, 129)) },
		"RotateQuery":    func() { RotateQuery(make([]float32, 80), make([]float32, 80)) },
		"UnrotateOutput": func() { UnrotateOutput(make([]float32, 80), make([]float32, 256)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s accepted a bad length", name)
				}
			}()
			f()
		}()
	}
}

// forRotateInputs calls check on the groups the assembly rotations are
// held to rotateGo's bits on: Gaussian groups of several scales, unit
// vectors, and groups holding (or made of) ±0, subnormals, huge values
// that overflow to Inf, Inf and NaN.
func forRotateInputs(r *rand.Rand, check func(label string, x *[BlockSize]float32)) {
	var x [BlockSize]float32
	for trial := range 200 {
		scale := math.Pow(10, float64(trial%13-6))
		for i := range x {
			x[i] = float32(r.NormFloat64() * scale)
		}
		check("gauss", &x)
	}
	for j := range BlockSize {
		clear(x[:])
		x[j] = 1
		check("unit", &x)
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -1e-40,
		math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, s := range specials {
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		x[r.IntN(BlockSize)] = s
		check("special", &x)
		for i := range x {
			x[i] = s
		}
		check("all special", &x)
	}
}
