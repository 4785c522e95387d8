package server

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/diffusion"
)

// DiffusionOptions are the server-wide defaults of a diffusion model's
// requests (cmd/waggle's --diffusion-* flags); request fields override
// them. Zero fields take the decoder's defaults for the model.
type DiffusionOptions struct {
	// Algorithm is the unmasking rule (nil: confidence for a masked
	// model, entropy-bound for a uniform-noise one).
	Algorithm *diffusion.Algorithm
	// Steps is the number of denoising steps of a whole answer, shared
	// among its blocks (0: one per canvas position).
	Steps int
	// BlockLength is the block schedule's block (0: 32); Eps > 0 selects
	// the timestep schedule over one block instead.
	BlockLength int
	Eps         float32
	// EntropyBound is the entropy-bound algorithm's bound (0: the GGUF's
	// diffusion.eb_entropy_bound, else 0.1).
	EntropyBound float32
	// CachePrefix computes the prefix keys and values once per block and
	// reuses them for its steps. It is always on for a model whose prefix
	// does not see the canvas (exact there); for Dream and LLaDA it is an
	// approximation and off unless set.
	CachePrefix bool
	// MaxTokens is the answer length when a request gives none (0: 256).
	MaxTokens int
}

// diffusionRequest holds the per-request diffusion fields (extensions of
// the OpenAI API, ignored by other models).
type diffusionRequest struct {
	DiffusionSteps       *int            `json:"diffusion_steps"`
	DiffusionAlgorithm   json.RawMessage `json:"diffusion_algorithm"`
	DiffusionBlockLength *int            `json:"diffusion_block_length"`
	DiffusionEps         *float64        `json:"diffusion_eps"`
	EntropyBound         *float64        `json:"entropy_bound"`
}

// diffTask is the diffusion side of a task: its run and answer budget.
type diffTask struct {
	run   *diffusion.Run
	limit int // tokens the answer may have
}

// defaultDiffusionTokens is the answer length of a request without
// max_tokens (DiffusionGemma's max_new_tokens).
const defaultDiffusionTokens = 256

// newDiffusionJob is newJob for a diffusion model: the same validation of
// the shared fields, then one Run per prompt and choice. Fields that have
// no meaning for a denoiser (logprobs, speculation) are refused.
func (s *Server) newDiffusionJob(r *rawRequest, prompts [][]int32, prefix string) (*job, *apiError) {
	if e := r.unsupported(); e != nil {
		return nil, e
	}
	if e := r.diffusionUnsupported(); e != nil {
		return nil, e
	}
	smp, e := r.sampling(s.cfg.Sampling)
	if e != nil {
		return nil, e
	}
	nPredict, e := r.maxTokens(s.cfg.NPredict)
	if e != nil {
		return nil, e
	}
	stops, e := r.stops()
	if e != nil {
		return nil, e
	}
	n, e := r.choices()
	if e != nil {
		return nil, e
	}
	if len(prompts)*n > maxChoices {
		return nil, badRequest("n", "prompts × n must be at most %d", maxChoices)
	}
	cfg, e := s.diff.requestConfig(r, smp)
	if e != nil {
		return nil, e
	}
	j := &job{id: prefix + randomID(), created: time.Now().Unix(), model: s.ModelID(), prompts: prompts,
		box: newMailbox(), stream: r.Stream, deadline: time.Now().Add(s.cfg.Timeout)}
	j.usage = r.StreamOptions != nil && r.StreamOptions.IncludeUsage
	j.returnTokens, j.req = r.ReturnTokens, r
	for _, p := range prompts {
		if err := s.checkPrompt(p); err != nil {
			return nil, err
		}
		for c := range n {
			t, e := s.diff.newTask(p, cfg, nPredict, c)
			if e != nil {
				return nil, e
			}
			t.index, t.stops, t.out, t.deadline = len(j.tasks), stops, j.box, j.deadline
			j.tasks = append(j.tasks, t)
		}
	}
	return j, nil
}

// diffusionUnsupported refuses what a denoiser cannot give: token
// probabilities, speculation, and sampler settings beyond temperature,
// top_k, top_p and seed set to anything but their neutral value (a
// diffusion step samples each position with llama-diffusion-cli's chain,
// which has no penalties, min-p, mirostat, DRY, XTC or biases).
func (r *rawRequest) diffusionUnsupported() *apiError {
	if f := r.diffusionSamplerField(); f != "" {
		return badRequest(f, "%s does not apply to a diffusion model (it samples with temperature, top_k and top_p)", f)
	}
	if f := r.diffusionGrammarField(); f != "" {
		return badRequest(f, "%s needs a grammar, which a diffusion model cannot follow (it writes whole blocks at once)", f)
	}
	lp := strings.TrimSpace(string(r.Logprobs))
	switch {
	case lp != "" && lp != "null" && lp != "false" && lp != "0":
		return badRequest("logprobs", "logprobs are not available from a diffusion model")
	case r.NProbs != nil && *r.NProbs > 0:
		return badRequest("n_probs", "token probabilities are not available from a diffusion model")
	case r.NMax != nil || r.NMin != nil || len(r.Type) > 0:
		return badRequest("speculative.type", "speculative decoding does not apply to a diffusion model")
	}
	return nil
}

// requestConfig is the decoder configuration of a request: the server's
// defaults, the request's diffusion fields, and its sampling fields (a
// temperature <= 0 is the deterministic greedy mode; above 0 the
// llama.cpp sampler chain with its top_k, top_p and temperature).
func (d *diffScheduler) requestConfig(r *rawRequest, smp SamplingParams) (diffusion.Config, *apiError) {
	c := d.base
	if r.DiffusionSteps != nil {
		if *r.DiffusionSteps < 0 || *r.DiffusionSteps > maxDiffusionSteps {
			return c, badRequest("diffusion_steps", "diffusion_steps must be in [0, %d] (0: one per position), got %d", maxDiffusionSteps, *r.DiffusionSteps)
		}
		c.Steps = *r.DiffusionSteps
	}
	if raw := strings.Trim(strings.TrimSpace(string(r.DiffusionAlgorithm)), `"`); raw != "" && raw != "null" {
		alg, err := diffusion.ParseAlgorithm(raw)
		if err != nil {
			return c, badRequest("diffusion_algorithm", "%v", err)
		}
		c.Algorithm = alg
	}
	if r.DiffusionEps != nil {
		if math.IsNaN(*r.DiffusionEps) || *r.DiffusionEps < 0 || *r.DiffusionEps >= 1 {
			return c, badRequest("diffusion_eps", "diffusion_eps must be in [0, 1), got %g", *r.DiffusionEps)
		}
		c.Eps = float32(*r.DiffusionEps)
		if c.Eps > 0 {
			c.BlockLength = 0
		}
	}
	if r.DiffusionBlockLength != nil {
		if *r.DiffusionBlockLength < 1 || *r.DiffusionBlockLength > 1<<16 {
			return c, badRequest("diffusion_block_length", "diffusion_block_length must be in [1, 65536], got %d", *r.DiffusionBlockLength)
		}
		c.BlockLength, c.Eps = *r.DiffusionBlockLength, 0
	}
	if r.EntropyBound != nil {
		if math.IsNaN(*r.EntropyBound) || *r.EntropyBound < 0 || *r.EntropyBound > 1e6 {
			return c, badRequest("entropy_bound", "entropy_bound must be in [0, 1e6], got %g", *r.EntropyBound)
		}
		c.Bound = float32(*r.EntropyBound)
	}
	c.TopK, c.TopP, c.Temp, c.Greedy = smp.TopK, smp.TopP, smp.Temp, smp.Temp <= 0
	if c.TopP <= 0 {
		c.TopP = 1
	}
	c.Seed, c.ExcludeMask = smp.Seed, true
	if d.info.UniformNoise {
		c.Algorithm = diffusion.EntropyBound
	}
	return c, nil
}

// maxDiffusionSteps bounds diffusion_steps.
const maxDiffusionSteps = 1 << 14

// newTask builds choice c of prompt p: the answer budget (max_tokens, or
// the default, within the context), the canvas (the budget rounded up to
// whole blocks, within the context), and its Run.
func (d *diffScheduler) newTask(p []int32, cfg diffusion.Config, nPredict, c int) (*task, *apiError) {
	room := d.nCtx - len(p)
	limit := nPredict
	if limit < 0 {
		limit = d.opts.MaxTokens
	}
	limit = min(limit, room)
	canvas := max(limit, 1)
	if l := d.blockOf(cfg); l > 0 {
		canvas = (canvas + l - 1) / l * l
	}
	canvas = min(canvas, room)
	if cfg.Seed == diffusion.RandomSeed {
		cfg.Seed = randomSeed()
	} else {
		cfg.Seed += uint32(c)
	}
	if cfg.Steps == 0 {
		cfg.Steps = canvas
	}
	if cfg.Algorithm != diffusion.EntropyBound && cfg.Eps == 0 {
		cfg.Steps = max(cfg.Steps, (canvas+cfg.BlockLength-1)/cfg.BlockLength) // a step per block at least
	}
	run, err := diffusion.NewRun(d.info, d.nVocab, cfg, p, diffusion.Options{Canvas: canvas, IsEOG: d.tok.IsEOG})
	if err != nil {
		return nil, badRequest("", "%v", err)
	}
	return &task{prompt: p, nPredict: limit, diff: &diffTask{run: run, limit: limit}}, nil
}

// blockOf is the canvas granularity of cfg: the uniform-noise canvas, or
// the block of the block schedule (0: any length).
func (d *diffScheduler) blockOf(cfg diffusion.Config) int {
	switch {
	case d.info.UniformNoise:
		return d.info.CanvasLength
	case cfg.Eps > 0:
		return 0
	}
	return cfg.BlockLength
}

func randomSeed() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint32(b[:]) & 0x7fffffff // never RandomSeed
}

// baseConfig is the decoder configuration of the server's defaults.
func baseConfig(info *engine.DiffusionInfo, o DiffusionOptions) diffusion.Config {
	c := diffusion.Defaults(info)
	c.Steps = o.Steps
	if o.Algorithm != nil && !info.UniformNoise { // a uniform-noise model has one decoder
		c.Algorithm = *o.Algorithm
	}
	if !info.UniformNoise {
		c.BlockLength, c.Eps = 32, 0
		if o.BlockLength > 0 {
			c.BlockLength = o.BlockLength
		}
		if o.Eps > 0 {
			c.BlockLength, c.Eps = 0, o.Eps
		}
	}
	if o.EntropyBound > 0 {
		c.Bound = o.EntropyBound
	}
	return c
}

// diffusionSamplerField names the first sampling field of r set to a
// value that changes sampling, other than those a diffusion step honours.
func (r *rawRequest) diffusionSamplerField() string {
	differs := func(v *float64, neutral float64) bool { return v != nil && *v != neutral }
	raw := func(m json.RawMessage) bool {
		t := strings.TrimSpace(string(m))
		return t != "" && t != "null" && t != "{}" && t != "[]"
	}
	for _, f := range []struct {
		set  bool
		name string
	}{
		{differs(r.MinP, 0), "min_p"}, {differs(r.TypicalP, 1), "typical_p"},
		{differs(r.RepeatPenalty, 1), "repeat_penalty"}, {differs(r.PresencePenalty, 0), "presence_penalty"},
		{differs(r.FrequencyPenalty, 0), "frequency_penalty"}, {r.TopNSigma != nil && *r.TopNSigma > 0, "top_n_sigma"},
		{differs(r.DynatempRange, 0), "dynatemp_range"}, {differs(r.XTCProbability, 0), "xtc_probability"},
		{r.Mirostat != nil && *r.Mirostat != 0, "mirostat"}, {differs(r.DryMultiplier, 0), "dry_multiplier"},
		{r.AdaptiveTarget != nil && *r.AdaptiveTarget >= 0, "adaptive_target"}, {raw(r.Samplers), "samplers"},
		{raw(r.LogitBias), "logit_bias"}, {r.IgnoreEOS != nil && *r.IgnoreEOS, "ignore_eos"},
	} {
		if f.set {
			return f.name
		}
	}
	return ""
}

// diffusionGrammarField names the first field of r that asks for
// constrained output: a grammar, a JSON schema, a JSON response format,
// or tools.
func (r *rawRequest) diffusionGrammarField() string {
	raw := func(m json.RawMessage) bool {
		t := strings.TrimSpace(string(m))
		return t != "" && t != "null" && t != "[]"
	}
	switch {
	case r.Grammar != nil && *r.Grammar != "":
		return "grammar"
	case raw(r.JSONSchema):
		return "json_schema"
	case raw(r.ResponseFormat) && !strings.Contains(strings.ReplaceAll(string(r.ResponseFormat), " ", ""), `"type":"text"`):
		return "response_format"
	case raw(r.Tools):
		return "tools"
	}
	return ""
}
