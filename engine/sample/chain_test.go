package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseSamplers(t *testing.T) {
	got, err := ParseSamplerNames([]string{"penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"}, false)
	if err != nil || !slices.Equal(got, DefaultSamplers()) {
		t.Fatalf("canonical names: %v, %v", got, err)
	}
	if _, err := ParseSamplerNames([]string{"top-k"}, false); err == nil {
		t.Fatal("an alternative name was accepted without alt")
	}
	alt, err := ParseSamplerNames([]string{"top-k", "nucleus", "typical", "temp", "min-p", "adaptive-p"}, true)
	want := []Stage{StageTopK, StageTopP, StageTypicalP, StageTemperature, StageMinP, StageAdaptiveP}
	if err != nil || !slices.Equal(alt, want) {
		t.Fatalf("alternative names: %v, %v", alt, err)
	}
	seq, err := ParseSamplingSeq("edskypmxtia")
	if err != nil || len(seq) != 11 {
		t.Fatalf("letters: %v, %v", seq, err)
	}
	var letters []byte
	for _, s := range seq {
		letters = append(letters, s.Letter())
	}
	if string(letters) != "edskypmxtia" || strings.Join(SamplerNames(seq[:3]), ",") != "penalties,dry,top_n_sigma" {
		t.Fatalf("round trip: %q %v", letters, SamplerNames(seq))
	}
	for _, bad := range []func() error{
		func() error { _, err := ParseSamplerNames([]string{"top_k", "greedy"}, true); return err },
		func() error { _, err := ParseSamplingSeq("kq"); return err },
		func() error { _, err := ParseSamplingSeq(strings.Repeat("k", maxSamplers+1)); return err },
	} {
		if bad() == nil {
			t.Fatal("a bad sampler list was accepted")
		}
	}
}

func TestValidateExtras(t *testing.T) {
	bad := map[string]func(*Params){
		"mirostat 3":          func(p *Params) { p.Mirostat = 3 },
		"mirostat_tau NaN":    func(p *Params) { p.MirostatTau = float32(math.NaN()) },
		"dry_multiplier < 0":  func(p *Params) { p.DryMultiplier = -1 },
		"dry_base < 1":        func(p *Params) { p.DryMultiplier, p.DryBase, p.NCtx = 1, 0.5, 64 },
		"dry_allowed < 0":     func(p *Params) { p.DryAllowedLength = -1 },
		"dry -1 without ctx":  func(p *Params) { p.DryMultiplier = 1 },
		"dry window too big":  func(p *Params) { p.DryPenaltyLastN = maxWindow + 1 },
		"repeat window huge":  func(p *Params) { p.RepeatLastN = maxWindow + 1 },
		"xtc_probability > 1": func(p *Params) { p.XTCProbability = 1.5 },
		"xtc_threshold < 0":   func(p *Params) { p.XTCThreshold = -0.1 },
		"adaptive_decay 1":    func(p *Params) { p.AdaptiveDecay = 1 },
		"bias NaN":            func(p *Params) { p.LogitBias = []LogitBias{{1, float32(math.NaN())}} },
		"bias +Inf":           func(p *Params) { p.LogitBias = []LogitBias{{1, float32(math.Inf(1))}} },
		"bias token < 0":      func(p *Params) { p.LogitBias = []LogitBias{{-1, 1}} },
		"infill":              func(p *Params) { p.Samplers = []Stage{StageInfill} },
		"unknown stage":       func(p *Params) { p.Samplers = []Stage{99} },
		"too many stages":     func(p *Params) { p.Samplers = make([]Stage, maxSamplers+1) },
	}
	for name, f := range bad {
		p := DefaultParams()
		f(&p)
		if p.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	p := DefaultParams()
	p.LogitBias = []LogitBias{{10, 1}}
	if _, err := New(p, 10); err == nil {
		t.Fatal("a bias outside the vocabulary was accepted")
	}
	p.LogitBias = []LogitBias{{9, negInf}}
	p.DryMultiplier, p.NCtx, p.Mirostat = 0.8, 128, 2
	if _, err := New(p, 10); err != nil {
		t.Fatal(err)
	}
}

// The greedy fast path (an argmax over biased, penalized logits) must pick
// what the full chain picks, for every stage order with a greedy
// temperature, with and without penalties, biases, typical-p and DRY.
func TestFastGreedyMatchesChain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	orders := [][]Stage{nil, {StageTemperature}, {StageTemperature, StagePenalties, StageTopK},
		{StagePenalties, StagePenalties, StageTemperature}, {StageTopK, StageTypicalP, StageTemperature},
		{StageDRY, StageTemperature}, {StageTopP, StageMinP, StageTemperature, StageDRY}}
	fast := 0
	for i, order := range orders {
		p := DefaultParams()
		p.Temp, p.Samplers, p.Seed, p.NCtx = 0, order, uint32(i), 64
		p.RepeatPenalty, p.FrequencyPenalty, p.TypicalP, p.DryMultiplier = 1.4, 0.3, 0.5, 2
		p.LogitBias = []LogitBias{{1, 0.5}, {2, negInf}, {1, 0.25}}
		s := mustNew(t, p, 50)
		if s.fast {
			fast++
		}
		for step := range 60 {
			l := randomLogits(r, 50)
			l[r.IntN(50)] = float32(math.NaN())
			full := s.Clone()
			full.load(l)
			want := full.selectToken()
			if got := s.Sample(l); got != want {
				t.Fatalf("order %v step %d: Sample %d, full chain %d", order, step, got, want)
			}
			if d := s.Distribution(l); s.fast && (len(d) != 1 || d[0].ID != want) {
				t.Fatalf("order %v: Distribution %v, want only %d", order, d, want)
			}
			s.Accept([]int32{want, 1, 4, 1}[step%4])
		}
	}
	if fast < 3 {
		t.Fatalf("only %d orders took the fast path", fast)
	}
}

func TestSamplerKinds(t *testing.T) {
	cases := []struct {
		name          string
		set           func(*Params)
		greedy, exact bool
	}{
		{"default", func(*Params) {}, false, true},
		{"greedy", func(p *Params) { p.Temp = 0 }, true, true},
		{"greedy without temperature", func(p *Params) { p.Temp, p.Samplers = 0, []Stage{StageTopK} }, false, true},
		{"mirostat", func(p *Params) { p.Temp, p.Mirostat = 0, 2 }, false, false},
		{"xtc", func(p *Params) { p.XTCProbability = 0.5 }, false, false},
		{"xtc disabled by threshold", func(p *Params) { p.XTCProbability, p.XTCThreshold = 0.5, 0.6 }, false, true},
		{"xtc not in order", func(p *Params) { p.XTCProbability, p.Samplers = 0.5, []Stage{StageTemperature} }, false, true},
		{"adaptive", func(p *Params) { p.Samplers = []Stage{StageTemperature, StageAdaptiveP} }, false, false},
		{"dry", func(p *Params) { p.Temp, p.DryMultiplier, p.NCtx = 0, 1, 64 }, true, true},
	}
	for _, c := range cases {
		p := DefaultParams()
		c.set(&p)
		s := mustNew(t, p, 100)
		if s.Greedy() != c.greedy || s.HasDistribution() != c.exact {
			t.Errorf("%s: Greedy %v HasDistribution %v, want %v %v", c.name, s.Greedy(), s.HasDistribution(), c.greedy, c.exact)
		}
	}
}

// Reset+Reseed replays a run and a clone continues it, for every stage
// with state: Mirostat's mu, XTC's RNG, DRY's history, adaptive-p's average.
func TestStatefulStagesReplay(t *testing.T) {
	chains := map[string]func(*Params){
		"mirostat1": func(p *Params) { p.Mirostat, p.MirostatTau = 1, 3 },
		"mirostat2": func(p *Params) { p.Mirostat, p.MirostatTau = 2, 3 },
		"xtc":       func(p *Params) { p.XTCProbability, p.XTCThreshold, p.TopK = 0.5, 0.02, 0 },
		"dry":       func(p *Params) { p.DryMultiplier, p.DryAllowedLength, p.NCtx = 3, 1, 128 },
		"adaptive": func(p *Params) {
			p.AdaptiveTarget, p.Samplers = 0.2, []Stage{StageTopK, StageTemperature, StageAdaptiveP}
		},
	}
	for name, f := range chains {
		p := DefaultParams()
		p.Seed, p.Temp = 11, 1.3
		f(&p)
		s := mustNew(t, p, 64)
		first := sequence(s, rand.New(rand.NewPCG(1, 2)), 80)
		s.Reset()
		s.Reseed()
		if again := sequence(s, rand.New(rand.NewPCG(1, 2)), 80); !slices.Equal(first, again) {
			t.Fatalf("%s: Reset+Reseed did not replay the run", name)
		}
		c := s.Clone()
		if !slices.Equal(sequence(s, rand.New(rand.NewPCG(3, 4)), 80), sequence(c, rand.New(rand.NewPCG(3, 4)), 80)) {
			t.Fatalf("%s: a clone did not continue like the original", name)
		}
	}
}

// With HasDistribution false, Distribution leaves the random stages out and
// consumes no randomness: XTC at probability 1 would drop the top token.
func TestDistributionLeavesRandomStagesOut(t *testing.T) {
	p := neutral()
	p.XTCProbability, p.XTCThreshold = 1, 0.1
	s := mustNew(t, p, 4)
	l := []float32{3, 2.9, 0, -1}
	twin := s.Clone()
	if d := s.Distribution(l); len(d) != 4 {
		t.Fatalf("Distribution applied XTC: %v", d)
	}
	if a, b := s.Sample(l), twin.Sample(l); a != b || a == 0 {
		t.Fatalf("Sample after Distribution %d, without %d (XTC must drop token 0)", a, b)
	}
}

// fakeVocab is a tiny vocabulary for breaker processing: Decode joins the
// token texts; Encode splits on the known texts, longest first.
type fakeVocab []string

func (v fakeVocab) NVocab() int { return len(v) }

func (v fakeVocab) Decode(ids []int32, _, _ bool) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(v[id])
	}
	return b.String()
}

func (v fakeVocab) Encode(text string, _, _ bool) []int32 {
	var out []int32
	for text != "" {
		best := -1
		for id, s := range v {
			if strings.HasPrefix(text, s) && (best < 0 || len(s) > len(v[best])) {
				best = id
			}
		}
		out = append(out, int32(best))
		text = text[len(v[best]):]
	}
	return out
}

func TestBreakersOverlap(t *testing.T) {
	v := fakeVocab{"a", "b", "c", "ab", "x:", ":", "abca", "cab", "q"}
	b := NewBreakers(v, []string{":", "abc", "", strings.Repeat("q", MaxBreakerLen+5)})
	check := func(head int32, tails ...[]int32) {
		t.Helper()
		got := b.tails(head)
		if len(got) != len(tails) {
			t.Fatalf("head %d: tails %v, want %v", head, got, tails)
		}
		for i := range tails {
			if !slices.Equal(got[i], tails[i]) {
				t.Fatalf("head %d: tails %v, want %v", head, got, tails)
			}
		}
	}
	check(4, nil)
	check(5, nil)
	check(6, nil)
	check(0, []int32{1, 2})
	check(3, []int32{2})
	check(7, []int32{2}) // "cab" ends with "ab", the start of "abc"
	check(1)             // "b" does not start "abc" or ":"
	q := b.tails(8)
	if len(q) != 1 || len(q[0]) != maxBreakerTailLen {
		t.Fatalf("a 40-byte breaker of q's must give a 20-token tail, got %v", q)
	}
	if !b.single(5) || b.single(0) || !slices.Equal(b.Strings()[:2], []string{":", "abc"}) {
		t.Fatal("single/Strings disagree")
	}
}
