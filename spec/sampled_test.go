package spec_test

import (
	"math"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/spec"
)

// fixedSession is a target whose next-token logits are the same at every
// position: each emitted token should then be an independent draw from
// softmax(logits).
type fixedSession struct {
	logits []float32
	lens   map[int]int
	nOut   int
}

func (f *fixedSession) Decode(b *engine.Batch) error {
	f.nOut = 0
	for i := range b.Tokens {
		f.lens[int(b.Seq[i])]++
		if b.Output[i] {
			f.nOut++
		}
	}
	return nil
}
func (f *fixedSession) Logits(k int) []float32        { return f.logits }
func (f *fixedSession) NumOutputs() int               { return f.nOut }
func (f *fixedSession) Hidden(layer, k int) []float32 { return nil }
func (f *fixedSession) SeqLen(seq int) int            { return f.lens[seq] }
func (f *fixedSession) Truncate(seq, pos int) error   { f.lens[seq] = min(f.lens[seq], pos); return nil }
func (f *fixedSession) Fork(src, dst, n int) error    { f.lens[dst] = n; return nil }
func (f *fixedSession) Options() engine.SessionOptions {
	return engine.SessionOptions{NCtx: 1 << 20, NSeq: 1, NBatch: 64}
}
func (f *fixedSession) Cache() *kvcache.Cache { return nil }

// constDraft always drafts n copies of one token.
type constDraft struct {
	tok int32
	n   int
}

func (c constDraft) Name() string          { return "const" }
func (c constDraft) Begin(int, []int32)    {}
func (c constDraft) Accept(int, int)       {}
func (c constDraft) Observe(*engine.Batch) {}
func (c constDraft) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		for range min(c.n, r.NMax) {
			r.Draft = append(r.Draft, c.tok)
		}
	}
}

var targetP = []float64{0.4, 0.25, 0.15, 0.1, 0.06, 0.04}

// chiSquare returns the statistic of counts against targetP.
func chiSquare(counts []int, n int) float64 {
	var x float64
	for i, p := range targetP {
		e := p * float64(n)
		x += (float64(counts[i]) - e) * (float64(counts[i]) - e) / e
	}
	return x
}

// firstVerified returns the token at emitted position pos (1: the first
// token chosen by verification) over runs seeded 1..runs.
func firstVerified(t *testing.T, runs, pos int, verify spec.VerifyFunc) []int {
	logits := make([]float32, len(targetP))
	for i, p := range targetP {
		logits[i] = float32(math.Log(p))
	}
	counts := make([]int, len(targetP))
	drafted := 0
	for seed := 1; seed <= runs; seed++ {
		sess := &fixedSession{logits: logits, lens: map[int]int{}}
		sp := spec.New(sess, spec.NewChainOf(constDraft{tok: 1, n: 3}), &spec.Config{NMax: 3, Adaptive: spec.AdaptiveParams{}})
		if verify != nil {
			spec.SetVerify(sp, verify)
		}
		p := sample.DefaultParams()
		p.Temp, p.TopK, p.TopP, p.MinP, p.Seed = 1, 0, 1, 0, uint32(seed)
		smp, err := sample.New(p, len(targetP))
		if err != nil {
			t.Fatal(err)
		}
		sl := &spec.Slot{Sampler: smp}
		var out []int32
		if _, err := sp.Generate(sl, []int32{0, 1, 2}, pos+4, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
			t.Fatal(err)
		}
		counts[out[pos]]++
		drafted += sl.DraftN
	}
	if drafted == 0 {
		t.Fatal("nothing was drafted: the test would not test verification")
	}
	return counts
}

// chiCritical is the chi-square quantile for 5 degrees of freedom at
// significance 0.001: a correct rule fails with probability 0.1%, and the
// seeds are fixed, so the outcome is deterministic.
const chiCritical = 20.515

// TestSampledVerificationDistribution checks that the tokens chosen by
// the rejection rule (first and second verified positions) are distributed
// as the target's softmax, with drafts of a token the target gives 25%.
func TestSampledVerificationDistribution(t *testing.T) {
	const runs = 4000
	for _, pos := range []int{1, 2} {
		counts := firstVerified(t, runs, pos, nil)
		x := chiSquare(counts, runs)
		t.Logf("position %d: counts %v chi2 %.2f (critical %.2f)", pos, counts, x, chiCritical)
		if x > chiCritical {
			t.Errorf("position %d: chi-square %.2f > %.2f: not the target distribution", pos, x, chiCritical)
		}
	}
	// Test of the test: accepting drafts unchecked must be detected.
	counts := firstVerified(t, runs, 1, spec.VerifyAcceptAll)
	if x := chiSquare(counts, runs); x <= chiCritical {
		t.Errorf("broken rule passed the chi-square test (%.2f)", x)
	}
}
