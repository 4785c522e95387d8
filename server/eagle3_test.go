package server

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// withEagle3 serves stories260K on two slots with the trained EAGLE-3
// drafter (every slot drafts, depth 3), or plainly when drafter is nil.
func withEagle3(t *testing.T, drafter *engine.Loaded) func(*Config) {
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
		c.Session.Taps = eagle3.Taps(drafter.Model.(engine.FeatureDrafterModel).Features().Layers)
		c.Speculator = func(sess engine.Session) (*spec.Speculator, func() error, error) {
			cfg := spec.DefaultConfig()
			cfg.Types, cfg.Adaptive.Enabled = []string{"draft-eagle3"}, false
			cfg.Eagle3.Model, cfg.Eagle3.Target, cfg.Eagle3.Session = drafter.Model, target.Model, sess.Options()
			cfg.Eagle3.TargetVocab, cfg.Eagle3.DraftVocab = target.Tokenizer, drafter.Tokenizer
			chain, err := spec.NewChain(&cfg)
			if err != nil {
				return nil, nil, err
			}
			return spec.New(sess, chain, &cfg), chain.Close, nil
		}
	}
}

// TestEagle3Server: EAGLE-3 requests on two slots at once, as they come
// and with per-request depth, p_min and tree branches, each give the plain server's
// greedy text (so each stream is its solo output); timings and /metrics
// report the drafts; a bad p_min is a 400.
func TestEagle3Server(t *testing.T) {
	md, err := engine.LoadFile(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-eagle3-f32.gguf")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { md.Close() })
	plain := newTestServer(t, withEagle3(t, nil))
	ts := newTestServer(t, withEagle3(t, md))
	prompts := []string{"[1, 403, 407, 261, 378, 432]", "[1, 385, 328, 432, 261, 376]"}
	extras := []string{"", `,"speculative.n_max":1`, `,"speculative.p_min":0.5`, `,"speculative.branch_budget":5`}
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
					t.Errorf("%s%s:\neagle3 %q\nplain  %q", p, extra, got, wants[i])
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
	if metric(body, "llamacpp:n_drafted_total") != float64(drafted) || !strings.Contains(body, `waggle:spec_draft_tokens_total{type="draft-eagle3"}`) {
		t.Errorf("metrics disagree with timings (%d drafted):\n%s", drafted, body)
	}
	if code, m := ts.post(t, "/v1/completions", `{"prompt":"x","max_tokens":2,"speculative.p_min":2}`); code != 400 {
		t.Errorf("p_min 2: status %d %v", code, m)
	}
}
