package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/server"
)

// samplingFlags are llama.cpp's sampling options, with its names and
// defaults, shared by run and serve (where they are the requests' defaults).
type samplingFlags struct {
	Temp             float32  `name:"temp" aliases:"temperature" help:"Temperature (<= 0: greedy)." default:"0.8"`
	TopK             int      `name:"top-k" help:"Top-k sampling (0: off)." default:"40"`
	TopP             float32  `name:"top-p" help:"Top-p (nucleus) sampling (1: off)." default:"0.95"`
	MinP             float32  `name:"min-p" help:"Min-p sampling (0: off)." default:"0.05"`
	TypicalP         float32  `name:"typical" aliases:"typical-p" help:"Locally typical sampling (1: off)." default:"1.0"`
	TopNSigma        float32  `name:"top-nsigma" aliases:"top-n-sigma" help:"Top-n-sigma sampling (<= 0: off)." default:"-1"`
	MinKeep          int      `name:"min-keep" help:"Least number of tokens top-p, min-p, typical-p and XTC leave (0: no floor)." default:"0"`
	XTCProbability   float32  `name:"xtc-probability" help:"XTC: chance per token of removing the top choices (0: off)." default:"0"`
	XTCThreshold     float32  `name:"xtc-threshold" help:"XTC: probability that makes a token a top choice (> 0.5: off)." default:"0.1"`
	DynatempRange    float32  `name:"dynatemp-range" help:"Dynamic temperature range (0: off)." default:"0"`
	DynatempExp      float32  `name:"dynatemp-exp" help:"Dynamic temperature exponent." default:"1"`
	Mirostat         int      `name:"mirostat" help:"Mirostat sampling: 0 off, 1 Mirostat, 2 Mirostat 2.0 (replaces the other samplers)." default:"0"`
	MirostatLR       float32  `name:"mirostat-lr" help:"Mirostat learning rate (eta)." default:"0.1"`
	MirostatEnt      float32  `name:"mirostat-ent" help:"Mirostat target entropy (tau)." default:"5"`
	RepeatPenalty    float32  `name:"repeat-penalty" help:"Penalty for repeated tokens (1: off)." default:"1.0"`
	RepeatLastN      int      `name:"repeat-last-n" help:"Tokens considered for penalties (-1: context size, 0: off)." default:"64"`
	PresencePenalty  float32  `name:"presence-penalty" help:"Presence penalty (0: off)." default:"0"`
	FrequencyPenalty float32  `name:"frequency-penalty" help:"Frequency penalty (0: off)." default:"0"`
	DryMultiplier    float32  `name:"dry-multiplier" help:"DRY repetition penalty multiplier (0: off)." default:"0"`
	DryBase          float32  `name:"dry-base" help:"DRY penalty base (>= 1)." default:"1.75"`
	DryAllowedLength int      `name:"dry-allowed-length" help:"DRY: longest repetition left unpenalized." default:"2"`
	DryPenaltyLastN  int      `name:"dry-penalty-last-n" help:"DRY: tokens scanned for repetitions (-1: context size, 0: off)." default:"-1"`
	DryBreakers      []string `name:"dry-sequence-breaker" sep:"none" help:"DRY sequence breaker (repeatable; replaces the defaults \\n : \" *; \"none\" for none)."`
	AdaptiveTarget   float32  `name:"adaptive-target" help:"adaptive-p: target probability (negative: off; acts when the order names adaptive_p)." default:"-1"`
	AdaptiveDecay    float32  `name:"adaptive-decay" help:"adaptive-p: decay of its moving average, in [0, 0.99]." default:"0.9"`
	Samplers         string   `name:"samplers" help:"Sampler order, ';'-separated (penalties;dry;top_n_sigma;top_k;typ_p;top_p;min_p;xtc;temperature, adaptive_p)."`
	SamplingSeq      string   `name:"sampling-seq" aliases:"sampler-seq" help:"Sampler order as letters (default edskypmxt)."`
	LogitBias        []string `name:"logit-bias" short:"l" sep:"none" help:"Bias a token: TOKEN_ID+BIAS or TOKEN_ID-BIAS (repeatable)."`
	IgnoreEOS        bool     `name:"ignore-eos" help:"Never end at an end-of-generation token (bans them with a -inf logit bias)."`
	Seed             int64    `name:"seed" short:"s" help:"RNG seed (-1 or 4294967295: random)." default:"-1"`
}

// params turns the flags into the server's sampling fields. Errors name
// the flag.
func (f *samplingFlags) params() (server.SamplingParams, error) {
	p := server.DefaultSampling()
	p.Temp, p.TopK, p.TopP, p.MinP, p.TypicalP = f.Temp, f.TopK, f.TopP, f.MinP, f.TypicalP
	p.TopNSigma, p.MinKeep, p.XTCProbability, p.XTCThreshold = f.TopNSigma, f.MinKeep, f.XTCProbability, f.XTCThreshold
	p.DynatempRange, p.DynatempExponent = f.DynatempRange, f.DynatempExp
	p.Mirostat, p.MirostatEta, p.MirostatTau = f.Mirostat, f.MirostatLR, f.MirostatEnt
	p.RepeatPenalty, p.RepeatLastN = f.RepeatPenalty, f.RepeatLastN
	p.PresencePenalty, p.FrequencyPenalty = f.PresencePenalty, f.FrequencyPenalty
	p.DryMultiplier, p.DryBase, p.DryAllowedLength, p.DryPenaltyLastN = f.DryMultiplier, f.DryBase, f.DryAllowedLength, f.DryPenaltyLastN
	p.AdaptiveTarget, p.AdaptiveDecay, p.IgnoreEOS = f.AdaptiveTarget, f.AdaptiveDecay, f.IgnoreEOS
	if f.DryBreakers != nil {
		p.DryBreakers = []string{}
		for _, b := range f.DryBreakers {
			if b == "none" {
				p.DryBreakers = []string{}
				continue
			}
			p.DryBreakers = append(p.DryBreakers, b)
		}
	}
	if f.Seed < -1 || f.Seed > math.MaxUint32 {
		return p, fmt.Errorf("--seed must be -1 (random) or in [0, 4294967295], got %d", f.Seed)
	}
	p.Seed = uint32(f.Seed) // -1 wraps to 0xFFFFFFFF: random
	order, err := f.order()
	if err != nil {
		return p, err
	}
	p.Samplers = order
	for _, s := range f.LogitBias {
		b, err := parseLogitBias(s)
		if err != nil {
			return p, err
		}
		p.LogitBias = append(p.LogitBias, b)
	}
	return p, nil
}

// order resolves --samplers (names, llama.cpp's alternative spellings
// allowed) or --sampling-seq (letters) to canonical names; nil keeps the
// default order.
func (f *samplingFlags) order() ([]string, error) {
	switch {
	case f.Samplers != "" && f.SamplingSeq != "":
		return nil, fmt.Errorf("give --samplers or --sampling-seq, not both")
	case f.Samplers != "":
		st, err := sample.ParseSamplerNames(strings.Split(f.Samplers, ";"), true)
		if err != nil {
			return nil, fmt.Errorf("--samplers: %w", err)
		}
		return sample.SamplerNames(st), nil
	case f.SamplingSeq != "":
		st, err := sample.ParseSamplingSeq(f.SamplingSeq)
		if err != nil {
			return nil, fmt.Errorf("--sampling-seq: %w", err)
		}
		return sample.SamplerNames(st), nil
	}
	return nil, nil
}

// parseLogitBias reads llama.cpp's --logit-bias TOKEN_ID(+/-)BIAS.
func parseLogitBias(s string) (server.LogitBias, error) {
	i := strings.IndexAny(s, "+-")
	if i == 0 && len(s) > 1 { // a negative token id is not valid either, but find the sign after it
		i = 1 + strings.IndexAny(s[1:], "+-")
	}
	bad := fmt.Errorf("--logit-bias %q: want TOKEN_ID+BIAS or TOKEN_ID-BIAS (e.g. 15043+1)", s)
	if i <= 0 {
		return server.LogitBias{}, bad
	}
	id, err := strconv.ParseInt(strings.TrimSpace(s[:i]), 10, 32)
	if err != nil || id < 0 {
		return server.LogitBias{}, bad
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s[i+1:]), 32)
	if err != nil || math.IsNaN(v) {
		return server.LogitBias{}, bad
	}
	if s[i] == '-' {
		v = -v
	}
	return server.LogitBias{Token: int32(id), Bias: float32(v)}, nil
}

// samplerFactory builds the samplers of one model: the server's fields
// mapped onto engine/sample, DRY's breaker strings processed against vocab
// once per distinct list.
type samplerFactory struct {
	vocab interface {
		sample.Vocab
		IsEOG(id int32) bool
	}
	mu       sync.Mutex
	breakers map[string]*sample.Breakers
}

// maxBreakerSets bounds the cache of processed breaker lists.
const maxBreakerSets = 16

// newSampler is the server.SamplerFactory.
func (f *samplerFactory) newSampler(p server.SamplingParams, nVocab int) (server.Sampler, error) {
	sp, err := f.sampleParams(p)
	if err != nil {
		return nil, err
	}
	return sample.New(sp, nVocab)
}

// sampleParams maps the server's fields onto engine/sample.Params.
func (f *samplerFactory) sampleParams(p server.SamplingParams) (sample.Params, error) {
	sp := sample.DefaultParams()
	sp.Temp, sp.TopK, sp.TopP, sp.MinP, sp.TypicalP = p.Temp, p.TopK, p.TopP, p.MinP, p.TypicalP
	sp.RepeatPenalty, sp.RepeatLastN = p.RepeatPenalty, p.RepeatLastN
	sp.PresencePenalty, sp.FrequencyPenalty = p.PresencePenalty, p.FrequencyPenalty
	sp.Seed, sp.NCtx, sp.MinKeep = p.Seed, p.NCtx, p.MinKeep
	sp.TopNSigma, sp.DynatempRange, sp.DynatempExponent = p.TopNSigma, p.DynatempRange, p.DynatempExponent
	sp.XTCProbability, sp.XTCThreshold = p.XTCProbability, p.XTCThreshold
	sp.Mirostat, sp.MirostatTau, sp.MirostatEta = p.Mirostat, p.MirostatTau, p.MirostatEta
	sp.DryMultiplier, sp.DryBase = p.DryMultiplier, p.DryBase
	sp.DryAllowedLength, sp.DryPenaltyLastN = p.DryAllowedLength, p.DryPenaltyLastN
	sp.AdaptiveTarget, sp.AdaptiveDecay = p.AdaptiveTarget, p.AdaptiveDecay
	var err error
	switch {
	case p.SamplingSeq != "":
		sp.Samplers, err = sample.ParseSamplingSeq(p.SamplingSeq)
	case p.Samplers != nil:
		sp.Samplers, err = sample.ParseSamplerNames(p.Samplers, false)
	}
	if err != nil {
		return sp, err
	}
	for _, b := range p.LogitBias {
		sp.LogitBias = append(sp.LogitBias, sample.LogitBias{Token: b.Token, Bias: b.Bias})
	}
	if sp.DryMultiplier != 0 {
		sp.DryBreakers = f.dryBreakers(p.DryBreakers)
	}
	return sp, nil
}

// eogBias bans every end-of-generation token: ignore_eos for the run
// command (the server adds these itself).
func (f *samplerFactory) eogBias() []server.LogitBias {
	var out []server.LogitBias
	for id := range int32(f.vocab.NVocab()) {
		if f.vocab.IsEOG(id) {
			out = append(out, server.LogitBias{Token: id, Bias: float32(math.Inf(-1))})
		}
	}
	return out
}

// dryBreakers processes a breaker list against the vocabulary, caching the
// result: processing scans the whole vocabulary.
func (f *samplerFactory) dryBreakers(strs []string) *sample.Breakers {
	if len(strs) == 0 {
		return nil
	}
	key := strings.Join(strs, "\x00")
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.breakers[key]; ok {
		return b
	}
	if f.breakers == nil || len(f.breakers) >= maxBreakerSets {
		f.breakers = map[string]*sample.Breakers{}
	}
	b := sample.NewBreakers(f.vocab, strs)
	f.breakers[key] = b
	return b
}
