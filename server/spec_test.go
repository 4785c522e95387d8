package server

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
	_ "github.com/waggle-llm/waggle/spec/ngram"
)

// withSpec configures an ngram-simple chain with short keys, so that the
// demo network's repetitive greedy output gets drafts.
func withSpec(adaptive bool) func(*Config) {
	return func(c *Config) {
		c.Parallel, c.CtxSize = 3, 768
		c.Speculator = func(sess engine.Session) (*spec.Speculator, func() error, error) {
			cfg := spec.DefaultConfig()
			cfg.Types = []string{"ngram-simple"}
			cfg.NgramSimple = spec.NgramParams{SizeN: 2, SizeM: 8, MinHits: 1}
			cfg.Adaptive.Enabled = adaptive
			chain, err := spec.NewChain(&cfg)
			if err != nil {
				return nil, nil, err
			}
			return spec.New(sess, chain, &cfg), chain.Close, nil
		}
	}
}

// specPrompts are token-id prompts with repeated n-grams.
var specPrompts = []string{
	"[1, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8]",
	"[1, 9, 10, 9, 10, 9, 10, 9, 10]",
	"[1, 20, 21, 22, 20, 21, 22, 20]",
	"[1, 30, 31, 32, 33, 34, 35]",
}

// greedy runs one greedy completion and returns its text and timings.
func greedy(t *testing.T, ts *testServer, prompt, extra string) (string, map[string]any) {
	t.Helper()
	code, m := ts.post(t, "/v1/completions", `{"prompt":`+prompt+`,"max_tokens":48,"temperature":0`+extra+`}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	return m["choices"].([]any)[0].(map[string]any)["text"].(string), m["timings"].(map[string]any)
}

func num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}

// TestSpecGreedyEqualsPlain: greedy output with speculation equals the
// same request on a server without it and with "speculative.type":"none",
// drafts really happened, and timings and /metrics report them.
func TestSpecGreedyEqualsPlain(t *testing.T) {
	plain := newTestServer(t, func(c *Config) { c.Parallel, c.CtxSize = 3, 768 })
	ts := newTestServer(t, withSpec(false))
	drafted, accepted := 0, 0
	for _, p := range specPrompts {
		want, _ := greedy(t, plain, p, "")
		got, tm := greedy(t, ts, p, "")
		off, tmOff := greedy(t, ts, p, `,"speculative.type":"none"`)
		if got != want || off != want {
			t.Errorf("prompt %s:\nspec  %q\nnone  %q\nplain %q", p, got, off, want)
		}
		if num(tmOff, "draft_n") != 0 {
			t.Errorf("speculative.type none drafted: %v", tmOff)
		}
		drafted += num(tm, "draft_n")
		accepted += num(tm, "draft_n_accepted")
	}
	if drafted == 0 || accepted == 0 {
		t.Fatalf("no drafts (%d) or none accepted (%d): the test proves nothing", drafted, accepted)
	}
	t.Logf("drafted %d, accepted %d", drafted, accepted)
	_, body := ts.do(t, "GET", "/metrics", "")
	if metric(body, "llamacpp:n_drafted_total") != float64(drafted) ||
		metric(body, "llamacpp:n_drafted_accepted_total") != float64(accepted) {
		t.Errorf("metrics disagree with timings (%d/%d):\n%s", drafted, accepted, body)
	}
	if !strings.Contains(body, `waggle:spec_draft_tokens_total{type="ngram-simple"}`) {
		t.Errorf("no per-strategy counter:\n%s", body)
	}
}

func metric(body, name string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestSpecConcurrentEqualsAlone: greedy and seeded sampled requests, run
// together on the speculative slots (streaming and not, mixed with a
// logprobs request that takes the plain path), give what they give alone.
func TestSpecConcurrentEqualsAlone(t *testing.T) {
	ts := newTestServer(t, withSpec(true))
	reqs := []string{
		`{"prompt":` + specPrompts[0] + `,"max_tokens":40,"temperature":0}`,
		`{"prompt":` + specPrompts[1] + `,"max_tokens":40,"temperature":0.8,"seed":7}`,
		`{"prompt":` + specPrompts[2] + `,"max_tokens":40,"temperature":0,"speculative.n_max":2}`,
		`{"prompt":` + specPrompts[3] + `,"max_tokens":40,"temperature":0,"logprobs":2}`,
		`{"prompt":` + specPrompts[0] + `,"max_tokens":40,"temperature":0,"stop":["zz"],"n":2}`,
	}
	text := func(body string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		var out []string
		for _, c := range m["choices"].([]any) {
			out = append(out, c.(map[string]any)["text"].(string))
		}
		return strings.Join(out, "|")
	}
	alone := make([]string, len(reqs))
	for i, r := range reqs {
		_, b := ts.do(t, "POST", "/v1/completions", r)
		alone[i] = text(b)
	}
	for round := range 2 {
		got := make([]string, len(reqs))
		var wg sync.WaitGroup
		for i, r := range reqs {
			wg.Add(1)
			go func() { defer wg.Done(); _, b := ts.do(t, "POST", "/v1/completions", r); got[i] = text(b) }()
		}
		wg.Wait()
		for i := range reqs {
			if got[i] != alone[i] {
				t.Errorf("round %d request %d: concurrent %q != alone %q", round, i, got[i], alone[i])
			}
		}
	}
}

// TestSpecRequestOptions: overrides are validated (a type the server was
// not started with is a 400) and n_max bounds each draft.
func TestSpecRequestOptions(t *testing.T) {
	ts := newTestServer(t, withSpec(false))
	for _, bad := range []string{
		`"speculative.type":"ngram-mod"`, `"speculative.type":"bogus"`, `"speculative.type":5`,
		`"speculative.n_max":-1`, `"speculative.n_min":100000`,
	} {
		code, m := ts.post(t, "/v1/completions", `{"prompt":"x","max_tokens":2,`+bad+`}`)
		if code != 400 || errorOf(t, m)["param"] == "" {
			t.Errorf("%s: status %d %v", bad, code, m)
		}
	}
	code, m := ts.post(t, "/v1/completions", `{"prompt":"x","max_tokens":2,"speculative.type":["ngram-simple"],"speculative.n_min":1}`)
	if code != 200 {
		t.Errorf("allowed type refused: %d %v", code, m)
	}
	plain := newTestServer(t, nil)
	if code, m := plain.post(t, "/v1/completions", `{"prompt":"x","max_tokens":2,"speculative.type":"ngram-simple"}`); code != 400 {
		t.Errorf("type on a server without speculation: %d %v", code, m)
	}
	// n_max 1: every draft is one token, so draft_n equals the cycles that drafted.
	_, tm := greedy(t, ts, specPrompts[0], `,"speculative.n_max":1`)
	_, tmFull := greedy(t, ts, specPrompts[0], "")
	if num(tm, "draft_n") == 0 || num(tm, "draft_n") >= num(tmFull, "draft_n") {
		t.Errorf("n_max 1 drafted %d, default %d", num(tm, "draft_n"), num(tmFull, "draft_n"))
	}
}

// TestSpecControllerSurvivesRequests: each server slot keeps one spec.Slot
// whose adaptive controller lives across requests.
func TestSpecControllerSurvivesRequests(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { withSpec(true)(c); c.Parallel, c.CtxSize = 1, 128 })
	greedy(t, ts, specPrompts[0], "")
	waitIdle(t, ts, 5*time.Second)
	ctl := ts.sched.slots[0].spec.Controller()
	greedy(t, ts, specPrompts[1], "")
	waitIdle(t, ts, 5*time.Second)
	if ctl == nil || ts.sched.slots[0].spec.Controller() != ctl {
		t.Fatalf("controller %p replaced by %p", ctl, ts.sched.slots[0].spec.Controller())
	}
}
