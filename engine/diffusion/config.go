package diffusion

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
)

// Algorithm picks which masked positions a step unmasks. 0–4 are
// llama-diffusion-cli's --diffusion-algorithm numbers.
type Algorithm int

const (
	// Origin unmasks each masked position with probability n/|M| (a coin
	// from the generator's RNG per position), sampling only those.
	Origin Algorithm = 0
	// Entropy ranks by llama-diffusion-cli's entropy score, which puts the
	// highest-entropy positions first (the sign the CLI uses); with
	// Greedy it ranks by negated entropy, the Dream reference's rule.
	Entropy Algorithm = 1
	// Margin ranks by the top-two probability margin.
	Margin Algorithm = 2
	// Random ranks by a uniform draw from the generator's RNG.
	Random Algorithm = 3
	// Confidence ranks by the probability of the chosen token (the CLI's
	// default; LLaDA's low_confidence, Dream's maskgit_plus).
	Confidence Algorithm = 4
	// EntropyBound unmasks, lowest entropy first, every position whose
	// lower-ranked entropies sum to at most the bound (at least one per
	// step): the entropy-bounded sampler of Ben-Hamu et al. (arXiv
	// 2505.24857). On a uniform-noise model it is DiffusionGemma's
	// reference decoder, with renoising and the stable-and-confident stop.
	EntropyBound Algorithm = 5
)

var algorithmNames = []string{"origin", "entropy", "margin", "random", "confidence", "entropy-bound"}

func (a Algorithm) String() string {
	if a >= 0 && int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("algorithm(%d)", int(a))
}

// ParseAlgorithm accepts a CLI number (0–5) or a name (origin, entropy,
// margin, random, confidence, entropy-bound; also low-confidence and
// maskgit-plus for confidence, topk-margin for margin, eb for
// entropy-bound).
func ParseAlgorithm(s string) (Algorithm, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(algorithmNames) {
		return Algorithm(n), nil
	}
	for i, name := range algorithmNames {
		if s == name {
			return Algorithm(i), nil
		}
	}
	switch strings.ReplaceAll(s, "_", "-") {
	case "low-confidence", "maskgit-plus":
		return Confidence, nil
	case "topk-margin":
		return Margin, nil
	case "eb", "entropy-bounded":
		return EntropyBound, nil
	}
	return 0, fmt.Errorf("unknown diffusion algorithm %q (want 0-5 or one of %s)", s, strings.Join(algorithmNames, ", "))
}

// Config is a decode's settings. The zero value is not valid; start from
// Defaults.
type Config struct {
	Algorithm Algorithm
	// Steps is the number of denoising steps over the whole canvas,
	// divided evenly among the blocks (llama-diffusion-cli's
	// --diffusion-steps). For EntropyBound it caps the steps of one block
	// (a masked block finishes when it has no mask left, in at most as
	// many steps as it has masks).
	Steps int
	// Eps selects the timestep schedule (Dream: t from 1 to Eps over the
	// steps, one block over the whole canvas); BlockLength the block
	// schedule (LLaDA: blocks of BlockLength unmasked left to right, an
	// even share of the steps each). Exactly one is non-zero, except for
	// EntropyBound, where BlockLength 0 means one block.
	Eps         float32
	BlockLength int
	// CLIBlocks lays blocks out as llama-diffusion-cli does: their count
	// is the whole sequence's length (prompt included) over BlockLength,
	// and block b starts at prompt + b·BlockLength, so the last blocks are
	// short or empty. Off, blocks tile the canvas.
	CLIBlocks bool

	// The per-position sampler chain: top-k (0: off), top-p (1: off),
	// temperature (<= 0: no temperature stage, so T = 1), and the seed of
	// both the chain's and the generator's RNG (llama.cpp's --seed).
	TopK int
	TopP float32
	Temp float32
	Seed uint32
	// Greedy replaces the chain by the argmax and the confidences by the
	// reference decoders' (softmax at T = 1; see refConfidence): the
	// deterministic mode of the LLaDA and Dream references at T = 0.
	Greedy bool
	// ExcludeMask keeps the mask token out of the sampler chain's
	// candidates (its logit becomes −Inf), so a step never writes a mask
	// back; llama-diffusion-cli does not, and may. Greedy and EntropyBound
	// always exclude it.
	ExcludeMask bool
	// AddGumbelNoise is llama-diffusion-cli's --diffusion-add-gumbel-noise:
	// with Temp > 0 it draws n_vocab doubles from the generator each step.
	// The CLI applies the noise to logits row 0 only, which no canvas
	// position reads (beyond a one-token prompt with shifted logits), so
	// here it only advances the generator, which keeps the Random and
	// Origin draws in step with the CLI's.
	AddGumbelNoise bool

	// EntropyBound settings: the acceptance bound; the temperature
	// schedule from TMax (first step) towards TMin (uniform-noise models;
	// a masked model samples at Temp); and the stop rule of a
	// uniform-noise canvas: the argmax canvas unchanged for Stability
	// steps and mean entropy below StopEntropy.
	Bound       float32
	TMin, TMax  float32
	Stability   int
	StopEntropy float32
}

// Defaults returns llama-diffusion-cli's defaults (128 steps, algorithm 4,
// top-k 40, top-p 0.95, temperature 0.8, a random seed) with the block
// schedule of 32 for a masked model, or the entropy-bounded decoder with
// the GGUF's diffusion.eb_* settings (DiffusionGemma's
// generation_config values where absent) for a uniform-noise model.
func Defaults(info *engine.DiffusionInfo) Config {
	c := Config{
		Algorithm: Confidence, Steps: 128, BlockLength: 32,
		TopK: 40, TopP: 0.95, Temp: 0.8, Seed: 0xFFFFFFFF,
		Bound: 0.1, TMin: 0.4, TMax: 0.8, Stability: 1, StopEntropy: 0.005,
	}
	k := &info.Keys
	setInt(&c.Steps, k.EBMaxSteps, info.UniformNoise)
	setInt(&c.Stability, k.EBStability, true)
	setFloat(&c.TMin, k.EBTMin)
	setFloat(&c.TMax, k.EBTMax)
	setFloat(&c.Bound, k.EBEntropyBound)
	setFloat(&c.StopEntropy, k.EBConfidence)
	if info.UniformNoise {
		c.Algorithm, c.BlockLength = EntropyBound, 0
		if k.EBMaxSteps == nil {
			c.Steps = 48
		}
	}
	return c
}

func setInt(dst *int, v *int, ok bool) {
	if v != nil && ok {
		*dst = *v
	}
}

func setFloat(dst *float32, v *float32) {
	if v != nil {
		*dst = *v
	}
}

// RandomSeed is llama.cpp's LLAMA_DEFAULT_SEED. As seed of the sampler
// chain it means a random seed; the generator's RNG (Origin and Random
// draws) still takes it as given, as llama-diffusion-cli's does.
const RandomSeed = 0xFFFFFFFF

// maxSteps bounds Steps so a hostile request cannot ask for an endless
// loop.
const maxSteps = 1 << 16

// Validate checks the settings for a model.
func (c *Config) Validate(info *engine.DiffusionInfo) error {
	if c.Algorithm < Origin || c.Algorithm > EntropyBound {
		return fmt.Errorf("diffusion algorithm %d out of range [0, 5]", c.Algorithm)
	}
	if c.Steps < 1 || c.Steps > maxSteps {
		return fmt.Errorf("diffusion steps %d out of range [1, %d]", c.Steps, maxSteps)
	}
	if info.UniformNoise && c.Algorithm != EntropyBound {
		return fmt.Errorf("a uniform-noise diffusion model decodes only with the entropy-bound algorithm, not %v", c.Algorithm)
	}
	if !info.UniformNoise && info.MaskToken < 0 {
		return fmt.Errorf("the model's vocabulary has no mask token (tokenizer.ggml.mask_token_id)")
	}
	if c.BlockLength < 0 || !finite(c.Eps) || c.Eps < 0 || c.Eps >= 1 {
		return fmt.Errorf("diffusion block length %d and eps %v: want block length >= 0 and eps in [0, 1)", c.BlockLength, c.Eps)
	}
	if c.Algorithm != EntropyBound && (c.Eps == 0) == (c.BlockLength == 0) {
		return fmt.Errorf("give exactly one of diffusion eps (timestep schedule) and block length (block schedule)")
	}
	if c.TopK < 0 || !finite(c.TopP) || c.TopP <= 0 || c.TopP > 1 || !finite(c.Temp) {
		return fmt.Errorf("top-k %d, top-p %v, temperature %v: want top-k >= 0, top-p in (0, 1], a finite temperature", c.TopK, c.TopP, c.Temp)
	}
	if !finite(c.Bound) || c.Bound < 0 || !finite(c.TMin) || !finite(c.TMax) || c.TMin <= 0 || c.TMax < c.TMin {
		return fmt.Errorf("entropy bound %v, t_min %v, t_max %v: want bound >= 0 and 0 < t_min <= t_max", c.Bound, c.TMin, c.TMax)
	}
	if c.Stability < 0 || c.Stability > maxSteps || !finite(c.StopEntropy) || c.StopEntropy < 0 {
		return fmt.Errorf("stability %d, stop entropy %v: want both >= 0", c.Stability, c.StopEntropy)
	}
	return nil
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
