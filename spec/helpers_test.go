package spec_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/spec"
)

func loadDemo(t testing.TB) *engine.Loaded {
	t.Helper()
	b, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func greedyParams() sample.Params {
	p := sample.DefaultParams()
	p.Temp, p.Seed = 0, 1
	return p
}

func newSession(t testing.TB, l *engine.Loaded, nctx int) engine.Session {
	t.Helper()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: nctx, NBatch: 512})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// plain runs engine.Generator, the reference loop.
func plain(t testing.TB, l *engine.Loaded, p sample.Params, prompt []int32, n, nctx int) []int32 {
	t.Helper()
	smp, err := sample.New(p, l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	g := &engine.Generator{Sess: newSession(t, l, nctx), Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	var out []int32
	if _, err := g.Generate(prompt, n, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// speculative runs the Speculator with chain over a fresh session; sess
// may wrap the session (broken-rollback variant). It returns the tokens
// and the error, if any.
func speculative(t testing.TB, l *engine.Loaded, p sample.Params, chain *spec.Chain, prompt []int32, n, nctx int,
	wrap func(engine.Session) engine.Session, verify spec.VerifyFunc, adaptive bool) ([]int32, *spec.Slot, error) {
	t.Helper()
	smp, err := sample.New(p, l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	var sess engine.Session = newSession(t, l, nctx)
	if wrap != nil {
		sess = wrap(sess)
	}
	cfg := spec.DefaultConfig()
	cfg.Adaptive.Enabled = adaptive
	cfg.NMax = 12
	sp := spec.New(sess, chain, &cfg)
	if verify != nil {
		spec.SetVerify(sp, verify)
	}
	sl := &spec.Slot{Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	var out []int32
	_, err = sp.Generate(sl, prompt, n, func(tok int32) bool { out = append(out, tok); return true })
	return out, sl, err
}

// corrupt wraps a strategy and spoils some drafted tokens so that both the
// accept and the reject paths run: of every three drafts, one is spoiled
// at its first token, one in its middle, one left alone.
type corrupt struct {
	spec.Strategy
	nVocab int32
	calls  int
}

func (c *corrupt) Draft(reqs []*spec.Request) {
	c.Strategy.Draft(reqs)
	for _, r := range reqs {
		if len(r.Draft) == 0 {
			continue
		}
		c.calls++
		switch c.calls % 3 {
		case 0:
			r.Draft[0] = (r.Draft[0] + 1) % c.nVocab
		case 1:
			i := len(r.Draft) / 2
			r.Draft[i] = (r.Draft[i] + 7) % c.nVocab
		}
	}
}

// oracle drafts the known reference continuation whenever the context is
// a prefix of it: long drafts that the target accepts, until corrupted.
type oracle struct {
	ref []int32 // prompt followed by the plain output
}

func (o *oracle) Name() string          { return "oracle" }
func (o *oracle) Begin(int, []int32)    {}
func (o *oracle) Accept(int, int)       {}
func (o *oracle) Observe(*engine.Batch) {}
func (o *oracle) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		L := r.Len()
		if L > len(o.ref) {
			continue
		}
		ok := true
		for i := range L {
			if r.Context(i) != o.ref[i] {
				ok = false
				break
			}
		}
		if ok {
			end := min(len(o.ref), L+r.NMax)
			r.Draft = append(r.Draft, o.ref[L:end]...)
		}
	}
}

// plainMargins runs the plain loop step by step and also returns, for each
// generated token, the gap between the two highest logits it was chosen
// from: where that gap is within the engine's batch-shape noise, batched
// verification may legitimately pick the other token.
func plainMargins(t testing.TB, l *engine.Loaded, prompt []int32, n, nctx int) ([]int32, []float32) {
	t.Helper()
	smp, err := sample.New(greedyParams(), l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	sess := newSession(t, l, nctx)
	g := &engine.Generator{Sess: sess, Sampler: smp}
	for _, tok := range prompt {
		smp.Accept(tok)
	}
	if err := g.Prefill(prompt); err != nil {
		t.Fatal(err)
	}
	var toks []int32
	var gaps []float32
	for len(toks) < n {
		lg := sess.Logits(sess.NumOutputs() - 1)
		a, b := float32(-1e30), float32(-1e30)
		for _, v := range lg {
			if v > a {
				a, b = v, a
			} else if v > b {
				b = v
			}
		}
		tok := g.Next()
		toks, gaps = append(toks, tok), append(gaps, a-b)
		if l.Tokenizer.IsEOG(tok) || len(toks) == n {
			break
		}
		if err := g.Feed(tok); err != nil {
			t.Fatal(err)
		}
	}
	return toks, gaps
}

func equalTokens(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
