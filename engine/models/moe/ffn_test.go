package moe

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// TestForwardMatchesReference runs Forward on random F32 routers and
// distinct random experts over a batch of tokens and compares every output
// with a float64 evaluation of the routing formula: softmax over all
// router logits, the k most probable experts, their probabilities divided
// by their sum (times expert_weights_scale when set), Σ w·down(silu(gate·x)
// ⊙ up·x). Router logits are spread (σ = 2) so the top-k choice is
// unambiguous; sigmoid gating, unrenormalised weights or a wrong top-k
// change outputs by far more than the 1e-4 bound (float32 accumulation).
func TestForwardMatchesReference(t *testing.T) {
	for _, c := range []struct {
		sh Shape
		n  int
	}{
		{Shape{NEmbd: 32, NExpert: 6, NUsed: 2, NFFExp: 24}, 7},
		{Shape{NEmbd: 16, NExpert: 8, NUsed: 3, NFFExp: 8, WeightsScale: 2.5}, 5},
		{Shape{NEmbd: 16, NExpert: 3, NUsed: 3, NFFExp: 8}, 1},
	} {
		t.Run(fmt.Sprintf("%d_of_%d_scale%g", c.sh.NUsed, c.sh.NExpert, c.sh.WeightsScale), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.sh.NExpert), uint64(c.n)))
			e, vals := randomWeights(rng, c.sh)
			xn := randVec(rng, c.n*c.sh.NEmbd, 1)
			s := NewScratch(c.sh, c.n)
			act := make([]byte, c.n*4*max(c.sh.NEmbd, c.sh.NFFExp))
			out := make([]float32, c.n*c.sh.NEmbd)
			s.Forward(kernels.SharedPool(1), act, e, out, xn, c.n)
			for tok := range c.n {
				want := reference(c.sh, vals, xn[tok*c.sh.NEmbd:(tok+1)*c.sh.NEmbd])
				for i, w := range want {
					if d := math.Abs(float64(out[tok*c.sh.NEmbd+i]) - w); d > 1e-4*max(1, math.Abs(w)) {
						t.Fatalf("token %d output %d: %g, reference %g", tok, i, out[tok*c.sh.NEmbd+i], w)
					}
				}
			}
		})
	}
}

// expertVals holds the float values behind the matrices, row-major.
type expertVals struct {
	router         []float32
	gate, up, down [][]float32
}

func randomWeights(rng *rand.Rand, sh Shape) (*Weights, expertVals) {
	var v expertVals
	v.router = randVec(rng, sh.NExpert*sh.NEmbd, 2/math.Sqrt(float64(sh.NEmbd)))
	e := &Weights{Router: f32Matrix("router", sh.NExpert, sh.NEmbd, v.router)}
	for range sh.NExpert {
		g := randVec(rng, sh.NFFExp*sh.NEmbd, 1/math.Sqrt(float64(sh.NEmbd)))
		u := randVec(rng, sh.NFFExp*sh.NEmbd, 1/math.Sqrt(float64(sh.NEmbd)))
		d := randVec(rng, sh.NEmbd*sh.NFFExp, 1/math.Sqrt(float64(sh.NFFExp)))
		v.gate, v.up, v.down = append(v.gate, g), append(v.up, u), append(v.down, d)
		e.Gate = append(e.Gate, f32Matrix("gate", sh.NFFExp, sh.NEmbd, g))
		e.Up = append(e.Up, f32Matrix("up", sh.NFFExp, sh.NEmbd, u))
		e.Down = append(e.Down, f32Matrix("down", sh.NEmbd, sh.NFFExp, d))
	}
	return e, v
}

func randVec(rng *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * scale)
	}
	return v
}

func f32Matrix(name string, rows, cols int, vals []float32) *engine.Matrix {
	data := make([]byte, 4*len(vals))
	for i, x := range vals {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
	}
	return &engine.Matrix{Name: name, Type: kernels.F32, Rows: rows, Cols: cols, Data: data}
}

// matVec64 is m·x in float64 for a rows × len(x) row-major m.
func matVec64(m []float32, x []float64) []float64 {
	out := make([]float64, len(m)/len(x))
	for r := range out {
		for c, xc := range x {
			out[r] += float64(m[r*len(x)+c]) * xc
		}
	}
	return out
}

// reference is the routing formula in float64 for one token.
func reference(sh Shape, v expertVals, x32 []float32) []float64 {
	x := make([]float64, len(x32))
	for i, a := range x32 {
		x[i] = float64(a)
	}
	logits := matVec64(v.router, x)
	top := slices.Max(logits)
	var z float64
	p := make([]float64, len(logits))
	for i, l := range logits {
		p[i] = math.Exp(l - top)
		z += p[i]
	}
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return -cmpFloat(p[a], p[b]) })
	sel := order[:sh.NUsed]
	var sum float64
	for _, ex := range sel {
		sum += p[ex] / z
	}
	out := make([]float64, sh.NEmbd)
	for _, ex := range sel {
		w := p[ex] / z / sum
		if sh.WeightsScale != 0 {
			w *= float64(sh.WeightsScale)
		}
		g, u := matVec64(v.gate[ex], x), matVec64(v.up[ex], x)
		for i := range g {
			g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
		}
		for i, y := range matVec64(v.down[ex], g) {
			out[i] += w * y
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
