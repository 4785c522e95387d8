package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGreedyArgmaxTiesLowestID(t *testing.T) {
	p := neutral()
	p.Temp = 0
	s := mustNew(t, p, 5)
	if !s.Greedy() {
		t.Fatal("temp 0 must be greedy")
	}
	if got := s.Sample([]float32{1, 7, 3, 7, float32(math.NaN())}); got != 1 {
		t.Fatalf("got %d, want 1", got)
	}
	if got := s.Sample([]float32{float32(math.NaN()), 0, 0, 0, 0}); got != 1 {
		t.Fatalf("NaN must never win: got %d", got)
	}
	p.DynatempRange = 0.5 // temp 0 ± 0.5 samples in llama.cpp
	if mustNew(t, p, 5).Greedy() {
		t.Fatal("temp 0 with a dynamic range is not greedy")
	}
}

// temp <= 0 picks the argmax whatever top-k/top-p/min-p/top-n-σ/seed say,
// and the fast path agrees with running the full chain as llama.cpp does.
func TestGreedyIgnoresTruncation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, temp := range []float32{0, -1} {
		for _, tk := range []int{0, 1, 40} {
			p := DefaultParams()
			p.Temp, p.TopK, p.TopP, p.MinP, p.TopNSigma, p.Seed = temp, tk, 0.1, 0.9, 1, uint32(tk)
			s := mustNew(t, p, 1000)
			for range 20 {
				l := randomLogits(r, 1000)
				want := int32(slices.Index(l, slices.Max(l)))
				if got := s.Sample(l); got != want {
					t.Fatalf("temp %v top_k %d: got %d, want argmax %d", temp, tk, got, want)
				}
				s.load(l)
				if got := s.selectToken(); got != want {
					t.Fatalf("full chain: got %d, want %d", got, want)
				}
			}
		}
	}
}

// llama.cpp runs typical-p before the temperature, so with temp 0 it can
// remove the argmax; this package does the same.
func TestGreedyWithTypicalFollowsChain(t *testing.T) {
	p := neutral()
	p.Temp, p.TypicalP = 0, 0.2
	s := mustNew(t, p, 3)
	l := []float32{float32(math.Log(0.4)), float32(math.Log(0.3)), float32(math.Log(0.3))}
	if got := s.Sample(l); got != 1 {
		t.Fatalf("got %d, want 1 (the most typical token, not the argmax)", got)
	}
}

func sequence(s *Sampler, r *rand.Rand, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = s.Sample(randomLogits(r, 64))
		s.Accept(out[i])
	}
	return out
}

func TestSeededDeterminism(t *testing.T) {
	p := DefaultParams()
	p.Temp, p.Seed = 1.5, 1234
	a := sequence(mustNew(t, p, 64), rand.New(rand.NewPCG(3, 4)), 200)
	b := sequence(mustNew(t, p, 64), rand.New(rand.NewPCG(3, 4)), 200)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different sequences")
	}
	p.Seed = 1235
	c := sequence(mustNew(t, p, 64), rand.New(rand.NewPCG(3, 4)), 200)
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same sequence")
	}
	p.Seed = DefaultSeed
	if s := mustNew(t, p, 64); s.Seed() == DefaultSeed && mustNew(t, p, 64).Seed() == DefaultSeed {
		t.Fatal("DefaultSeed must be replaced by a random seed")
	}
}

func TestResetReseedClone(t *testing.T) {
	p := DefaultParams()
	p.Temp, p.Seed, p.RepeatPenalty = 1.5, 99, 1.3
	s := mustNew(t, p, 64)
	first := sequence(s, rand.New(rand.NewPCG(5, 6)), 50)
	s.Reset()
	if again := sequence(s, rand.New(rand.NewPCG(5, 6)), 50); slices.Equal(first, again) {
		t.Fatal("Reset must not rewind the RNG")
	}
	s.Reset()
	s.Reseed()
	if again := sequence(s, rand.New(rand.NewPCG(5, 6)), 50); !slices.Equal(first, again) {
		t.Fatal("Reset+Reseed must replay the seeded run")
	}
	c := s.Clone()
	if !slices.Equal(sequence(s, rand.New(rand.NewPCG(7, 8)), 50), sequence(c, rand.New(rand.NewPCG(7, 8)), 50)) {
		t.Fatal("a clone must continue exactly like the original")
	}
}

func TestSampleDoesNotTouchLogits(t *testing.T) {
	p := DefaultParams()
	p.Seed, p.RepeatPenalty, p.TypicalP = 3, 1.2, 0.9
	s := mustNew(t, p, 100)
	s.Accept(5)
	l := randomLogits(rand.New(rand.NewPCG(1, 1)), 100)
	keep := slices.Clone(l)
	s.Sample(l)
	s.Distribution(l)
	if !slices.Equal(l, keep) {
		t.Fatal("Sample modified the caller's logits")
	}
}

func TestDistributionAndSampleFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, tk := range []int{40, 0} {
		p := DefaultParams()
		p.Seed, p.TopK = 77, tk
		s := mustNew(t, p, 500)
		for range 200 {
			l := randomLogits(r, 500)
			d := s.Distribution(l)
			var sum float64
			for _, c := range d {
				sum += float64(c.P)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("probabilities sum to %v", sum)
			}
			twin := s.Clone()
			got := s.SampleFrom(d)
			if want := twin.Sample(l); got != want {
				t.Fatalf("SampleFrom(Distribution) = %d, Sample = %d", got, want)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	nan := float32(math.NaN())
	bad := []func(*Params){
		func(p *Params) { p.Temp = nan },
		func(p *Params) { p.TopP = 1.5 },
		func(p *Params) { p.TopP = -0.1 },
		func(p *Params) { p.MinP = 2 },
		func(p *Params) { p.TypicalP = nan },
		func(p *Params) { p.TopK = -2 },
		func(p *Params) { p.RepeatPenalty = 0 },
		func(p *Params) { p.PresencePenalty = float32(math.Inf(1)) },
		func(p *Params) { p.RepeatLastN = -2 },
		func(p *Params) { p.MinKeep = -1 },
		func(p *Params) { p.DynatempRange = -1 },
	}
	for i, f := range bad {
		p := DefaultParams()
		f(&p)
		if p.Validate() == nil {
			t.Errorf("case %d: %+v accepted", i, p)
		}
	}
	good := DefaultParams()
	good.TopK, good.Temp = -1, -1
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(DefaultParams(), 0); err == nil {
		t.Fatal("empty vocabulary accepted")
	}
}

func TestSampleNoAllocs(t *testing.T) {
	chains := map[string]func(*Params){
		"default":   func(*Params) {},
		"greedy":    func(p *Params) { p.Temp = 0 },
		"typical":   func(p *Params) { p.TypicalP = 0.9; p.TopK = 0 },
		"untrunc":   func(p *Params) { p.TopK, p.TopP, p.MinP = 0, 0.9, 0 },
		"sigma":     func(p *Params) { p.TopNSigma = 1; p.DynatempRange = 0.3 },
		"penalties": func(p *Params) { p.RepeatPenalty, p.FrequencyPenalty = 1.1, 0.2 },
		"bias":      func(p *Params) { p.LogitBias = []LogitBias{{3, 2}, {9, negInf}} },
		"greedy-bias": func(p *Params) {
			p.Temp, p.RepeatPenalty, p.LogitBias = 0, 1.2, []LogitBias{{3, 2}, {9, negInf}}
		},
		"order":     func(p *Params) { p.Samplers = []Stage{StageTemperature, StageTopK, StagePenalties, StageMinP} },
		"mirostat1": func(p *Params) { p.Mirostat = 1 },
		"mirostat2": func(p *Params) { p.Mirostat = 2 },
		"xtc":       func(p *Params) { p.XTCProbability, p.TopK = 1, 0 },
		"dry": func(p *Params) {
			p.DryMultiplier, p.NCtx = 1, 256
			p.DryBreakers = BreakersFromTokens([][]int32{{4000}, {4001, 4002}})
		},
		"adaptive": func(p *Params) {
			p.AdaptiveTarget, p.Samplers = 0.3, []Stage{StageTopK, StageTemperature, StageAdaptiveP}
		},
	}
	l := randomLogits(rand.New(rand.NewPCG(2, 2)), 4096)
	for name, f := range chains {
		p := DefaultParams()
		p.Seed = 1
		f(&p)
		s := mustNew(t, p, len(l))
		for _, tok := range []int32{3, 5, 6, 7, 3, 5, 6, 7, 3} {
			s.Accept(tok)
		}
		k := 0
		cycle := func(int32) int32 { k++; return []int32{3, 5, 6, 7}[k%4] } // keeps DRY's repeats going
		if n := testing.AllocsPerRun(20, func() { s.Accept(cycle(s.Sample(l))) }); n != 0 {
			t.Errorf("%s: Sample allocates %v times per call", name, n)
		}
		if n := testing.AllocsPerRun(20, func() { s.SampleFrom(s.Distribution(l)) }); n != 0 {
			t.Errorf("%s: Distribution/SampleFrom allocate %v times per call", name, n)
		}
	}
}
