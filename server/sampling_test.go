package server

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine/sample"
)

// fullSampler maps every sampling field onto engine/sample, as cmd/waggle
// does, processing DRY breakers against the server's vocabulary.
func fullSampler(vocab sample.Vocab) SamplerFactory {
	return func(p SamplingParams, nVocab int) (Sampler, error) {
		sp := sample.DefaultParams()
		sp.Temp, sp.TopK, sp.TopP, sp.MinP, sp.TypicalP = p.Temp, p.TopK, p.TopP, p.MinP, p.TypicalP
		sp.RepeatPenalty, sp.RepeatLastN = p.RepeatPenalty, p.RepeatLastN
		sp.PresencePenalty, sp.FrequencyPenalty = p.PresencePenalty, p.FrequencyPenalty
		sp.Seed, sp.NCtx, sp.MinKeep = p.Seed, p.NCtx, p.MinKeep
		sp.TopNSigma, sp.DynatempRange, sp.DynatempExponent = p.TopNSigma, p.DynatempRange, p.DynatempExponent
		sp.XTCProbability, sp.XTCThreshold = p.XTCProbability, p.XTCThreshold
		sp.Mirostat, sp.MirostatTau, sp.MirostatEta = p.Mirostat, p.MirostatTau, p.MirostatEta
		sp.DryMultiplier, sp.DryBase, sp.DryAllowedLength, sp.DryPenaltyLastN = p.DryMultiplier, p.DryBase, p.DryAllowedLength, p.DryPenaltyLastN
		sp.AdaptiveTarget, sp.AdaptiveDecay = p.AdaptiveTarget, p.AdaptiveDecay
		var err error
		switch {
		case p.SamplingSeq != "":
			sp.Samplers, err = sample.ParseSamplingSeq(p.SamplingSeq)
		case p.Samplers != nil:
			sp.Samplers, err = sample.ParseSamplerNames(p.Samplers, false)
		}
		if err != nil {
			return nil, err
		}
		for _, b := range p.LogitBias {
			sp.LogitBias = append(sp.LogitBias, sample.LogitBias{Token: b.Token, Bias: b.Bias})
		}
		if sp.DryMultiplier != 0 && len(p.DryBreakers) > 0 {
			sp.DryBreakers = sample.NewBreakers(vocab, p.DryBreakers)
		}
		return sample.New(sp, nVocab)
	}
}

func newSamplingServer(t *testing.T, mutate func(*Config)) *testServer {
	return newTestServer(t, func(c *Config) {
		c.NewSampler = fullSampler(c.Tokenizer.(sample.Vocab))
		if mutate != nil {
			mutate(c)
		}
	})
}

// tokensOf reads /completion's "tokens".
func tokensOf(t *testing.T, m map[string]any) []int32 {
	t.Helper()
	raw, ok := m["tokens"].([]any)
	if !ok {
		t.Fatalf("no tokens in %v", m)
	}
	out := make([]int32, len(raw))
	for i, v := range raw {
		out[i] = int32(v.(float64))
	}
	return out
}

func TestSamplingFieldsReported(t *testing.T) {
	ts := newSamplingServer(t, nil)
	code, m := ts.post(t, "/completion", `{"prompt": "once upon a time", "n_predict": 4, "seed": 3,
		"min_keep": 2, "top_n_sigma": 1.5, "dynatemp_range": 0.25, "dynatemp_exponent": 2,
		"xtc_probability": 0.5, "xtc_threshold": 0.2, "dry_multiplier": 0.8, "dry_base": 2,
		"dry_allowed_length": 3, "dry_penalty_last_n": 32, "dry_sequence_breakers": ["\n", "once"],
		"adaptive_target": 0.4, "adaptive_decay": 0.5, "samplers": ["top_k", "dry", "temperature", "adaptive_p"],
		"logit_bias": [[5, 1.5], [6, false]], "ignore_eos": true,
		"reasoning_loop_guard": "stop", "reasoning_loop_min_tokens": 800, "reasoning_loop_window": 1536,
		"reasoning_loop_max_period": 256, "reasoning_loop_min_coverage": 768,
		"reasoning_loop_check_interval": 16, "reasoning_loop_interventions": 0}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	gs := m["generation_settings"].(map[string]any)
	want := map[string]any{
		"min_keep": 2.0, "top_n_sigma": 1.5, "dynatemp_range": 0.25, "dynatemp_exponent": 2.0,
		"xtc_probability": 0.5, "xtc_threshold": 0.2, "dry_multiplier": 0.8, "dry_base": 2.0,
		"dry_allowed_length": 3.0, "dry_penalty_last_n": 32.0, "adaptive_target": 0.4, "adaptive_decay": 0.5,
		"mirostat": 0.0, "ignore_eos": true, "seed": 3.0, "n_predict": 4.0,
		"reasoning_loop_guard": "stop", "reasoning_loop_min_tokens": 800.0, "reasoning_loop_window": 1536.0,
		"reasoning_loop_max_period": 256.0, "reasoning_loop_min_coverage": 768.0,
		"reasoning_loop_check_interval": 16.0, "reasoning_loop_interventions": 0.0,
	}
	for k, v := range want {
		got := gs[k]
		if f, ok := got.(float64); ok {
			got = float64(float32(f)) // reported as float32
			if w, ok := v.(float64); ok {
				v = float64(float32(w))
			}
		}
		if got != v {
			t.Errorf("generation_settings.%s = %v, want %v", k, gs[k], v)
		}
	}
	if s := fmt.Sprint(gs["samplers"]); s != "[top_k dry temperature adaptive_p]" {
		t.Errorf("samplers %s", s)
	}
	if s := fmt.Sprint(gs["dry_sequence_breakers"]); s != "[\n once]" {
		t.Errorf("dry_sequence_breakers %q", s)
	}
	bias := gs["logit_bias"].([]any)
	if len(bias) < 3 || fmt.Sprint(bias[0]) != "map[bias:1.5 token:5]" || fmt.Sprint(bias[1]) != "map[bias:<nil> token:6]" {
		t.Errorf("logit_bias %v (want the two given, then the EOS ban of ignore_eos)", bias)
	}
	// the letters form, and the defaults when nothing is given
	_, m = ts.post(t, "/completion", `{"prompt": "a", "n_predict": 1, "samplers": "kt"}`)
	if s := fmt.Sprint(m["generation_settings"].(map[string]any)["samplers"]); s != "[top_k temperature]" {
		t.Errorf("letters: samplers %s", s)
	}
	_, m = ts.post(t, "/completion", `{"prompt": "a", "n_predict": 1}`)
	gs = m["generation_settings"].(map[string]any)
	if s := fmt.Sprint(gs["samplers"]); s != "[penalties dry top_n_sigma top_k typ_p top_p min_p xtc temperature]" {
		t.Errorf("default samplers %s", s)
	}
	if gs["reasoning_loop_guard"] != "force-close" || gs["dry_penalty_last_n"] != float64(ts.NCtx()) {
		t.Errorf("defaults: guard %v, dry_penalty_last_n %v (want the context size)", gs["reasoning_loop_guard"], gs["dry_penalty_last_n"])
	}
}

func TestSamplingFieldErrors(t *testing.T) {
	ts := newSamplingServer(t, nil)
	cases := map[string]string{
		`"mirostat": 3`:                       "mirostat",
		`"dry_base": 0.5`:                     "dry_base",
		`"dry_multiplier": -1`:                "dry_multiplier",
		`"dry_penalty_last_n": -2`:            "dry_penalty_last_n",
		`"dry_sequence_breakers": []`:         "dry_sequence_breakers",
		`"dry_sequence_breakers": [1]`:        "dry_sequence_breakers",
		`"xtc_probability": 1.5`:              "xtc_probability",
		`"min_keep": -1`:                      "min_keep",
		`"adaptive_decay": 1`:                 "adaptive_decay",
		`"dynatemp_range": -0.5`:              "dynatemp_range",
		`"samplers": ["top_k", "bogus"]`:      "samplers",
		`"samplers": ["top-k"]`:               "samplers", // alternative names are for --samplers only
		`"samplers": "kq"`:                    "samplers",
		`"samplers": ["infill"]`:              "samplers",
		`"samplers": 5`:                       "samplers",
		`"logit_bias": {"99999999": 1}`:       "logit_bias",
		`"logit_bias": {"5": true}`:           "logit_bias",
		`"logit_bias": [[5]]`:                 "logit_bias",
		`"logit_bias": [[1.5, 2]]`:            "logit_bias",
		`"logit_bias": "x"`:                   "logit_bias",
		`"logit_bias": {"5": 1e300}`:          "logit_bias",
		`"reasoning_loop_guard": "sometimes"`: "reasoning_loop_guard",
		`"reasoning_loop_window": 768`:        "reasoning_loop_max_period",
		`"reasoning_loop_min_tokens": 100`:    "reasoning_loop_min_tokens",
		`"reasoning_loop_check_interval": 0`:  "reasoning_loop_check_interval",
		`"reasoning_loop_window": 100000000`:  "reasoning_loop_window",
		`"ignore_eos": "yes"`:                 "ignore_eos",
	}
	for field, param := range cases {
		for _, route := range []string{"/completion", "/v1/completions", "/v1/chat/completions"} {
			body := `{"prompt": "a", "n_predict": 1, ` + field + `}`
			if route == "/v1/chat/completions" {
				body = `{"messages": [{"role": "user", "content": "a"}], "max_tokens": 1, ` + field + `}`
			}
			code, m := ts.post(t, route, body)
			if code != 400 {
				t.Errorf("%s %s: status %d, want 400", route, field, code)
				continue
			}
			if e := errorOf(t, m); e["param"] != param {
				t.Errorf("%s %s: error %v does not name %q", route, field, e, param)
			}
		}
	}
}

// Greedy decoding with logit biases in each form picks the biased tokens,
// and a banned token never comes.
func TestLogitBiasForms(t *testing.T) {
	ts := newSamplingServer(t, nil)
	gen := func(extra string) []int32 {
		t.Helper()
		code, m := ts.post(t, "/completion", `{"prompt": "once upon a time", "n_predict": 6, "temperature": 0, "return_tokens": true`+extra+`}`)
		if code != 200 {
			t.Fatalf("%s: status %d %v", extra, code, m)
		}
		return tokensOf(t, m)
	}
	plain := gen("")
	for _, form := range []string{`, "logit_bias": {"300": 50}`, `, "logit_bias": [[300, 50]]`} {
		if got := gen(form); slices.ContainsFunc(got, func(t int32) bool { return t != 300 }) {
			t.Fatalf("%s: %v, want only token 300", form, got)
		}
	}
	word := ts.cfg.Tokenizer.Encode("time", false, false)
	got := gen(`, "logit_bias": {"time": 50}`)
	if slices.ContainsFunc(got, func(t int32) bool { return !slices.Contains(word, t) }) {
		t.Fatalf("text key: %v, want only the tokens of \"time\" %v", got, word)
	}
	if got := gen(`, "logit_bias": [["time", 50]]`); slices.ContainsFunc(got, func(t int32) bool { return !slices.Contains(word, t) }) {
		t.Fatalf("text pair: %v, want only %v", got, word)
	}
	ban := fmt.Sprintf(`, "logit_bias": {"%d": false}`, plain[0])
	if got := gen(ban); got[0] == plain[0] || slices.Contains(got, plain[0]) {
		t.Fatalf("banned token %d came: %v (unbanned %v)", plain[0], got, plain)
	}
	if got := gen(fmt.Sprintf(`, "logit_bias": [[%d, false]]`, plain[0])); slices.Contains(got, plain[0]) {
		t.Fatalf("banned token %d came (pair form): %v", plain[0], got)
	}
}

func TestIgnoreEOS(t *testing.T) {
	ts := newSamplingServer(t, nil)
	eos := ts.cfg.Tokenizer.EOS()
	code, m := ts.post(t, "/completion", jsonf(`{"prompt": "a", "n_predict": 8, "temperature": 0, "logit_bias": {"%d": 100}}`, eos))
	if code != 200 || m["stop_type"] != "eos" || m["tokens_predicted"] != 1.0 {
		t.Fatalf("EOS pushed up: %v", m)
	}
	code, m = ts.post(t, "/completion", jsonf(`{"prompt": "a", "n_predict": 8, "temperature": 0, "ignore_eos": true, "return_tokens": true, "logit_bias": {"%d": 100}}`, eos))
	if code != 200 || m["stop_type"] != "limit" || m["stop_detail"] != "token_limit" || m["tokens_predicted"] != 8.0 {
		t.Fatalf("ignore_eos: %v", m)
	}
	if slices.Contains(tokensOf(t, m), eos) {
		t.Fatal("ignore_eos emitted EOS")
	}
}

// The request's stage order reaches the sampler: top-k 1 makes a hot
// temperature greedy only when top_k is in the order.
func TestSamplerOrderReachesSampler(t *testing.T) {
	ts := newSamplingServer(t, nil)
	gen := func(extra string) []int32 {
		_, m := ts.post(t, "/completion", `{"prompt": "once upon a time", "n_predict": 12, "return_tokens": true, "seed": 9, "temperature": 8, "top_k": 1`+extra+`}`)
		return tokensOf(t, m)
	}
	greedy := gen(`, "temperature": 0`)
	if got := gen(`, "samplers": ["top_k", "temperature"]`); !slices.Equal(got, greedy) {
		t.Fatalf("top_k 1 first: %v, want greedy %v", got, greedy)
	}
	if got := gen(`, "samplers": "t"`); slices.Equal(got, greedy) {
		t.Fatalf("without top_k a temperature of 8 still gave the greedy tokens %v", got)
	}
	if got, again := gen(`, "mirostat": 2, "mirostat_tau": 3`), gen(`, "mirostat": 2, "mirostat_tau": 3`); !slices.Equal(got, again) || slices.Equal(got, greedy) {
		t.Fatalf("mirostat with a seed: %v then %v", got, again)
	}
}

// /props reports the server's defaults with every sampling field.
func TestPropsSamplingDefaults(t *testing.T) {
	ts := newSamplingServer(t, func(c *Config) {
		c.Sampling = DefaultSampling()
		c.Sampling.Mirostat, c.Sampling.Samplers = 2, []string{"top_k", "temperature"}
		c.LoopGuard = DefaultLoopGuard()
		c.LoopGuard.Mode = LoopGuardOff
	})
	_, body := ts.do(t, "GET", "/props", "")
	var m struct {
		D struct {
			Params map[string]any `json:"params"`
		} `json:"default_generation_settings"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	p := m.D.Params
	if p["mirostat"] != 2.0 || fmt.Sprint(p["samplers"]) != "[top_k temperature]" || p["reasoning_loop_guard"] != "off" ||
		p["dry_base"] != float64(float32(1.75)) || !strings.Contains(fmt.Sprint(p["dry_sequence_breakers"]), ":") {
		t.Fatalf("props params %v", p)
	}
	if math.IsNaN(p["top_n_sigma"].(float64)) {
		t.Fatal("NaN in props")
	}
}
