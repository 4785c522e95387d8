package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Round-trip budgets: mean relative MSE ||x̂-x||²/||x||² over seeded N(0,1)
// rows, in the original domain. Each budget is 10% above the larger of the
// doc's independent re-implementation (§7 "Round-trip sanity check":
// turbo4 0.0086, turbo3 0.034, turbo3_tcq 0.021, turbo2 0.118,
// turbo2_tcq 0.079, on 6 vectors) and, for the scalar types, the Lloyd-Max
// distortion of a unit Gaussian (0.009497, 0.03454, 0.1175 at 4, 3, 2 bits),
// which those levels are designed to reach. With 400 rows the standard error
// of the mean is about 1% of it, so 10% is a real margin, not noise.
// The floor is the Gaussian rate-distortion bound 2^(-2·bits): no b-bit
// code can do better, so a result under it means the test itself is broken.
var mseBudget = map[Type]float64{
	Turbo4:    1.10 * 0.009497,
	Turbo3:    1.10 * 0.03454,
	Turbo2:    1.10 * 0.1175,
	Turbo3TCQ: 1.10 * 0.021,
	Turbo2TCQ: 1.10 * 0.079,
}

// Dot budget: for a query independent of the quantisation error, the
// normalised dot error (q·x̂ - q·x)/(||q||·||x||) has variance relMSE/d when
// the error is spread evenly over d dimensions of the head. d is at most n:
// for n = 64 the scalar types keep all their error inside the head (the
// 128-point Hadamard of a vector supported on the first 64 coordinates
// repeats each value, up to sign, at i and i+64, the two copies quantise
// alike, and the error stays in that 64-dim subspace), so the budget uses
// d = n. The RMS over rows must stay within 1.25 times sqrt(budget/n).
const dotBudgetFactor = 1.25

func TestRoundTripBudgets(t *testing.T) {
	for _, typ := range Types {
		t.Run(typ.String(), func(t *testing.T) {
			for _, n := range []int{128, 64, 80, 256} {
				r := rand.New(rand.NewPCG(uint64(typ), uint64(n)))
				rows := 400 * 128 / max(n, 128)
				var mse, dotSq float64
				for range rows {
					x, q := gaussianRow(r, n), gaussianRow(r, n)
					y := mustDecode(t, typ, mustEncode(t, typ, x), n)
					mse += relErr(y, x)
					e := (dot64(q, y) - dot64(q, x)) / (norm64(q) * norm64(x))
					dotSq += e * e
				}
				mse /= float64(rows)
				dotRMS := math.Sqrt(dotSq / float64(rows))
				// Padding (n < 128) can push part of the error into the cropped
				// tail (TCQ: about half), so the floor holds only for whole groups.
				budget, floor := mseBudget[typ], math.Pow(2, -2*float64(typ.Bits()))
				if n%BlockSize != 0 {
					floor = 0
				}
				dotBudget := dotBudgetFactor * math.Sqrt(budget/float64(n))
				t.Logf("n=%3d rows=%3d relMSE %.5f (budget %.5f, floor %.5f) dot RMS %.5f (budget %.5f)",
					n, rows, mse, budget, floor, dotRMS, dotBudget)
				if mse > budget || mse < floor {
					t.Errorf("n=%d: relative MSE %.5f outside [%.5f, %.5f]", n, mse, floor, budget)
				}
				if dotRMS > dotBudget {
					t.Errorf("n=%d: normalised dot RMS error %.5f over %.5f", n, dotRMS, dotBudget)
				}
			}
		})
	}
}

// TestTCQBeatsScalar: at equal index bits the trellis must do better than
// the scalar quantiser (the reason it exists; 10-44% in the buun paper).
func TestTCQBeatsScalar(t *testing.T) {
	for scalar, tcq := range map[Type]Type{Turbo3: Turbo3TCQ, Turbo2: Turbo2TCQ} {
		r := rand.New(rand.NewPCG(21, uint64(tcq)))
		var es, et float64
		for range 100 {
			x := gaussianRow(r, 128)
			es += relErr(mustDecode(t, scalar, mustEncode(t, scalar, x), 128), x)
			et += relErr(mustDecode(t, tcq, mustEncode(t, tcq, x), 128), x)
		}
		if et > 0.9*es {
			t.Errorf("%s error %.4f is not 10%% below %s's %.4f", tcq, et/100, scalar, es/100)
		}
	}
}

// TestCorrectedNormKeepsLength: the stored norm makes the decoded rotated
// group exactly as long as the input group, up to fp16 rounding of N
// (2^-11 relative) and float32 sums; scaling the input scales N.
func TestCorrectedNormKeepsLength(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, typ := range Types {
		for _, scale := range []float32{1e-3, 1, 37, 900} {
			x := gaussianRow(r, 128)
			for i := range x {
				x[i] *= scale
			}
			z := make([]float32, 128)
			if err := typ.DecodeRotated(z, mustEncode(t, typ, x)); err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(norm64(z)/norm64(x) - 1); d > 6e-4 {
				t.Errorf("%s scale %g: decoded norm off by %.2e", typ, scale, d)
			}
		}
	}
}

// TestPaddingIsZero: the padded tail of a short head is encoded as zeros,
// so a row encodes the same as the explicitly zero-padded vector.
func TestPaddingIsZero(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, typ := range Types {
		for _, n := range []int{64, 80, 200} {
			x := gaussianRow(r, n)
			padded := make([]float32, PaddedLen(n))
			copy(padded, x)
			a, b := mustEncode(t, typ, x), mustEncode(t, typ, padded)
			if string(a) != string(b) {
				t.Errorf("%s n=%d: short row and zero-padded row encode differently", typ, n)
			}
		}
	}
}

// TestNonFiniteInputs: Inf and NaN are not rejected and do not panic; they
// poison the group's norm like on the GPU, and leave other groups intact.
func TestNonFiniteInputs(t *testing.T) {
	for _, typ := range Types {
		for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN()), 1e30} {
			x := make([]float32, 256)
			for i := range x {
				x[i] = float32(i%7) - 3
			}
			x[5] = bad
			y := mustDecode(t, typ, mustEncode(t, typ, x), 256)
			for i := 128; i < 256; i++ {
				if math.IsNaN(float64(y[i])) || math.IsInf(float64(y[i]), 0) {
					t.Fatalf("%s: bad value in group 0 leaked into group 1", typ)
				}
			}
		}
	}
}
