package sample_test

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/engine/tokenizer"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestMatchesLlamaCppExtra replays testdata/llamacpp_extra.golden: for each
// case (logit bias, custom stage orders, min_keep, Mirostat 1 and 2, XTC,
// top-n-σ, dynamic temperature, adaptive-p, DRY with token or string
// breakers), the tokens llama.cpp's sampler chain picked, step by step, on
// the same synthetic logits as TestMatchesLlamaCpp, after accepting the
// case's prompt ids. testdata/oracle/README.md says how it was made.
func TestMatchesLlamaCppExtra(t *testing.T) {
	forGolden(t, "testdata/llamacpp_extra.golden", func(t *testing.T, c oracleLine) {
		s := c.sampler(t)
		want := strings.Fields(c.out)
		if len(want) != c.int("steps", 40) {
			t.Fatalf("golden has %d tokens, want %d", len(want), c.int("steps", 40))
		}
		logits := make([]float32, c.n)
		scale := c.f32("scale", 8)
		for step := range want {
			for i := range logits {
				v := (i*7919 + step*104729 + 13) % c.n
				logits[i] = float32(v)*scale/float32(c.n) - 4
			}
			got := s.Sample(logits)
			if strconv.Itoa(int(got)) != want[step] {
				t.Fatalf("step %d: sampled %d, llama.cpp sampled %s", step, got, want[step])
			}
			s.Accept(got)
		}
	})
}

// TestDryMatchesLlamaCpp replays testdata/llamacpp_dry.golden: DRY alone,
// with sequence breakers given as strings and processed against a real
// vocabulary, applied to all-zero logits after every prefix of a prompt;
// each step lists the penalized tokens and their logits.
func TestDryMatchesLlamaCpp(t *testing.T) {
	forGolden(t, "testdata/llamacpp_dry.golden", func(t *testing.T, c oracleLine) {
		s := c.sampler(t)
		steps := strings.Split(strings.TrimSpace(c.out), ";")
		if len(steps) != len(c.prompt) {
			t.Fatalf("golden has %d steps for %d prompt tokens", len(steps), len(c.prompt))
		}
		zeros := make([]float32, c.n)
		for i, tok := range c.prompt {
			s.Accept(tok)
			var got []string
			for _, x := range s.Distribution(zeros) {
				if x.Logit != 0 {
					got = append(got, fmt.Sprintf("%d:%s", x.ID, strconv.FormatFloat(float64(x.Logit), 'g', -1, 32)))
				}
			}
			if g := strings.Join(got, ","); g != steps[i] {
				t.Fatalf("after %d prompt tokens: penalized %q, llama.cpp %q", i+1, g, steps[i])
			}
		}
	})
}

// oracleLine is one golden line: "name key=value ... | output".
type oracleLine struct {
	name, out string
	kv        map[string]string
	n         int
	prompt    []int32
	vocab     *tokenizer.Tokenizer
}

func forGolden(t *testing.T, path string, run func(*testing.T, oracleLine)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		head, out, ok := strings.Cut(sc.Text(), " | ")
		if !ok {
			head, out, ok = strings.Cut(sc.Text(), " |")
		}
		if !ok {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		fields := strings.Fields(head)
		c := oracleLine{name: fields[0], out: out, kv: map[string]string{}}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			c.kv[k] = v
		}
		t.Run(c.name, func(t *testing.T) {
			c.resolve(t)
			run(t, c)
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// resolve loads the case's vocabulary (if any) and its prompt ids.
func (c *oracleLine) resolve(t *testing.T) {
	c.n = c.int("n", 0)
	if m := c.kv["model"]; m != "" {
		c.vocab = loadVocab(t, m)
		c.n = c.vocab.NVocab()
	}
	if p := c.kv["prompt"]; p != "" {
		for _, s := range strings.Split(p, ".") {
			v, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			c.prompt = append(c.prompt, int32(v))
		}
	}
}

var vocabs sync.Map // model name -> *tokenizer.Tokenizer

func loadVocab(t *testing.T, name string) *tokenizer.Tokenizer {
	if v, ok := vocabs.Load(name); ok {
		return v.(*tokenizer.Tokenizer)
	}
	f, err := gguf.Open(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	vocabs.Store(name, tk)
	return tk
}

// sampler builds the case's Sampler and accepts its prompt (except in
// probe mode, where the test feeds the prompt itself).
func (c *oracleLine) sampler(t *testing.T) *sample.Sampler {
	p := c.params(t)
	s, err := sample.New(p, c.n)
	if err != nil {
		t.Fatal(err)
	}
	if c.kv["mode"] != "probe" {
		for _, tok := range c.prompt {
			s.Accept(tok)
		}
	}
	return s
}

// params maps the driver's keys (and its defaults, llama.cpp's) to Params.
func (c *oracleLine) params(t *testing.T) sample.Params {
	p := sample.DefaultParams()
	p.Seed = uint32(c.int("seed", 1))
	p.Temp, p.TopK, p.TopP, p.MinP = c.f32("temp", 0.8), c.int("top_k", 40), c.f32("top_p", 0.95), c.f32("min_p", 0.05)
	p.TypicalP, p.MinKeep, p.TopNSigma = c.f32("typ_p", 1), c.int("min_keep", 0), c.f32("top_n_sigma", -1)
	p.DynatempRange, p.DynatempExponent = c.f32("dyn_range", 0), c.f32("dyn_exp", 1)
	p.RepeatLastN, p.RepeatPenalty = c.int("rep_last_n", 64), c.f32("rep_pen", 1)
	p.FrequencyPenalty, p.PresencePenalty = c.f32("freq", 0), c.f32("pres", 0)
	p.Mirostat, p.MirostatTau, p.MirostatEta = c.int("mirostat", 0), c.f32("tau", 5), c.f32("eta", 0.1)
	p.DryMultiplier, p.DryBase = c.f32("dry_mult", 0), c.f32("dry_base", 1.75)
	p.DryAllowedLength, p.DryPenaltyLastN = c.int("dry_allowed", 2), c.int("dry_last_n", -1)
	p.XTCProbability, p.XTCThreshold = c.f32("xtc_p", 0), c.f32("xtc_t", 0.1)
	p.AdaptiveTarget, p.AdaptiveDecay = c.f32("ad_target", -1), c.f32("ad_decay", 0.9)
	p.NCtx = c.int("nctx", 4096)
	if seq, ok := c.kv["samplers"]; ok {
		if seq == "-" {
			seq = ""
		}
		st, err := sample.ParseSamplingSeq(seq)
		if err != nil {
			t.Fatal(err)
		}
		p.Samplers = st
	}
	p.LogitBias = c.biases(t)
	p.DryBreakers = c.breakers(t)
	return p
}

func (c *oracleLine) biases(t *testing.T) []sample.LogitBias {
	var out []sample.LogitBias
	for _, e := range strings.Split(c.kv["bias"], ",") {
		if e == "" {
			continue
		}
		id, v, _ := strings.Cut(e, ":")
		tok, err := strconv.Atoi(id)
		if err != nil {
			t.Fatal(err)
		}
		b := float32(math.Inf(-1))
		if v != "-inf" {
			b = c.parseF32(t, v)
		}
		out = append(out, sample.LogitBias{Token: int32(tok), Bias: b})
	}
	return out
}

func (c *oracleLine) breakers(t *testing.T) *sample.Breakers {
	if toks := c.kv["dry_tokens"]; toks != "" {
		var seqs [][]int32
		for _, s := range strings.Split(toks, "|") {
			var seq []int32
			for _, x := range strings.Split(s, ".") {
				v, err := strconv.Atoi(x)
				if err != nil {
					t.Fatal(err)
				}
				seq = append(seq, int32(v))
			}
			seqs = append(seqs, seq)
		}
		return sample.BreakersFromTokens(seqs)
	}
	var strs []string
	for _, h := range strings.Split(c.kv["breakers"], ",") {
		if h == "" {
			continue
		}
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		strs = append(strs, string(b))
	}
	if len(strs) == 0 {
		return nil
	}
	if c.vocab == nil {
		t.Fatal("string breakers need a model vocabulary")
	}
	return sample.NewBreakers(c.vocab, strs)
}

func (c *oracleLine) int(k string, def int) int {
	v, ok := c.kv[k]
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", k, err))
	}
	return n
}

func (c *oracleLine) f32(k string, def float32) float32 {
	v, ok := c.kv[k]
	if !ok || v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 32)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", k, err))
	}
	return float32(f)
}

func (c *oracleLine) parseF32(t *testing.T, v string) float32 {
	f, err := strconv.ParseFloat(v, 32)
	if err != nil {
		t.Fatal(err)
	}
	return float32(f)
}
