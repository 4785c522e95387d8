package main

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/server"
)

// parseServe parses serve flags without running the command.
func parseServe(t *testing.T, args ...string) (*serveCmd, error) {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("waggle"), kong.Exit(func(int) { t.Fatalf("kong exited on %v", args) }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.Parse(normalizeArgs(append([]string{"serve"}, args...)))
	return &c.Serve, err
}

func demoLoaded(t *testing.T) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadBytes(demoModel())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestServeSamplingFlags(t *testing.T) {
	c, err := parseServe(t, "--temp", "0.5", "--top-nsigma", "1.5", "--min-keep", "3", "--mirostat", "2",
		"--mirostat-lr", "0.2", "--mirostat-ent", "4", "--dry-multiplier", "0.8", "--dry-base", "2",
		"--dry-allowed-length", "3", "--dry-penalty-last-n", "64", "--dry-sequence-breaker", ",",
		"--dry-sequence-breaker", "\n", "--xtc-probability", "0.5", "--xtc-threshold", "0.2",
		"--dynatemp-range", "0.3", "--dynatemp-exp", "2", "--samplers", "top-k;nucleus;temp",
		"-l", "15+1.5", "--logit-bias", "16-2", "--ignore-eos", "-s", "-1", "--top-k", "-1",
		"--reasoning-loop-guard", "stop", "--reasoning-loop-window", "1536", "--reasoning-loop-max-period", "256")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.config(demoLoaded(t))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Sampling
	if s.Temp != 0.5 || s.TopNSigma != 1.5 || s.MinKeep != 3 || s.Mirostat != 2 || s.MirostatEta != 0.2 || s.MirostatTau != 4 ||
		s.DryMultiplier != 0.8 || s.DryBase != 2 || s.DryAllowedLength != 3 || s.DryPenaltyLastN != 64 ||
		!slices.Equal(s.DryBreakers, []string{",", "\n"}) || s.XTCProbability != 0.5 || s.XTCThreshold != 0.2 ||
		s.DynatempRange != 0.3 || s.DynatempExponent != 2 || !slices.Equal(s.Samplers, []string{"top_k", "top_p", "temperature"}) ||
		!slices.Equal(s.LogitBias, []server.LogitBias{{Token: 15, Bias: 1.5}, {Token: 16, Bias: -2}}) || !s.IgnoreEOS ||
		s.Seed != sample.DefaultSeed || s.TopK != -1 {
		t.Fatalf("sampling defaults %+v", s)
	}
	if g := cfg.LoopGuard; g.Mode != server.LoopGuardStop || g.Window != 1536 || g.MaxPeriod != 256 || g.MinTokens != 1024 {
		t.Fatalf("loop guard %+v", g)
	}
	c, _ = parseServe(t, "--sampling-seq", "kt", "--dry-sequence-breaker", "x", "--dry-sequence-breaker", "none")
	cfg, err = c.config(demoLoaded(t))
	if err != nil || !slices.Equal(cfg.Sampling.Samplers, []string{"top_k", "temperature"}) || len(cfg.Sampling.DryBreakers) != 0 ||
		cfg.LoopGuard != server.DefaultLoopGuard() || !slices.Equal(server.DefaultSampling().DryBreakers, []string{"\n", ":", "\"", "*"}) {
		t.Fatalf("--sampling-seq, breaker none: %+v %v", cfg.Sampling, err)
	}
}

func TestBadSamplingFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--samplers", "top_k;bogus"}, {"--sampling-seq", "kq"}, {"--samplers", "top_k", "--sampling-seq", "k"},
		{"--samplers", "infill"}, {"--logit-bias", "15"}, {"--logit-bias", "x+1"}, {"--logit-bias", "15+y"},
		{"--logit-bias", "99999999+1"}, {"--mirostat", "3"}, {"--dry-multiplier", "1", "--dry-base", "0.5"},
		{"--xtc-probability", "2"}, {"--seed", "-2"}, {"--reasoning-loop-guard", "maybe"},
		{"--reasoning-loop-window", "700"}, {"--reasoning-loop-min-tokens", "10"},
	} {
		c, err := parseServe(t, args...)
		if err == nil {
			_, err = c.config(demoLoaded(t))
		}
		if err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestParseLogitBias(t *testing.T) {
	for in, want := range map[string]server.LogitBias{
		"15043+1": {Token: 15043, Bias: 1}, "15043-1": {Token: 15043, Bias: -1}, "7+0.25": {Token: 7, Bias: 0.25},
		"7-inf": {Token: 7, Bias: float32(math.Inf(-1))},
	} {
		if got, err := parseLogitBias(in); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "+1", "-1+2", "1", "a+1", "1*2", "1+"} {
		if _, err := parseLogitBias(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Every server sampling field reaches engine/sample: each, changed alone,
// changes the mapped Params (IgnoreEOS excepted: the server and the run
// command turn it into logit biases themselves).
func TestFactoryMapsEveryField(t *testing.T) {
	fac := &samplerFactory{vocab: demoLoaded(t).Tokenizer}
	base := server.DefaultSampling()
	base.DryMultiplier, base.NCtx = 0.5, 128 // DRY on, so that its breakers map
	want, err := fac.sampleParams(base)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]any{
		"Samplers": []string{"top_k"}, "SamplingSeq": "t", "DryBreakers": []string{"x"},
		"LogitBias": []server.LogitBias{{Token: 1, Bias: 1}}, "Seed": uint32(5), "Mirostat": 1,
	}
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name == "IgnoreEOS" {
			continue
		}
		p := base
		f := reflect.ValueOf(&p).Elem().Field(i)
		switch {
		case changed[name] != nil:
			f.Set(reflect.ValueOf(changed[name]))
		case f.Kind() == reflect.Float32:
			f.SetFloat(f.Float() + 0.125)
		case f.Kind() == reflect.Int:
			f.SetInt(f.Int() + 3)
		default:
			t.Fatalf("field %s (%s) has no test value", name, f.Kind())
		}
		got, err := fac.sampleParams(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if reflect.DeepEqual(got, want) {
			t.Errorf("changing %s changes nothing in sample.Params", name)
		}
	}
}

// `waggle run --ignore-eos` keeps going where stories260K, its EOS pushed
// up by --logit-bias, ends its story.
func TestRunIgnoreEOS(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	var plain, ignored runResult
	for _, c := range []struct {
		res  *runResult
		args []string
	}{{&plain, []string{"-l", "2+20"}}, {&ignored, []string{"-l", "2+20", "--ignore-eos"}}} {
		out, err := runCLI(t, append([]string{"run", "-m", m, "-p", "Once upon a time", "-n", "400", "--temp", "0", "--json"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), c.res); err != nil {
			t.Fatal(err)
		}
	}
	if len(plain.Tokens) >= 400 || len(ignored.Tokens) != 400 || !slices.Equal(ignored.Tokens[:len(plain.Tokens)-1], plain.Tokens[:len(plain.Tokens)-1]) {
		t.Fatalf("plain %d tokens, --ignore-eos %d (want the same story, then on to 400)", len(plain.Tokens), len(ignored.Tokens))
	}
}
