package sample

import (
	"errors"
	"fmt"
	"math"
)

// DefaultSeed asks for a random seed, as LLAMA_DEFAULT_SEED does in llama.cpp.
const DefaultSeed uint32 = 0xFFFFFFFF

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
}

// DefaultParams returns llama.cpp's common defaults: temp 0.8, top_k 40,
// top_p 0.95, min_p 0.05, typical_p 1, neutral penalties over the last 64
// tokens, dynatemp off (exponent 1), top-n-σ off, random seed.
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
	}
}

// Validate reports the first out-of-range field. llama.cpp silently treats
// many of these as "disabled"; here they are errors so that a typo in a
// request is visible instead of quietly changing the distribution.
func (p Params) Validate() error {
	finite := []struct {
		name string
		v    float32
	}{
		{"temp", p.Temp}, {"top_p", p.TopP}, {"min_p", p.MinP},
		{"typical_p", p.TypicalP}, {"repeat_penalty", p.RepeatPenalty},
		{"presence_penalty", p.PresencePenalty},
		{"frequency_penalty", p.FrequencyPenalty},
		{"dynatemp_range", p.DynatempRange},
		{"dynatemp_exponent", p.DynatempExponent},
		{"top_n_sigma", p.TopNSigma},
	}
	for _, f := range finite {
		if !isFinite(f.v) {
			return fmt.Errorf("sample: %s must be a finite number, got %v", f.name, f.v)
		}
	}
	if err := p.validateRanges(); err != nil {
		return err
	}
	return p.validateCounts()
}

func (p Params) validateRanges() error {
	unit := []struct {
		name string
		v    float32
	}{{"top_p", p.TopP}, {"min_p", p.MinP}, {"typical_p", p.TypicalP}}
	for _, f := range unit {
		if f.v < 0 || f.v > 1 {
			return fmt.Errorf("sample: %s must be in [0, 1], got %v", f.name, f.v)
		}
	}
	if p.RepeatPenalty <= 0 {
		return fmt.Errorf("sample: repeat_penalty must be > 0 (1 disables it), got %v", p.RepeatPenalty)
	}
	if p.DynatempRange < 0 {
		return fmt.Errorf("sample: dynatemp_range must be >= 0, got %v", p.DynatempRange)
	}
	return nil
}

func (p Params) validateCounts() error {
	if p.TopK < -1 {
		return fmt.Errorf("sample: top_k must be >= 0 (0 or -1 disable it), got %d", p.TopK)
	}
	if p.RepeatLastN < -1 {
		return fmt.Errorf("sample: repeat_last_n must be >= -1 (-1 = context size, 0 = off), got %d", p.RepeatLastN)
	}
	if p.RepeatLastN == -1 && p.NCtx <= 0 {
		return errors.New("sample: repeat_last_n = -1 needs the context size in NCtx")
	}
	if p.NCtx < 0 {
		return fmt.Errorf("sample: n_ctx must be >= 0, got %d", p.NCtx)
	}
	if p.MinKeep < 0 {
		return fmt.Errorf("sample: min_keep must be >= 0, got %d", p.MinKeep)
	}
	return nil
}

// penaltyWindow resolves RepeatLastN to a window length (0 = no penalties).
func (p Params) penaltyWindow() int {
	if p.RepeatLastN == -1 {
		return p.NCtx
	}
	return p.RepeatLastN
}

// penaltiesActive mirrors llama.cpp's "empty sampler" test for penalties.
func (p Params) penaltiesActive() bool {
	return p.penaltyWindow() > 0 &&
		(p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0)
}

// greedyChain reports whether the temperature stage keeps only the argmax.
func (p Params) greedyChain() bool {
	return p.Temp <= 0 && p.DynatempRange <= 0
}

func isFinite(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}
