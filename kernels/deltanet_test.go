package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// deltaInputs are n tokens of one head: L2-normalised k, q scaled by
// 1/sqrt(dk) after normalising, values, log-decays in [gMin, 0] and betas
// in (0, 1), plus a random initial state.
type deltaInputs struct {
	dk, dv, n    int
	s0, q, k, v  []float32
	g, beta      []float32
	decay, gamma []float32 // exp(g), for the per-token form
}

func newDeltaInputs(r *rand.Rand, dk, dv, n int, gMin float64) *deltaInputs {
	in := &deltaInputs{dk: dk, dv: dv, n: n}
	in.s0 = randVec(r, dk*dv, 0.5)
	in.q, in.k, in.v = randVec(r, n*dk, 1), randVec(r, n*dk, 1), randVec(r, n*dv, 1)
	for t := range n {
		L2Norm(in.k[t*dk:(t+1)*dk], in.k[t*dk:(t+1)*dk], 1e-6)
		L2Norm(in.q[t*dk:(t+1)*dk], in.q[t*dk:(t+1)*dk], 1e-6)
		Scale(in.q[t*dk:(t+1)*dk], float32(1/math.Sqrt(float64(dk))))
	}
	in.g, in.beta, in.decay = make([]float32, n), make([]float32, n), make([]float32, n)
	for t := range n {
		in.g[t] = float32(gMin * r.Float64())
		in.beta[t] = float32(1 / (1 + math.Exp(-2*r.NormFloat64())))
		in.decay[t] = float32(math.Exp(float64(in.g[t])))
	}
	return in
}

func randVec(r *rand.Rand, n int, sd float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(sd * r.NormFloat64())
	}
	return x
}

// deltaRef64 is the recurrence of architectures.md §1.4 in float64, token
// by token: S ← e^g S; δ = β(v − Sᵀk); S ← S + kδᵀ; o = Sᵀq. It also
// returns, per output, the sum of the magnitudes of its terms Σ_i|S_ij·q_i|,
// and the largest state magnitude, the scales the tolerances are written in.
func deltaRef64(in *deltaInputs) (out, state []float64, outTerms []float64, stateScale float64) {
	dk, dv := in.dk, in.dv
	s := make([]float64, dk*dv)
	for i, x := range in.s0 {
		s[i] = float64(x)
	}
	out, outTerms = make([]float64, in.n*dv), make([]float64, in.n*dv)
	for t := range in.n {
		q, k := in.q[t*dk:(t+1)*dk], in.k[t*dk:(t+1)*dk]
		e := math.Exp(float64(in.g[t]))
		for j := range dv {
			row := s[j*dk : (j+1)*dk]
			var u float64
			for i := range row {
				row[i] *= e
				u += row[i] * float64(k[i])
			}
			d := float64(in.beta[t]) * (float64(in.v[t*dv+j]) - u)
			var o, terms float64
			for i := range row {
				row[i] += float64(k[i]) * d
				o += row[i] * float64(q[i])
				terms += math.Abs(row[i] * float64(q[i]))
			}
			out[t*dv+j], outTerms[t*dv+j] = o, terms
		}
	}
	for _, x := range s {
		stateScale = math.Max(stateScale, math.Abs(x))
	}
	return out, s, outTerms, stateScale
}

// chunkTerms returns, per output of the chunked form, the sum of the
// magnitudes of the terms it adds up: |e^{Γ_t}·(S0ᵀq_t)_j| plus
// Σ_{u≤t} e^{Γ_t-Γ_u}·|k_u·q_t|·|δ_u[j]| within the token's chunk, from
// the float64 recurrence (S0 the state at the chunk start). The chunked form
// cancels these terms against each other, so its rounding error scales with
// them rather than with the per-token terms.
func chunkTerms(in *deltaInputs) []float64 {
	dk, dv := in.dk, in.dv
	s := make([]float64, dk*dv)
	for i, x := range in.s0 {
		s[i] = float64(x)
	}
	terms := make([]float64, in.n*dv)
	delta := make([]float64, in.n*dv)
	s0 := make([]float64, dk*dv)
	var cum, kq []float64
	for t := range in.n {
		if t%DeltaChunkSize == 0 {
			copy(s0, s)
			cum = cum[:0]
		}
		prev := 0.0
		if len(cum) > 0 {
			prev = cum[len(cum)-1]
		}
		cum = append(cum, prev+float64(in.g[t]))
		q, k := in.q[t*dk:(t+1)*dk], in.k[t*dk:(t+1)*dk]
		e := math.Exp(float64(in.g[t]))
		for j := range dv {
			row := s[j*dk : (j+1)*dk]
			var u float64
			for i := range row {
				row[i] *= e
				u += row[i] * float64(k[i])
			}
			d := float64(in.beta[t]) * (float64(in.v[t*dv+j]) - u)
			delta[t*dv+j] = d
			for i := range row {
				row[i] += float64(k[i]) * d
			}
		}
		c0, tc := t-t%DeltaChunkSize, len(cum)-1
		kq = kq[:0]
		for u := c0; u <= t; u++ {
			var d float64
			for i := range dk {
				d += float64(in.k[u*dk+i]) * float64(q[i])
			}
			kq = append(kq, math.Exp(cum[tc]-cum[u-c0])*math.Abs(d))
		}
		for j := range dv {
			var s0q float64
			for i := range dk {
				s0q += s0[j*dk+i] * float64(q[i])
			}
			sum := math.Exp(cum[tc]) * math.Abs(s0q)
			for u := c0; u <= t; u++ {
				sum += kq[u-c0] * math.Abs(delta[u*dv+j])
			}
			terms[t*dv+j] = sum
		}
	}
	return terms
}

// normErr returns max_i |got_i - want_i| / scale_i (scale from one value
// when len(scale) == 1).
func normErr[T float32 | float64](got []float32, want []T, scale []float64) float64 {
	var worst float64
	for i := range got {
		sc := scale[0]
		if len(scale) > 1 {
			sc = scale[i]
		}
		e := math.Abs(float64(got[i])-float64(want[i])) / max(sc, 1e-30)
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		worst = max(worst, e)
	}
	return worst
}

// runSteps runs GatedDeltaStep token by token from in.s0.
func runSteps(in *deltaInputs) (out, state []float32) {
	state = append([]float32(nil), in.s0...)
	out = make([]float32, in.n*in.dv)
	dk, dv := in.dk, in.dv
	for t := range in.n {
		GatedDeltaStep(state, in.q[t*dk:(t+1)*dk], in.k[t*dk:(t+1)*dk], in.v[t*dv:(t+1)*dv], out[t*dv:(t+1)*dv], in.decay[t], in.beta[t])
	}
	return out, state
}

func runChunked(in *deltaInputs) (out, state []float32) {
	state = append([]float32(nil), in.s0...)
	out = make([]float32, in.n*in.dv)
	GatedDeltaChunk(state, in.q, in.k, in.v, out, in.g, in.beta, in.n, make([]float32, DeltaChunkScratchLen(in.dv)))
	return out, state
}

var deltaShapes = []struct{ dk, dv int }{{1, 1}, {3, 5}, {16, 16}, {32, 32}, {64, 48}, {128, 128}}

func TestGatedDeltaStepMatchesFloat64(t *testing.T) {
	r := newRand(81)
	for _, sh := range deltaShapes {
		for _, gMin := range []float64{0, -0.5, -8} {
			in := newDeltaInputs(r, sh.dk, sh.dv, 40, gMin)
			out, st := runSteps(in)
			wantOut, wantSt, terms, scale := deltaRef64(in)
			if e := normErr(out, wantOut, terms); e > tolDeltaStep {
				t.Errorf("dk=%d dv=%d gMin=%g: output error %.3g > %.3g", sh.dk, sh.dv, gMin, e, tolDeltaStep)
			}
			if e := normErr(st, wantSt, []float64{scale}); e > tolDeltaStep {
				t.Errorf("dk=%d dv=%d gMin=%g: state error %.3g > %.3g", sh.dk, sh.dv, gMin, e, tolDeltaStep)
			}
		}
	}
}

// TestGatedDeltaChunkMatchesStep: the chunked form gives the per-token
// results within tolDeltaChunk at every chunk boundary case, with no decay,
// mild decay and decay strong enough to underflow exp(Γ) within a chunk,
// and also stays within tolDeltaChunk of the float64 recurrence.
func TestGatedDeltaChunkMatchesStep(t *testing.T) {
	r := newRand(82)
	for _, sh := range deltaShapes {
		for _, n := range []int{1, 2, 7, DeltaChunkSize - 1, DeltaChunkSize, DeltaChunkSize + 1, 2*DeltaChunkSize + 5} {
			for _, gMin := range []float64{0, -0.3, -20} {
				in := newDeltaInputs(r, sh.dk, sh.dv, n, gMin)
				out, st := runChunked(in)
				refOut, refSt := runSteps(in)
				wantOut, wantSt, _, scale := deltaRef64(in)
				terms := chunkTerms(in)
				name := fmt.Sprintf("dk=%d dv=%d n=%d gMin=%g", sh.dk, sh.dv, n, gMin)
				if e := normErr(out, refOut, terms); e > tolDeltaChunk {
					t.Errorf("%s: output differs from per-token by %.3g > %.3g", name, e, tolDeltaChunk)
				}
				if e := normErr(st, refSt, []float64{scale}); e > tolDeltaChunk {
					t.Errorf("%s: state differs from per-token by %.3g > %.3g", name, e, tolDeltaChunk)
				}
				if e := max(normErr(out, wantOut, terms), normErr(st, wantSt, []float64{scale})); e > tolDeltaChunk {
					t.Errorf("%s: differs from float64 by %.3g > %.3g", name, e, tolDeltaChunk)
				}
			}
		}
	}
}

// TestGatedDeltaChunkCatchesWrongDecay is a test of the test: dropping the
// within-chunk decay (treating every g as 0 inside the solve) must be far
// outside tolDeltaChunk, so the comparison above can fail.
func TestGatedDeltaChunkCatchesWrongDecay(t *testing.T) {
	in := newDeltaInputs(newRand(83), 16, 16, 20, -0.5)
	refOut, _ := runSteps(in)
	_, _, terms, _ := deltaRef64(in)
	wrong := *in
	wrong.g = make([]float32, in.n)
	out, _ := runChunked(&wrong)
	if e := normErr(out, refOut, terms); e < 100*tolDeltaChunk {
		t.Fatalf("a chunked run without decay is only %.3g from the decayed per-token run", e)
	}
}

func TestConvSiLUStep(t *testing.T) {
	r := newRand(84)
	for _, kTaps := range []int{1, 2, 4, 5} {
		for _, c := range []int{1, 7, 8, 33, 256} {
			w := randVec(r, kTaps*c, 0.5)
			state := randVec(r, (kTaps-1)*c, 1)
			hist := make([][]float32, 0, 16) // inputs in time order, oldest first
			for j := range kTaps - 1 {
				hist = append(hist, append([]float32(nil), state[j*c:(j+1)*c]...))
			}
			out := make([]float32, c)
			for step := range 6 {
				x := randVec(r, c, 1)
				ConvSiLUStep(out, state, x, w, kTaps)
				hist = append(hist, x)
				win := hist[len(hist)-kTaps:]
				for ch := range c {
					var sum, terms float64
					for j := range kTaps {
						p := float64(w[j*c+ch]) * float64(win[j][ch])
						sum += p
						terms += math.Abs(p)
					}
					want := sum / (1 + math.Exp(-sum))
					if e := math.Abs(float64(out[ch]) - want); e > tolDeltaElementwise*(terms+1e-30) {
						t.Fatalf("K=%d C=%d step %d ch %d: got %v want %v", kTaps, c, step, ch, out[ch], want)
					}
				}
				for j := range kTaps - 1 {
					for ch := range c {
						if state[j*c+ch] != win[j+1][ch] {
							t.Fatalf("K=%d C=%d step %d: state row %d is not the input %d steps back", kTaps, c, step, j, kTaps-1-j)
						}
					}
				}
			}
		}
	}
}

func TestL2NormAndGatedRMSNorm(t *testing.T) {
	r := newRand(85)
	for _, n := range []int{1, 3, 32, 128, 129} {
		x, w, z := randVec(r, n, 2), randVec(r, n, 1), randVec(r, n, 3)
		dst := make([]float32, n)
		L2Norm(dst, x, 1e-6)
		var ss float64
		for _, v := range x {
			ss += float64(v) * float64(v)
		}
		for i := range x {
			want := float64(x[i]) / math.Sqrt(ss)
			if e := math.Abs(float64(dst[i]) - want); e > tolDeltaElementwise*math.Abs(want)+1e-30 {
				t.Fatalf("L2Norm n=%d [%d]: got %v want %v", n, i, dst[i], want)
			}
		}
		GatedRMSNorm(dst, x, w, z, 1e-6)
		rms := math.Sqrt(ss/float64(n) + 1e-6)
		for i := range x {
			zi := float64(z[i])
			want := float64(x[i]) / rms * float64(w[i]) * zi / (1 + math.Exp(-zi))
			if e := math.Abs(float64(dst[i]) - want); e > tolDeltaElementwise*math.Abs(want)+1e-30 {
				t.Fatalf("GatedRMSNorm n=%d [%d]: got %v want %v", n, i, dst[i], want)
			}
		}
	}
	zero := make([]float32, 8)
	L2Norm(zero, zero, 1e-6)
	for _, v := range zero {
		if v != 0 {
			t.Fatalf("L2Norm of a zero vector gave %v, want 0 (eps guards the division)", v)
		}
	}
}

func TestDeltaNetKernelsAllocateNothing(t *testing.T) {
	in := newDeltaInputs(newRand(86), 32, 32, 70, -0.5)
	st, out := append([]float32(nil), in.s0...), make([]float32, in.n*in.dv)
	scratch := make([]float32, DeltaChunkScratchLen(in.dv))
	conv, cstate, cw := make([]float32, 64), make([]float32, 3*64), make([]float32, 4*64)
	x := randVec(newRand(87), 64, 1)
	allocs := testing.AllocsPerRun(20, func() {
		GatedDeltaStep(st, in.q[:32], in.k[:32], in.v[:32], out[:32], 0.9, 0.5)
		GatedDeltaChunk(st, in.q, in.k, in.v, out, in.g, in.beta, in.n, scratch)
		ConvSiLUStep(conv, cstate, x, cw, 4)
		L2Norm(conv, x, 1e-6)
		GatedRMSNorm(conv, x, x, x, 1e-6)
	})
	if allocs != 0 {
		t.Fatalf("DeltaNet kernels allocate %v times per run", allocs)
	}
}

func TestDeltaNetKernelPanics(t *testing.T) {
	f := func(n int) []float32 { return make([]float32, n) }
	cases := map[string]func(){
		"step state":    func() { GatedDeltaStep(f(15), f(4), f(4), f(4), f(4), 1, 1) },
		"step q":        func() { GatedDeltaStep(f(16), f(3), f(4), f(4), f(4), 1, 1) },
		"step empty":    func() { GatedDeltaStep(f(0), f(0), f(0), f(0), f(0), 1, 1) },
		"chunk n":       func() { GatedDeltaChunk(f(16), f(8), f(8), f(8), f(8), f(2), f(2), 0, f(999)) },
		"chunk scratch": func() { GatedDeltaChunk(f(16), f(8), f(8), f(8), f(8), f(2), f(2), 2, f(3)) },
		"chunk g":       func() { GatedDeltaChunk(f(16), f(8), f(8), f(8), f(8), f(1), f(2), 2, f(999)) },
		"conv state":    func() { ConvSiLUStep(f(4), f(11), f(4), f(16), 4) },
		"conv taps":     func() { ConvSiLUStep(f(4), f(0), f(4), f(0), 0) },
		"l2":            func() { L2Norm(f(3), f(4), 1e-6) },
		"gated norm":    func() { GatedRMSNorm(f(4), f(4), f(3), f(4), 1e-6) },
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Fatalf("no panic")
				} else if s, ok := r.(string); !ok || len(s) < 8 || s[:8] != "kernels:" {
					t.Fatalf("panic %v does not start with kernels:", r)
				}
			}()
			fn()
		})
	}
}

// TestGatedDeltaUpdateEqualsStep: the state-only update leaves exactly the
// state GatedDeltaStep leaves (the speculative replay depends on equality),
// over head shapes around unroll widths and 40 tokens of decay and beta.
func TestGatedDeltaUpdateEqualsStep(t *testing.T) {
	r := newRand(91)
	for _, sh := range [][2]int{{1, 1}, {3, 5}, {8, 8}, {16, 7}, {31, 33}, {32, 32}, {64, 16}, {128, 128}} {
		dk, dv := sh[0], sh[1]
		in := newDeltaInputs(r, dk, dv, 40, -3)
		a, b := append([]float32(nil), in.s0...), append([]float32(nil), in.s0...)
		out := make([]float32, dv)
		for tk := range in.n {
			k, v := in.k[tk*dk:(tk+1)*dk], in.v[tk*dv:(tk+1)*dv]
			GatedDeltaStep(a, in.q[tk*dk:(tk+1)*dk], k, v, out, in.decay[tk], in.beta[tk])
			GatedDeltaUpdate(b, k, v, in.decay[tk], in.beta[tk])
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("dk=%d dv=%d token %d: state[%d] = %v after Update, %v after Step", dk, dv, tk, i, b[i], a[i])
				}
			}
		}
	}
	mustPanic(t, "update lengths", func() { GatedDeltaUpdate(make([]float32, 15), make([]float32, 4), make([]float32, 4), 1, 1) })
}
