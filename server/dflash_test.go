package server

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
	_ "github.com/waggle-llm/waggle/spec/dflash"
)

// withDFlash serves stories260K on two slots with the trained DFlash
// drafter (flat by default; requests may ask for trees), or plainly when
// drafter is nil.
func withDFlash(t *testing.T, drafter *engine.Loaded) func(*Config) {
	target, err := engine.LoadFile(testenv.Model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	return func(c *Config) {
		c.Model, c.Tokenizer, c.ModelHash = target.Model, target.Tokenizer, ModelIdentity(target)
		c.Parallel, c.CtxSize = 2, 1024
		if drafter == nil {
			return
		}
		c.Session.Taps = drafter.Model.(engine.BlockDrafterModel).Block().Taps
		c.Speculator = func(sess engine.Session) (*spec.Speculator, func() error, error) {
			cfg := spec.DefaultConfig()
			cfg.Types, cfg.Adaptive.Enabled = []string{"dflash"}, false
			cfg.DFlash = spec.DFlashParams{Model: drafter.Model, Target: target.Model, NMax: 8, TopK: 3,
				CrossCtx: 512, NSeq: sess.Options().NSeq, Seed: 1}
			chain, err := spec.NewChain(&cfg)
			if err != nil {
				return nil, nil, err
			}
			return spec.New(sess, chain, &cfg), chain.Close, nil
		}
	}
}

// TestDFlashServer: DFlash requests on two slots at once, flat and with a
// DDTree asked for per request (speculative.branch_budget, and the legacy
// tree_budget), give the plain server's greedy text; timings and /metrics
// report the drafts; bad tree fields are 400s.
func TestDFlashServer(t *testing.T) {
	md, err := engine.LoadFile(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-dflash-b16-f32.gguf")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { md.Close() })
	plain := newTestServer(t, withDFlash(t, nil))
	ts := newTestServer(t, withDFlash(t, md))
	prompts := []string{"[1, 403, 407, 261, 378, 432]", "[1, 385, 328, 432, 261, 376]"}
	extras := []string{"", `,"speculative.branch_budget":6`, `,"speculative.tree_budget":14,"speculative.n_max":8`, `,"speculative.p_min":0.05`}
	var wants []string
	for _, p := range prompts {
		w, _ := greedy(t, plain, p, "")
		wants = append(wants, w)
	}
	drafted, accepted := 0, 0
	var mu sync.Mutex
	for _, extra := range extras {
		var wg sync.WaitGroup
		for i, p := range prompts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, tm := greedy(t, ts, p, extra)
				if got != wants[i] {
					t.Errorf("%s%s:\ndflash %q\nplain  %q", p, extra, got, wants[i])
				}
				mu.Lock()
				drafted += num(tm, "draft_n")
				accepted += num(tm, "draft_n_accepted")
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	if drafted == 0 || accepted == 0 {
		t.Fatalf("drafted %d, accepted %d: the trained drafter should be accepted", drafted, accepted)
	}
	_, body := ts.do(t, "GET", "/metrics", "")
	if metric(body, "llamacpp:n_drafted_total") != float64(drafted) || !strings.Contains(body, `waggle:spec_draft_tokens_total{type="dflash"}`) {
		t.Errorf("metrics disagree with timings (%d drafted):\n%s", drafted, body)
	}
	for _, bad := range []string{`"speculative.branch_budget":-1`, `"speculative.tree_budget":99999`, `"speculative.p_min":2`, `"speculative.branch_budget":"x"`} {
		code, m := ts.post(t, "/v1/completions", `{"prompt":"x","max_tokens":2,`+bad+`}`)
		if code != 400 {
			t.Errorf("%s: status %d %v", bad, code, m)
		}
	}
}

// TestTreeOptions: branch_budget is taken as given, a legacy tree_budget
// becomes max(0, T - n_max) branch nodes (n_max 16 when not given) unless
// branch_budget is given too, and p_min is passed on.
func TestTreeOptions(t *testing.T) {
	i := func(v int) *int { return &v }
	f := func(v float32) *float32 { return &v }
	for _, c := range []struct {
		r      treeRequest
		nMax   int
		want   int
		has    bool
		wantPM float32
	}{
		{treeRequest{}, 0, 0, false, 0},
		{treeRequest{BranchBudget: i(5)}, 0, 5, true, 0},
		{treeRequest{TreeBudget: i(24)}, 0, 8, true, 0},
		{treeRequest{TreeBudget: i(14)}, 8, 6, true, 0},
		{treeRequest{TreeBudget: i(3)}, 8, 0, true, 0},
		{treeRequest{BranchBudget: i(2), TreeBudget: i(30), PMin: f(0.25)}, 8, 2, true, 0.25},
	} {
		o := spec.RequestOptions{NMax: c.nMax}
		if e := treeOptions(&c.r, &o); e != nil {
			t.Fatal(e)
		}
		if o.BranchBudget != c.want || o.HasBranchBudget != c.has || o.PMin != c.wantPM {
			t.Errorf("%+v (n_max %d): branch budget %d (given %v), p_min %v", c.r, c.nMax, o.BranchBudget, o.HasBranchBudget, o.PMin)
		}
	}
}
