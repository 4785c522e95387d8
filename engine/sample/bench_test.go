package sample

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSample measures one Sample+Accept per iteration for common chains
// at LLaMA (32000) and Qwen (151936) vocabulary sizes.
func BenchmarkSample(b *testing.B) {
	chains := []struct {
		name string
		set  func(*Params)
	}{
		{"greedy", func(p *Params) { p.Temp = 0 }},
		{"default", func(*Params) {}},
		{"penalties", func(p *Params) { p.RepeatPenalty, p.PresencePenalty = 1.1, 0.5 }},
		{"topp-only", func(p *Params) { p.TopK, p.MinP = 0, 0 }},
		{"minp-only", func(p *Params) { p.TopK, p.TopP = 0, 1 }},
		{"typical", func(p *Params) { p.TypicalP = 0.9 }},
		{"bias-greedy", func(p *Params) { p.Temp, p.LogitBias = 0, []LogitBias{{2, negInf}, {7, 1.5}} }},
		{"mirostat2", func(p *Params) { p.Mirostat = 2 }},
		{"xtc", func(p *Params) { p.XTCProbability, p.XTCThreshold = 0.5, 0.01 }},
		{"dry", func(p *Params) {
			p.DryMultiplier, p.NCtx = 0.8, 4096
			p.DryBreakers = BreakersFromTokens([][]int32{{13}, {29901}})
		}},
	}
	for _, c := range chains {
		for _, n := range []int{32000, 151936} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				p := DefaultParams()
				p.Seed = 1
				c.set(&p)
				s := mustNew(b, p, n)
				l := randomLogits(rand.New(rand.NewPCG(1, uint64(n))), n)
				for i := range 512 { // a history for DRY and the penalties to scan
					s.Accept(int32(i * 7 % 64))
				}
				b.ReportAllocs()
				for b.Loop() {
					s.Accept(s.Sample(l))
				}
			})
		}
	}
}
