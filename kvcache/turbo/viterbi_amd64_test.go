//go:build !purego

package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestViterbiAVX512MatchesGo: the vectorised trellis search leaves the same
// final costs (bit for bit) and the same best predecessors at every step as
// the Go search, for both codes, every length from 1 to 128 (odd and even
// step counts end in different buffers), Gaussian inputs, exact ties
// (zeros, repeated values) and a NaN.
func TestViterbiAVX512MatchesGo(t *testing.T) {
	if !useAVX512Viterbi {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(21, 22))
	inputs := map[string]func(i int) float32{
		"gauss": func(int) float32 { return float32(r.NormFloat64() / 11.3) },
		"zeros": func(int) float32 { return 0 },
		"ties":  func(i int) float32 { return float32(i%3) * 0.05 },
		"nan": func(i int) float32 {
			if i == 5 {
				return float32(math.NaN())
			}
			return float32(r.NormFloat64() / 11.3)
		},
	}
	for _, c := range []*tcqCode{&tcq3, &tcq2} {
		for name, gen := range inputs {
			for n := 1; n <= BlockSize; n++ {
				z := make([]float32, n)
				for i := range z {
					z[i] = gen(i)
				}
				var want, got, b [512]float32
				var best [64]float32
				var btWant, btGot [BlockSize][64]uint8
				wantCost := c.viterbiStepsGo(z, &want, &b, &best, &btWant)
				if !c.viterbiSteps(z, &got, &btGot) {
					t.Fatal("viterbiSteps did not run")
				}
				for s := range c.states() {
					if math.Float32bits(got[s]) != math.Float32bits(wantCost[s]) {
						t.Fatalf("k=%d %s n=%d: cost[%d] = %v, Go %v", c.k, name, n, s, got[s], wantCost[s])
					}
				}
				for i := range n {
					if btGot[i] != btWant[i] {
						t.Fatalf("k=%d %s n=%d: predecessors of step %d differ:\n%v\n%v", c.k, name, n, i, btGot[i], btWant[i])
					}
				}
			}
		}
	}
}

// BenchmarkViterbi compares the two searches on one 128-value group.
func BenchmarkViterbi(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float32, BlockSize)
	for i := range z {
		z[i] = float32(r.NormFloat64() / 11.3)
	}
	for _, c := range []*tcqCode{&tcq3, &tcq2} {
		var cost, b2 [512]float32
		var best [64]float32
		var bt [BlockSize][64]uint8
		b.Run("go/k="+string(rune('0'+c.k)), func(b *testing.B) {
			for b.Loop() {
				c.viterbiStepsGo(z, &cost, &b2, &best, &bt)
			}
		})
		if useAVX512Viterbi {
			b.Run("avx512/k="+string(rune('0'+c.k)), func(b *testing.B) {
				for b.Loop() {
					c.viterbiSteps(z, &cost, &bt)
				}
			})
		}
	}
}
