package spec_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
)

// Speculation on hybrid models (Qwen3.5: Gated DeltaNet layers whose
// recurrent state has absorbed every drafted token after a verify batch).
// Rollback then rests on the qwen35 session restoring that state (replay
// tape or snapshots), not only on cutting attention cells, so these tests
// run the greedy-equality harness of greedy_test.go on the hybrid fixtures
// with each rollback strategy, and prove they would see a broken one.

var hybridModels = []string{"synth-qwen35-spm-f32.gguf", "synth-qwen35moe-spm-f32.gguf"}

// loadHybrid loads a shared qwen35 fixture.
func loadHybrid(t *testing.T, name string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, ok := l.Model.(*qwen35.Model); !ok {
		t.Fatalf("%s did not load as a qwen35 model", name)
	}
	return l
}

// withRollback makes the speculative session a fresh qwen35 session with
// the given rollback strategy (the harness's own session is dropped).
func withRollback(l *engine.Loaded, rb qwen35.Rollback) func(engine.Session) engine.Session {
	return func(s engine.Session) engine.Session {
		ns, err := l.Model.(*qwen35.Model).NewSessionWith(s.Options(), qwen35.Options{Rollback: rb})
		if err != nil {
			panic(err)
		}
		return ns
	}
}

// seeded wraps a strategy so that its drafts are partly right on models
// whose greedy output never repeats (the random-weight hybrid fixtures do
// not fall into loops, so n-gram drafts are never accepted on their own):
// of every three drafts the strategy makes, one is overwritten with the
// known greedy continuation (accepted whole), one with the continuation up
// to its middle and a wrong token there (accepted in part), one is left as
// the strategy made it (usually rejected at once). The strategy's own
// Draft, Accept and Observe still run on every cycle.
type seeded struct {
	spec.Strategy
	ref    []int32 // prompt followed by the plain greedy output
	nVocab int32
	calls  int
}

func (s *seeded) Draft(reqs []*spec.Request) {
	s.Strategy.Draft(reqs)
	for _, r := range reqs {
		if len(r.Draft) == 0 {
			continue
		}
		s.calls++
		L := r.Len()
		r.Draft = r.Draft[:min(len(r.Draft), max(len(s.ref)-L, 0))]
		switch s.calls % 3 {
		case 0:
			copy(r.Draft, s.ref[L:])
		case 1:
			i := len(r.Draft) / 2
			copy(r.Draft[:i], s.ref[L:])
			if i < len(r.Draft) {
				r.Draft[i] = (s.ref[L+i] + 7) % s.nVocab
			}
		}
	}
}

// seededChain builds one strategy by name, wrapped by seeded.
func seededChain(t testing.TB, l *engine.Loaded, name string, ref []int32) *spec.Chain {
	t.Helper()
	cfg := smallConfig(l, name)
	c, err := spec.NewChain(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return spec.NewChainOf(&seeded{Strategy: spec.ChainStrategies(c)[0], ref: ref, nVocab: int32(l.Model.Info().NVocab)})
}

// hybridPrompt is a copy-and-edit prompt for models that never repeat
// themselves: the repeating text, the model's own greedy continuation c of
// it, then the text again and the first k tokens of c, with k chosen so
// that the model's next token is c[k] (the first draft is requested after
// that token), so that every n-gram and context strategy finds matches to
// draft from at the start; later the output leaves the copied text.
func hybridPrompt(t testing.TB, l *engine.Loaded, nctx int) []int32 {
	p := l.Tokenizer.Encode(repeatText, true, true)
	c := plain(t, l, greedyParams(), p, 24, nctx)
	head := append(append(append([]int32{}, p...), c...), p[1:]...)
	for k := 4; k < 20; k++ {
		cand := append(append([]int32{}, head...), c[:k]...)
		if plain(t, l, greedyParams(), cand, 1, nctx)[0] == c[k] {
			return cand
		}
	}
	return append(head, c[:12]...)
}

// TestGreedyEqualsPlainHybrid: with every model-free strategy, its drafts
// made partly wrong (corrupt, as for the other models) and partly right
// (seeded, since these models never repeat themselves), speculative greedy
// output equals plain greedy token for token on both hybrid fixtures,
// under both rollback strategies, with and without adaptive depth. The
// comparison is exact, without the clear-margin cut of other models: a
// qwen35 batch of up to 64 tokens gives bit-identical logits to
// one-token decoding (engine/models/qwen35 TestBatchEqualsSequential) and
// the replay is bit-identical to the forward pass.
func TestGreedyEqualsPlainHybrid(t *testing.T) {
	const n, nctx = 48, 256
	for _, name := range hybridModels {
		l := loadHybrid(t, name)
		prompt := hybridPrompt(t, l, nctx)
		ref := plain(t, l, greedyParams(), prompt, n, nctx)
		full := append(append([]int32{}, prompt...), ref...)
		for _, rb := range []qwen35.Rollback{qwen35.RollbackReplay, qwen35.RollbackSnapshots} {
			drafted, accepted := 0, 0
			for _, strat := range spec.Order {
				if strat == "draft-simple" || strat == "dflash" || strat == "draft-eagle3" {
					continue // model-free strategies only
				}
				chains := map[string]func() *spec.Chain{
					"corrupt": func() *spec.Chain { return corruptChain(t, l, strat) },
					"seeded":  func() *spec.Chain { return seededChain(t, l, strat, full) },
				}
				adaptives := []bool{false, true}
				if testing.Short() {
					adaptives = adaptives[:1] // -short: fixed depth only
				}
				for kind, mk := range chains {
					for _, adaptive := range adaptives {
						got, sl, err := speculative(t, l, greedyParams(), mk(), prompt, n, nctx, withRollback(l, rb), nil, adaptive)
						if err != nil {
							t.Fatalf("%s %v %s %s: %v", name, rb, strat, kind, err)
						}
						if i := equalTokens(got, ref); i >= 0 {
							t.Fatalf("%s %v %s %s (adaptive %v): differs from plain greedy at token %d:\n got %v\nwant %v", name, rb, strat, kind, adaptive, i, got, ref)
						}
						if !adaptive && rb == qwen35.RollbackReplay {
							t.Logf("%s %-13s %-7s drafted %3d accepted %3d", name, strat, kind, sl.DraftN, sl.DraftAccepted)
						}
						drafted += sl.DraftN
						accepted += sl.DraftAccepted
						if kind == "seeded" && !adaptive && sl.DraftAccepted == 0 {
							t.Errorf("%s %v %s: no seeded draft was accepted: the accept path did not run", name, rb, strat)
						}
					}
				}
			}
			t.Logf("%s %v: %d drafted, %d accepted over all strategies", name, rb, drafted, accepted)
			if accepted == 0 || accepted == drafted {
				t.Errorf("%s %v: %d of %d drafts accepted: the accept and reject paths did not both run", name, rb, accepted, drafted)
			}
		}
	}
}

// TestBrokenHybridRollbackIsCaught is the test of the test: a rollback
// that restores the pre-verify state without replaying the accepted
// tokens, or restores nothing (the state keeps every drafted token), must
// make the speculative output differ from plain greedy, both with the
// oracle drafter of greedy_test.go (long drafts, one in three spoiled at
// its start, one in its middle) and with the seeded model-free strategies
// of TestGreedyEqualsPlainHybrid (at least one must differ, so that test
// would fail); the correct strategies pass the oracle run.
func TestBrokenHybridRollbackIsCaught(t *testing.T) {
	const n, nctx = 48, 256
	for _, name := range hybridModels {
		l := loadHybrid(t, name)
		prompt := l.Tokenizer.Encode(repeatText, true, true)
		ref := plain(t, l, greedyParams(), prompt, n, nctx)
		full := append(append([]int32{}, prompt...), ref...)
		mk := func() *spec.Chain {
			return spec.NewChainOf(&corrupt{Strategy: &oracle{ref: full}, nVocab: int32(l.Model.Info().NVocab)})
		}
		for _, rb := range []qwen35.Rollback{qwen35.RollbackReplay, qwen35.RollbackSnapshots, qwen35.RollbackFaultNoReplay, qwen35.RollbackFaultNoRestore} {
			got, _, err := speculative(t, l, greedyParams(), mk(), prompt, n, nctx, withRollback(l, rb), nil, false)
			broken := rb == qwen35.RollbackFaultNoReplay || rb == qwen35.RollbackFaultNoRestore
			differs := err != nil || equalTokens(got, ref) >= 0
			switch {
			case broken && !differs:
				t.Errorf("%s: the broken rollback %v was not caught by the oracle run", name, rb)
			case !broken && differs:
				t.Errorf("%s: the correct rollback %v fails: %v\n got %v\nwant %v", name, rb, err, got, ref)
			}
		}
		prompt = hybridPrompt(t, l, nctx)
		ref = plain(t, l, greedyParams(), prompt, n, nctx)
		full = append(append([]int32{}, prompt...), ref...)
		for _, rb := range []qwen35.Rollback{qwen35.RollbackFaultNoReplay, qwen35.RollbackFaultNoRestore} {
			var caught []string
			for _, strat := range spec.Order {
				if strat == "draft-simple" || strat == "dflash" || strat == "draft-eagle3" {
					continue
				}
				got, _, err := speculative(t, l, greedyParams(), seededChain(t, l, strat, full), prompt, n, nctx, withRollback(l, rb), nil, false)
				if err != nil || equalTokens(got, ref) >= 0 {
					caught = append(caught, strat)
				}
			}
			t.Logf("%s %v: caught by %v", name, rb, caught)
			if len(caught) == 0 {
				t.Errorf("%s: the broken rollback %v passes the model-free strategies' equality check", name, rb)
			}
		}
	}
}
