package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// The per-implementation tests of the DeltaNet kernels besides the step
// (deltanet_impl_test.go): the chunked form and its two primitives, the
// conv and the two norms, each under every implementation against its Go
// reference or a float64 evaluation, with guard bands and misaligned
// starts.

// deltaOpsNs are row widths around the 8-lane blocks and the 32/64-float
// register blocks of deltaAxpys; widths not a multiple of 8 take the Go
// path on every implementation.
var deltaOpsNs = []int{1, 7, 8, 12, 16, 24, 32, 40, 56, 64, 72, 96, 128, 136, 200}

// checkDeltaOp compares got with want per element, normalized by terms.
func checkDeltaOp(t *testing.T, what string, got []float32, want, terms []float64) {
	t.Helper()
	for i := range got {
		if e := math.Abs(float64(got[i])-want[i]) / max(terms[i], 1e-30); !(e <= tolDeltaOps) {
			t.Fatalf("%s [%d]: got %v want %v (error %.3g > %.3g)", what, i, got[i], want[i], e, tolDeltaOps)
		}
	}
}

func TestDeltaDotsAxpysImpls(t *testing.T) {
	r := newRand(101)
	for _, name := range Impls() {
		withImpl(t, name, func() {
			for _, n := range deltaOpsNs {
				for _, m := range []int{1, 2, 3, 4, 5, 7, 8, 9, 63, 64} {
					off := (n + m) % 2
					rows, x, w := randVec(r, m*n, 1), randVec(r, n, 1), randVec(r, m, 1)
					out, outOK := guarded(m, off)
					deltaDots(out, rows, x)
					want, terms := make([]float64, m), make([]float64, m)
					for i := range m {
						for j := range n {
							p := float64(rows[i*n+j]) * float64(x[j])
							want[i] += p
							terms[i] += math.Abs(p)
						}
					}
					what := fmt.Sprintf("%s m=%d n=%d", name, m, n)
					if !outOK() {
						t.Fatalf("deltaDots %s: wrote outside out", what)
					}
					checkDeltaOp(t, "deltaDots "+what, out, want, terms)

					y, yOK := guarded(n, 1-off)
					y0 := randVec(r, n, 1)
					copy(y, y0)
					deltaAxpys(y, rows, w)
					want, terms = make([]float64, n), make([]float64, n)
					for j := range n {
						want[j], terms[j] = float64(y0[j]), math.Abs(float64(y0[j]))
						for i := range m {
							p := float64(w[i]) * float64(rows[i*n+j])
							want[j] += p
							terms[j] += math.Abs(p)
						}
					}
					if !yOK() {
						t.Fatalf("deltaAxpys %s: wrote outside y", what)
					}
					checkDeltaOp(t, "deltaAxpys "+what, y, want, terms)
				}
			}
		})
	}
}

// TestGatedDeltaChunkImpls holds the chunked form of every implementation
// to the per-token Go reference and to the float64 recurrence within
// tolDeltaChunk, with head widths on and off the 8-lane blocks and chunk
// boundaries, and guard bands around the state and the outputs.
func TestGatedDeltaChunkImpls(t *testing.T) {
	r := newRand(102)
	for _, sh := range []struct{ dk, dv int }{{8, 8}, {12, 20}, {16, 72}, {64, 48}, {128, 128}} {
		for _, n := range []int{1, 9, DeltaChunkSize, DeltaChunkSize + 3} {
			for _, gMin := range []float64{0, -0.3, -20} {
				in := newDeltaInputs(r, sh.dk, sh.dv, n, gMin)
				var refOut, refSt []float32
				withImpl(t, "generic", func() { refOut, refSt = runSteps(in) })
				wantOut, wantSt, _, scale := deltaRef64(in)
				terms := chunkTerms(in)
				for _, name := range Impls() {
					withImpl(t, name, func() {
						st, stOK := guarded(sh.dk*sh.dv, n%2)
						copy(st, in.s0)
						out, outOK := guarded(n*sh.dv, 1-n%2)
						GatedDeltaChunk(st, in.q, in.k, in.v, out, in.g, in.beta, n, make([]float32, DeltaChunkScratchLen(sh.dv)))
						what := fmt.Sprintf("%s dk=%d dv=%d n=%d gMin=%g", name, sh.dk, sh.dv, n, gMin)
						if !stOK() || !outOK() {
							t.Fatalf("%s: wrote outside its slices", what)
						}
						if e := normErr(out, refOut, terms); e > tolDeltaChunk {
							t.Errorf("%s: output differs from per-token by %.3g", what, e)
						}
						if e := normErr(st, refSt, []float64{scale}); e > tolDeltaChunk {
							t.Errorf("%s: state differs from per-token by %.3g", what, e)
						}
						if e := max(normErr(out, wantOut, terms), normErr(st, wantSt, []float64{scale})); e > tolDeltaChunk {
							t.Errorf("%s: differs from float64 by %.3g", what, e)
						}
					})
				}
			}
		}
	}
}

// TestConvSiLUStepImpls: every implementation against the float64 conv and
// SiLU (tolDeltaElementwise of the terms), its window bit for bit the
// inputs, widths past the 256-float SiLU blocks of the assembly path.
func TestConvSiLUStepImpls(t *testing.T) {
	r := newRand(103)
	for _, name := range Impls() {
		withImpl(t, name, func() {
			for _, kTaps := range []int{1, 2, 4, 5} {
				for _, c := range []int{1, 7, 8, 16, 24, 33, 256, 264, 520} {
					off := (c + kTaps) % 2
					w := randVec(r, kTaps*c, 0.5)
					state, stOK := guarded((kTaps-1)*c, off)
					copy(state, randVec(r, (kTaps-1)*c, 1))
					win := append([]float32(nil), state...)
					out, outOK := guarded(c, 1-off)
					x := randVec(r, c, 2)
					ConvSiLUStep(out, state, x, w, kTaps)
					what := fmt.Sprintf("%s K=%d C=%d", name, kTaps, c)
					if !stOK() || !outOK() {
						t.Fatalf("%s: wrote outside its slices", what)
					}
					win = append(win, x...)
					for ch := range c {
						var sum, terms float64
						for j := range kTaps {
							p := float64(w[j*c+ch]) * float64(win[j*c+ch])
							sum += p
							terms += math.Abs(p)
						}
						want := sum / (1 + math.Exp(-sum))
						if e := math.Abs(float64(out[ch]) - want); !(e <= tolDeltaElementwise*(terms+1e-30)) {
							t.Fatalf("%s ch %d: got %v want %v", what, ch, out[ch], want)
						}
					}
					for i := range state {
						if state[i] != win[c+i] {
							t.Fatalf("%s: window[%d] = %v, want %v", what, i, state[i], win[c+i])
						}
					}
				}
			}
		})
	}
}

// TestDeltaNormsImpls: L2Norm and GatedRMSNorm of every implementation
// against float64, with guard bands, misaligned starts and the in-place
// forms; under generic, GatedRMSNorm's kernel sequence is bit for bit
// gatedRMSNormGeneric.
func TestDeltaNormsImpls(t *testing.T) {
	r := newRand(104)
	for _, name := range Impls() {
		withImpl(t, name, func() {
			for _, n := range []int{1, 7, 8, 9, 16, 31, 128, 129, 256} {
				x, w, z := randVec(r, n, 2), randVec(r, n, 1), randVec(r, n, 3)
				var ss float64
				for _, v := range x {
					ss += float64(v) * float64(v)
				}
				what := fmt.Sprintf("%s n=%d", name, n)
				dst, ok := guarded(n, n%2)
				L2Norm(dst, x, 1e-6)
				if !ok() {
					t.Fatalf("L2Norm %s: wrote outside dst", what)
				}
				for i := range x {
					want := float64(x[i]) / math.Sqrt(ss)
					if e := math.Abs(float64(dst[i]) - want); !(e <= tolDeltaElementwise*math.Abs(want)+1e-30) {
						t.Fatalf("L2Norm %s [%d]: got %v want %v", what, i, dst[i], want)
					}
				}
				rms := math.Sqrt(ss/float64(n) + 1e-6)
				for _, alias := range []string{"", "x", "z"} {
					xs, zs := append([]float32(nil), x...), append([]float32(nil), z...)
					dst, ok := guarded(n, 1-n%2)
					switch alias {
					case "x":
						dst = xs
					case "z":
						dst = zs
					}
					GatedRMSNorm(dst, xs, w, zs, 1e-6)
					if !ok() {
						t.Fatalf("GatedRMSNorm %s: wrote outside dst", what)
					}
					ref := make([]float32, n)
					gatedRMSNormGeneric(ref, x, w, z, 1e-6)
					for i := range x {
						zi := float64(z[i])
						want := float64(x[i]) / rms * float64(w[i]) * zi / (1 + math.Exp(-zi))
						if e := math.Abs(float64(dst[i]) - want); !(e <= tolDeltaElementwise*math.Abs(want)+1e-30) {
							t.Fatalf("GatedRMSNorm %s dst=%q [%d]: got %v want %v", what, alias, i, dst[i], want)
						}
						if name == "generic" && dst[i] != ref[i] {
							t.Fatalf("GatedRMSNorm generic n=%d dst=%q [%d]: %v, gatedRMSNormGeneric %v", n, alias, i, dst[i], ref[i])
						}
					}
				}
			}
		})
	}
}

// FuzzDeltaNetImpls runs three tokens of one 16×8 head (token by token
// with the step and the update, then as one chunk) on values made from raw
// under every implementation, against the generic steps: the step and the
// chunk within their tolerances, the update's state equal to the step's.
// Inputs are finite and bounded, as the model's are.
func FuzzDeltaNetImpls(f *testing.F) {
	f.Add([]byte("gated delta rule: a seed long enough to fill one head"), uint8(3), uint8(200))
	f.Add(make([]byte, 64), uint8(0), uint8(255))
	f.Fuzz(func(t *testing.T, raw []byte, gByte, betaByte uint8) {
		const dk, dv, n = 16, 8, 3
		val := func(i int) float32 {
			if len(raw) < 2 {
				return 0.5
			}
			j := (2 * i) % (len(raw) - 1)
			return float32(int16(binary.LittleEndian.Uint16(raw[j:]))) / 8192 // within ±4
		}
		in := &deltaInputs{dk: dk, dv: dv, n: n}
		fill := func(size, base int) []float32 {
			v := make([]float32, size)
			for i := range v {
				v[i] = val(base + i)
			}
			return v
		}
		in.s0, in.q, in.k, in.v = fill(dk*dv, 0), fill(n*dk, 7), fill(n*dk, 13), fill(n*dv, 29)
		for tk := range n {
			L2Norm(in.k[tk*dk:(tk+1)*dk], in.k[tk*dk:(tk+1)*dk], 1e-6)
			L2Norm(in.q[tk*dk:(tk+1)*dk], in.q[tk*dk:(tk+1)*dk], 1e-6)
		}
		in.g, in.beta, in.decay = make([]float32, n), make([]float32, n), make([]float32, n)
		for tk := range n {
			in.g[tk] = -float32(gByte) / 32 * float32(tk+1) / n
			in.beta[tk] = float32(betaByte) / 255
			in.decay[tk] = expf(in.g[tk])
		}
		var refOut, refSt []float32
		withImpl(t, "generic", func() { refOut, refSt = runSteps(in) })
		// Adversarial inputs (repeated keys with β = 1 cancel the state
		// against v exactly) defeat the per-output scales of the random
		// tests, so errors are taken over the largest output and state
		// magnitudes of the head.
		_, _, terms, scale := deltaRef64(in)
		outScale, chunkScale := []float64{slicesMax(terms) + 1e-3}, []float64{slicesMax(chunkTerms(in)) + 1e-3}
		for _, name := range Impls() {
			withImpl(t, name, func() {
				out, st := runSteps(in)
				up := append([]float32(nil), in.s0...)
				for tk := range n {
					GatedDeltaUpdate(up, in.k[tk*dk:(tk+1)*dk], in.v[tk*dv:(tk+1)*dv], in.decay[tk], in.beta[tk])
				}
				for i := range st {
					if st[i] != up[i] {
						t.Fatalf("%s: update state[%d] %v, step %v", name, i, up[i], st[i])
					}
				}
				if e := max(normErr(out, refOut, outScale), normErr(st, refSt, []float64{scale + 1e-3})); e > 2*tolDeltaStep {
					t.Fatalf("%s: step differs from generic by %.3g", name, e)
				}
				cout, cst := runChunked(in)
				if e := max(normErr(cout, refOut, chunkScale), normErr(cst, refSt, []float64{scale + 1e-3})); e > tolDeltaChunk {
					t.Fatalf("%s: chunk differs from generic steps by %.3g", name, e)
				}
			})
		}
	})
}

func slicesMax(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
