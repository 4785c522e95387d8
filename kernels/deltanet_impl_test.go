package kernels

import (
	"fmt"
	"math"
	"testing"
)

// withImpl runs body with every kernel switched to the named implementation.
func withImpl(t testing.TB, name string, body func()) {
	restore, err := SelectImpl(name)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	body()
}

// guarded returns a slice of n floats at offset off (0 or 1: a misaligned
// start) inside a buffer whose other cells hold a NaN sentinel, and a
// check that the sentinels are intact.
func guarded(n, off int) ([]float32, func() bool) {
	const pad = 16
	buf := make([]float32, n+2*pad)
	sentinel := float32(math.NaN())
	for i := range buf {
		buf[i] = sentinel
	}
	x := buf[pad+off : pad+off+n : pad+off+n]
	return x, func() bool {
		for i, v := range buf {
			if (i < pad+off || i >= pad+off+n) && !math.IsNaN(float64(v)) {
				return false
			}
		}
		return true
	}
}

// TestGatedDeltaImpls holds every implementation (AVX2, AVX-512 on widths
// that are multiples of 16, NEON) to the float64 recurrence within
// tolDeltaStep over a sweep of head widths around the 8- and 16-lane
// blocks (widths not a multiple of 8 take the Go path), decays from none to strong, misaligned
// starts and guard bands around the state and the output; and requires
// GatedDeltaUpdate to leave exactly GatedDeltaStep's state under each.
func TestGatedDeltaImpls(t *testing.T) {
	r := newRand(93)
	// dk = 1 is left to TestGatedDeltaStepMatchesFloat64 (1×1 only): a
	// one-wide key head carries every token's rounding in one value, past
	// tolDeltaStep for wide value heads already in the Go reference.
	dks := []int{2, 7, 8, 9, 16, 24, 32, 40, 56, 64, 72, 128, 136}
	for _, name := range Impls() {
		withImpl(t, name, func() {
			for _, dk := range dks {
				for _, dv := range []int{1, 3, 8, 33} {
					for _, gMin := range []float64{0, -0.5, -8} {
						in := newDeltaInputs(r, dk, dv, 40, gMin)
						off := (dk + dv) % 2
						st, stOK := guarded(dk*dv, off)
						copy(st, in.s0)
						up, upOK := guarded(dk*dv, 1-off)
						copy(up, in.s0)
						out := make([]float32, in.n*dv)
						o, oOK := guarded(dv, off)
						for tk := range in.n {
							k, v := in.k[tk*dk:(tk+1)*dk], in.v[tk*dv:(tk+1)*dv]
							GatedDeltaStep(st, in.q[tk*dk:(tk+1)*dk], k, v, o, in.decay[tk], in.beta[tk])
							copy(out[tk*dv:], o)
							GatedDeltaUpdate(up, k, v, in.decay[tk], in.beta[tk])
						}
						what := fmt.Sprintf("%s dk=%d dv=%d gMin=%g", name, dk, dv, gMin)
						if !stOK() || !upOK() || !oOK() {
							t.Fatalf("%s: wrote outside its slices", what)
						}
						wantOut, wantSt, terms, scale := deltaRef64(in)
						if e := normErr(out, wantOut, terms); e > tolDeltaStep {
							t.Errorf("%s: output error %.3g > %.3g", what, e, tolDeltaStep)
						}
						if e := normErr(st, wantSt, []float64{scale}); e > tolDeltaStep {
							t.Errorf("%s: state error %.3g > %.3g", what, e, tolDeltaStep)
						}
						for i := range st {
							if st[i] != up[i] {
								t.Fatalf("%s: GatedDeltaUpdate state[%d] = %v, GatedDeltaStep %v", what, i, up[i], st[i])
							}
						}
					}
				}
			}
		})
	}
}

// TestGatedDeltaAsmCatchesWrongDecay is the test of the test above: a step
// whose decay is off by 1e-3 (applied through the same entry point) leaves
// the float64 tolerance on every implementation.
func TestGatedDeltaAsmCatchesWrongDecay(t *testing.T) {
	r := newRand(94)
	for _, name := range Impls() {
		withImpl(t, name, func() {
			in := newDeltaInputs(r, 128, 128, 40, -0.5)
			st := append([]float32(nil), in.s0...)
			out := make([]float32, in.n*in.dv)
			for tk := range in.n {
				GatedDeltaStep(st, in.q[tk*128:(tk+1)*128], in.k[tk*128:(tk+1)*128], in.v[tk*128:(tk+1)*128], out[tk*128:(tk+1)*128], in.decay[tk]*1.001, in.beta[tk])
			}
			_, wantSt, _, scale := deltaRef64(in)
			if e := normErr(st, wantSt, []float64{scale}); e <= tolDeltaStep {
				t.Errorf("%s: a 0.1%% decay error stays within tolerance (%.3g)", name, e)
			}
		})
	}
}

// BenchmarkGatedDeltaImpls: one token of one 128×128 head per op, per
// implementation, step and update; bytes = the state read and written.
func BenchmarkGatedDeltaImpls(b *testing.B) {
	r := newRand(95)
	in := newDeltaInputs(r, 128, 128, 1, -0.5)
	out := make([]float32, 128)
	for _, name := range Impls() {
		withImpl(b, name, func() {
			st := append([]float32(nil), in.s0...)
			b.Run(name+"/step/128x128", func(b *testing.B) {
				b.SetBytes(2 * 4 * 128 * 128)
				for range b.N {
					GatedDeltaStep(st, in.q, in.k, in.v, out, 0.999, in.beta[0])
				}
			})
			b.Run(name+"/update/128x128", func(b *testing.B) {
				b.SetBytes(2 * 4 * 128 * 128)
				for range b.N {
					GatedDeltaUpdate(st, in.k, in.v, 0.999, in.beta[0])
				}
			})
		})
	}
}
