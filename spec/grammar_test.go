package spec_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/grammar"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
)

// Under a grammar, speculative decoding emits exactly what plain
// constrained decoding emits, and no drafted token the grammar rejects
// reaches verification, whatever the strategy drafts (here: the
// unconstrained continuation, partly corrupted, which the grammar keeps
// cutting).
func TestDraftsCutToGrammar(t *testing.T) {
	l := loadDemo(t)
	ix := grammar.NewIndex(l.Tokenizer)
	g, err := grammar.Parse(`root ::= [^eE]+`, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompt := l.Tokenizer.Encode(repeatText, true, true)
	const n, nctx = 48, 256
	free := plain(t, l, greedyParams(), prompt, n, nctx)

	smp, err := sample.New(greedyParams(), l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	smp.SetConstraint(grammar.NewMatcher(g, ix))
	gen := &engine.Generator{Sess: newSession(t, l, nctx), Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	var want []int32
	if _, err := gen.Generate(prompt, n, func(tok int32) bool { want = append(want, tok); return true }); err != nil {
		t.Fatal(err)
	}
	if equalTokens(want, free) < 0 {
		t.Fatal("the grammar does not change the output; the test needs one that does")
	}

	full := append(append([]int32{}, prompt...), want...)
	e := l.Tokenizer.Encode("e", false, false)[0]
	chain := spec.NewChainOf(&taint{Strategy: &corrupt{Strategy: &oracle{ref: full}, nVocab: int32(l.Model.Info().NVocab)}, bad: e})
	smp2, _ := sample.New(greedyParams(), l.Model.Info().NVocab)
	smp2.SetConstraint(grammar.NewMatcher(g, ix))
	cfg := spec.DefaultConfig()
	cfg.NMax = 12
	cfg.Adaptive.Enabled = false
	sp := spec.New(newSession(t, l, nctx), chain, &cfg)
	verified := 0
	spec.SetVerify(sp, func(sp *spec.Speculator, sl *spec.Slot, row int, draft, out []int32) []int32 {
		if k := sl.Sampler.AllowedPrefix(draft); k != len(draft) {
			t.Errorf("draft token %d of %v reached verification although the grammar rejects it", k, draft)
		}
		verified += len(draft)
		return spec.VerifyRows(sp, sl, row, draft, out)
	})
	sl := &spec.Slot{Sampler: smp2, IsEOG: l.Tokenizer.IsEOG}
	var got []int32
	if _, err := sp.Generate(sl, prompt, n, func(tok int32) bool { got = append(got, tok); return true }); err != nil {
		t.Fatal(err)
	}
	if i := equalTokens(got, want); i >= 0 {
		t.Fatalf("differs from plain constrained decoding at token %d:\n got %v\nwant %v", i, got, want)
	}
	if verified == 0 || sl.DraftAccepted == 0 {
		t.Fatalf("verified %d drafted tokens, accepted %d; the test needs both", verified, sl.DraftAccepted)
	}
	t.Logf("verified %d drafted tokens, accepted %d", sl.DraftN, sl.DraftAccepted)
}

// taint puts a token the grammar rejects into every other draft, half way.
type taint struct {
	spec.Strategy
	bad   int32
	calls int
}

func (c *taint) Draft(reqs []*spec.Request) {
	c.Strategy.Draft(reqs)
	for _, r := range reqs {
		if len(r.Draft) > 1 {
			if c.calls++; c.calls%2 == 0 {
				r.Draft[len(r.Draft)/2] = c.bad
			}
		}
	}
}
