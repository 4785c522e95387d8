package sample

import (
	"math"
)

// DefaultSeed asks for a random seed, as LLAMA_DEFAULT_SEED does in llama.cpp.
const DefaultSeed uint32 = 0xFFFFFFFF

// maxWindow bounds RepeatLastN and DryPenaltyLastN, whose history buffers
// New allocates; a window is also capped at NCtx when that is set, since a
// longer history than the context cannot occur without a context shift.
const maxWindow = 1 << 22

// Params configures a Sampler. Field meanings, neutral values and defaults
// follow llama.cpp's common_params_sampling so that a command line or a
// request body can be mapped one to one.
type Params struct {
	// Temp divides the logits. Temp <= 0 keeps only the highest logit
	// (greedy), unless DynatempRange > 0. Temp == 1 is neutral.
	Temp float32
	// TopP keeps the smallest most-probable prefix whose probability mass
	// reaches TopP. 1 disables it. Range [0, 1].
	TopP float32
	// MinP drops tokens whose probability is below MinP times the largest
	// probability. 0 disables it. Range [0, 1].
	MinP float32
	// TypicalP keeps the locally typical tokens (Meister et al.) up to this
	// mass. 1 disables it. Range [0, 1].
	TypicalP float32
	// TopK keeps the K highest logits. 0 (or -1) disables it.
	TopK int
	// RepeatPenalty divides positive and multiplies non-positive logits of
	// tokens seen in the last RepeatLastN accepted tokens. 1 is neutral; must
	// be > 0.
	RepeatPenalty float32
	// PresencePenalty is subtracted once from every token seen in the window.
	PresencePenalty float32
	// FrequencyPenalty is subtracted once per occurrence in the window.
	FrequencyPenalty float32
	// RepeatLastN is the penalty window: 0 disables the penalties, -1 means
	// the context size (NCtx).
	RepeatLastN int
	// Seed seeds the RNG; DefaultSeed picks a random one.
	Seed uint32

	// NCtx is the context size that RepeatLastN == -1 stands for.
	NCtx int
	// MinKeep is the least number of candidates top-p, min-p and typical-p
	// leave behind (0 means no extra floor; at least one always survives).
	MinKeep int
	// DynatempRange > 0 turns Temp into the centre of a range
	// [max(0, Temp-DynatempRange), Temp+DynatempRange] chosen per token from
	// the normalised entropy of the candidates.
	DynatempRange float32
	// DynatempExponent shapes the entropy to temperature mapping (1 = linear).
	DynatempExponent float32
	// TopNSigma keeps the logits within TopNSigma standard deviations of the
	// largest one. <= 0 disables it.
	TopNSigma float32

	// Samplers is the order of the configurable stages (llama.cpp's
	// "samplers"); nil means DefaultSamplers. A stage may appear more than
	// once, as in llama.cpp, where each occurrence is a separate sampler.
	Samplers []Stage
	// LogitBias is added to the logits before every other stage, entry by
	// entry in order (a token listed twice gets both). -Inf bans a token.
	LogitBias []LogitBias

	// Mirostat 1 or 2 replaces the whole stage list with temperature
	// followed by Mirostat (v1 estimates over the 100 most likely tokens);
	// 0 disables it.
	Mirostat int
	// MirostatTau is the target surprise (entropy) in bits.
	MirostatTau float32
	// MirostatEta is the learning rate of the surprise estimate.
	MirostatEta float32

	// DryMultiplier scales the DRY penalty; 0 disables DRY.
	DryMultiplier float32
	// DryBase is the base of the penalty's exponential growth (>= 1).
	DryBase float32
	// DryAllowedLength is the longest repetition that goes unpenalized.
	DryAllowedLength int
	// DryPenaltyLastN is how many recent tokens DRY scans: 0 disables it,
	// -1 means the context size (NCtx).
	DryPenaltyLastN int
	// DryBreakers are the sequence breakers as token sequences (see
	// NewBreakers); nil means none.
	DryBreakers *Breakers

	// XTCProbability is the chance per token that XTC removes the most
	// likely tokens; 0 disables it.
	XTCProbability float32
	// XTCThreshold is the probability a token needs to count as a top
	// choice; above 0.5 XTC never acts.
	XTCThreshold float32

	// AdaptiveTarget is adaptive-p's target probability (negative: plain
	// draw). It only acts when Samplers contains StageAdaptiveP.
	AdaptiveTarget float32
	// AdaptiveDecay is adaptive-p's EMA decay, in [0, 0.99].
	AdaptiveDecay float32
}

// LogitBias adds Bias to the logit of Token.
type LogitBias struct {
	Token int32
	Bias  float32
}

// DefaultParams returns llama.cpp's common defaults: temp 0.8, top_k 40,
// top_p 0.95, min_p 0.05, typical_p 1, neutral penalties over the last 64
// tokens, dynatemp off (exponent 1), top-n-σ off, the default stage order,
// Mirostat off (tau 5, eta 0.1), DRY off (base 1.75, allowed length 2, over
// the whole context), XTC off (threshold 0.1), adaptive-p off (decay 0.9),
// random seed.
func DefaultParams() Params {
	return Params{
		Temp:             0.8,
		TopP:             0.95,
		MinP:             0.05,
		TypicalP:         1,
		TopK:             40,
		RepeatPenalty:    1,
		RepeatLastN:      64,
		Seed:             DefaultSeed,
		DynatempExponent: 1,
		TopNSigma:        -1,
		MirostatTau:      5,
		MirostatEta:      0.1,
		DryBase:          1.75,
		DryAllowedLength: 2,
		DryPenaltyLastN:  -1,
		XTCThreshold:     0.1,
		AdaptiveTarget:   -1,
		AdaptiveDecay:    0.9,
	}
}

// Validate reports the first out-of-range field. llama.cpp silently treats
// many of these as "disabled"; here they are errors so that a typo in a
// request is visible instead of quietly changing the distribution. Field
// names in the messages are the request fields'.
func (p Params) Validate() error {
	finite := []struct {
		name string
		v    float32
	}{
		{"temperature", p.Temp}, {"top_p", p.TopP}, {"min_p", p.MinP},
		{"typical_p", p.TypicalP}, {"repeat_penalty", p.RepeatPenalty},
		{"presence_penalty", p.PresencePenalty},
		{"frequency_penalty", p.FrequencyPenalty},
		{"dynatemp_range", p.DynatempRange},
		{"dynatemp_exponent", p.DynatempExponent},
		{"top_n_sigma", p.TopNSigma},
		{"mirostat_tau", p.MirostatTau}, {"mirostat_eta", p.MirostatEta},
		{"dry_multiplier", p.DryMultiplier}, {"dry_base", p.DryBase},
		{"xtc_probability", p.XTCProbability}, {"xtc_threshold", p.XTCThreshold},
		{"adaptive_target", p.AdaptiveTarget}, {"adaptive_decay", p.AdaptiveDecay},
	}
	for _, f := range finite {
		if !isFinite(f.v) {
			return paramErr(f.name, "%s must be a finite number, got %v", f.name, f.v)
		}
	}
	for _, check := range []func() error{p.validateRanges, p.validateCounts, p.validateExtras, p.validateStages} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (p Params) validateRanges() error {
	unit := []struct {
		name string
		v    float32
	}{{"top_p", p.TopP}, {"min_p", p.MinP}, {"typical_p", p.TypicalP},
		{"xtc_probability", p.XTCProbability}, {"xtc_threshold", p.XTCThreshold}}
	for _, f := range unit {
		if f.v < 0 || f.v > 1 {
			return paramErr(f.name, "%s must be in [0, 1], got %v", f.name, f.v)
		}
	}
	if p.RepeatPenalty <= 0 {
		return paramErr("repeat_penalty", "repeat_penalty must be > 0 (1 disables it), got %v", p.RepeatPenalty)
	}
	if p.DynatempRange < 0 {
		return paramErr("dynatemp_range", "dynatemp_range must be >= 0, got %v", p.DynatempRange)
	}
	return nil
}

func (p Params) validateCounts() error {
	if p.TopK < -1 {
		return paramErr("top_k", "top_k must be >= 0 (0 or -1 disable it), got %d", p.TopK)
	}
	if p.NCtx < 0 {
		return paramErr("n_ctx", "n_ctx must be >= 0, got %d", p.NCtx)
	}
	for _, w := range []struct {
		name string
		v    int
		used bool
	}{{"repeat_last_n", p.RepeatLastN, true}, {"dry_penalty_last_n", p.DryPenaltyLastN, p.DryMultiplier != 0}} {
		switch {
		case w.v < -1:
			return paramErr(w.name, "%s must be >= -1 (-1 = context size, 0 = off), got %d", w.name, w.v)
		case w.v > maxWindow:
			return paramErr(w.name, "%s must be at most %d, got %d", w.name, maxWindow, w.v)
		case w.v == -1 && w.used && p.NCtx <= 0:
			return paramErr(w.name, "%s = -1 needs the context size in NCtx", w.name)
		}
	}
	if p.MinKeep < 0 {
		return paramErr("min_keep", "min_keep must be >= 0, got %d", p.MinKeep)
	}
	return nil
}

// validateExtras checks Mirostat, DRY, adaptive-p and the logit biases.
func (p Params) validateExtras() error {
	if p.Mirostat < 0 || p.Mirostat > 2 {
		return paramErr("mirostat", "mirostat must be 0 (off), 1 or 2, got %d", p.Mirostat)
	}
	if p.DryMultiplier < 0 {
		return paramErr("dry_multiplier", "dry_multiplier must be >= 0 (0 disables DRY), got %v", p.DryMultiplier)
	}
	if p.DryMultiplier != 0 && p.DryBase < 1 {
		return paramErr("dry_base", "dry_base must be >= 1, got %v", p.DryBase)
	}
	if p.DryAllowedLength < 0 {
		return paramErr("dry_allowed_length", "dry_allowed_length must be >= 0, got %d", p.DryAllowedLength)
	}
	if p.AdaptiveDecay < 0 || p.AdaptiveDecay > 0.99 {
		return paramErr("adaptive_decay", "adaptive_decay must be in [0, 0.99], got %v", p.AdaptiveDecay)
	}
	for _, b := range p.LogitBias {
		if b.Token < 0 {
			return paramErr("logit_bias", "logit_bias token %d is negative", b.Token)
		}
		if b.Bias != b.Bias || math.IsInf(float64(b.Bias), 1) {
			return paramErr("logit_bias", "logit_bias for token %d must be a number or -Inf, got %v", b.Token, b.Bias)
		}
	}
	return nil
}

func (p Params) validateStages() error {
	if len(p.Samplers) > maxSamplers {
		return paramErr("samplers", "at most %d samplers, got %d", maxSamplers, len(p.Samplers))
	}
	for _, s := range p.Samplers {
		switch {
		case !s.valid():
			return paramErr("samplers", "unknown sampler %d", uint8(s))
		case s == StageInfill:
			return paramErr("samplers", "the infill sampler is not supported")
		}
	}
	return nil
}

// defaultSamplers is DefaultSamplers without an allocation per use.
var defaultSamplers = DefaultSamplers()

// stages is the configured stage order (empty under Mirostat, which
// replaces it).
func (p *Params) stages() []Stage {
	switch {
	case p.Mirostat != 0:
		return nil
	case p.Samplers == nil:
		return defaultSamplers
	}
	return p.Samplers
}

// has reports whether the stage order contains st.
func (p *Params) has(st Stage) bool {
	for _, s := range p.stages() {
		if s == st {
			return true
		}
	}
	return false
}

// penaltyWindow resolves RepeatLastN to a window length (0 = no penalties).
func (p *Params) penaltyWindow() int { return p.window(p.RepeatLastN) }

// window resolves a history length: -1 is the context size, and any length
// is capped at the context size when it is known.
func (p *Params) window(n int) int {
	switch {
	case n == -1:
		return p.NCtx
	case p.NCtx > 0:
		return min(n, p.NCtx)
	}
	return n
}

// penaltiesActive mirrors llama.cpp's "empty sampler" test for penalties,
// and requires the stage to be in the order.
func (p *Params) penaltiesActive() bool {
	return p.penaltyWindow() > 0 &&
		(p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0) &&
		p.has(StagePenalties)
}

// dryWindow resolves DryPenaltyLastN to a window length (0 = no DRY).
func (p *Params) dryWindow() int { return p.window(p.DryPenaltyLastN) }

// dryActive mirrors llama_sampler_init_dry's "empty sampler" test.
func (p *Params) dryActive() bool {
	return p.DryMultiplier != 0 && p.DryBase >= 1 && p.dryWindow() > 0 && p.has(StageDRY)
}

// xtcActive mirrors llama_sampler_init_xtc's "empty sampler" test.
func (p *Params) xtcActive() bool {
	return p.XTCProbability > 0 && p.XTCThreshold <= 0.5 && p.has(StageXTC)
}

// greedyChain reports whether the chain ends in an argmax: a greedy
// temperature stage (Temp <= 0 without a dynamic range) is in the order,
// and neither Mirostat, XTC nor adaptive-p draws.
func (p *Params) greedyChain() bool {
	return p.Temp <= 0 && p.DynatempRange <= 0 && p.Mirostat == 0 &&
		p.has(StageTemperature) && !p.xtcActive() && !p.has(StageAdaptiveP)
}

func isFinite(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}
