package quantize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

// quantWeightTypes are the quantized formats Row writes into model files.
var quantWeightTypes = []kernels.DType{kernels.Q4_0, kernels.Q4_1, kernels.Q5_0, kernels.Q5_1, kernels.Q8_0, kernels.Q2_K, kernels.Q3_K, kernels.Q4_K, kernels.Q5_K, kernels.Q6_K}

// maxRelRMSE bounds rms(dequant(quant(x)) - x) / rms(x) for Gaussian rows:
// about 1.5x what the reference quantizers reach, so a wrong packing, scale
// or sign fails while the bound stays a property of the format.
var maxRelRMSE = map[kernels.DType]float64{
	kernels.Q4_0: 0.15, kernels.Q4_1: 0.15, kernels.Q5_0: 0.075, kernels.Q5_1: 0.075, kernels.Q8_0: 0.01,
	kernels.Q2_K: 0.55, kernels.Q3_K: 0.3, kernels.Q4_K: 0.15, kernels.Q5_K: 0.075, kernels.Q6_K: 0.04,
}

func TestRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range quantWeightTypes {
		n := 4 * max(typ.BlockSize(), kernels.QK_K)
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64()) * 0.02
		}
		q := make([]byte, typ.RowBytes(n))
		Row(typ, q, x)
		y := make([]float32, n)
		kernels.DequantizeRow(typ, y, q)
		var se, sx float64
		for i := range x {
			se += sq(float64(y[i] - x[i]))
			sx += sq(float64(x[i]))
		}
		if rel := math.Sqrt(se / sx); !(rel <= maxRelRMSE[typ]) {
			t.Errorf("%v: relative rms error %.4f > %.4f", typ, rel, maxRelRMSE[typ])
		}
	}
}

// TestRowZeroAndConstant checks the degenerate blocks ggml
// special-cases: all zeros must come back as zeros, and a constant block
// must come back close to its value.
func TestRowZeroAndConstant(t *testing.T) {
	for _, typ := range quantWeightTypes {
		n := max(typ.BlockSize(), kernels.QK_K)
		for _, c := range []float32{0, 0.5, -0.25} {
			x := make([]float32, n)
			for i := range x {
				x[i] = c
			}
			q := make([]byte, typ.RowBytes(n))
			Row(typ, q, x)
			y := make([]float32, n)
			kernels.DequantizeRow(typ, y, q)
			for i := range y {
				if math.Abs(float64(y[i]-c)) > 0.01*math.Abs(float64(c)) || (c == 0 && y[i] != 0) {
					t.Fatalf("%v constant %v: value %d came back as %v", typ, c, i, y[i])
				}
			}
		}
	}
}

// TestRowQ8_0RoundsTiesAway pins the one place where weight and
// activation kernels.Q8_0 differ: with amax 127 (d = 1) the value 2.5 is a tie;
// llama-quantize (roundf) stores 3, the activation path (ties to even) 2.
func TestRowQ8_0RoundsTiesAway(t *testing.T) {
	x := make([]float32, 32)
	x[0], x[1], x[2] = 127, 2.5, -2.5
	w, a := make([]byte, 34), make([]byte, 34)
	Row(kernels.Q8_0, w, x)
	kernels.QuantizeRow(kernels.Q8_0, a, x)
	if int8(w[3]) != 3 || int8(w[4]) != -3 {
		t.Errorf("weight path: 2.5, -2.5 -> %d, %d, want 3, -3", int8(w[3]), int8(w[4]))
	}
	if int8(a[3]) != 2 || int8(a[4]) != -2 {
		t.Errorf("activation path: 2.5, -2.5 -> %d, %d, want 2, -2", int8(a[3]), int8(a[4]))
	}
}

func TestRowPanics(t *testing.T) {
	mustPanic(t, "activation-only type", func() { Row(kernels.Q8_K, make([]byte, 292), make([]float32, 256)) })
	mustPanic(t, "short dst", func() { Row(kernels.Q8_0, make([]byte, 33), make([]float32, 32)) })
	mustPanic(t, "unknown type", func() { Row(kernels.DType(16), make([]byte, 1024), make([]float32, 256)) })
}

func sq(v float64) float64 { return v * v }

// mustPanic fails t unless f panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
