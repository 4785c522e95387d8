package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
)

// samplingRequest holds llama.cpp's sampling fields beyond the OpenAI ones;
// rawRequest embeds it, so every generation route takes them.
type samplingRequest struct {
	MinKeep             *int            `json:"min_keep"`
	TopNSigma           *float64        `json:"top_n_sigma"`
	DynatempRange       *float64        `json:"dynatemp_range"`
	DynatempExponent    *float64        `json:"dynatemp_exponent"`
	XTCProbability      *float64        `json:"xtc_probability"`
	XTCThreshold        *float64        `json:"xtc_threshold"`
	Mirostat            *int            `json:"mirostat"`
	MirostatTau         *float64        `json:"mirostat_tau"`
	MirostatEta         *float64        `json:"mirostat_eta"`
	DryMultiplier       *float64        `json:"dry_multiplier"`
	DryBase             *float64        `json:"dry_base"`
	DryAllowedLength    *int            `json:"dry_allowed_length"`
	DryPenaltyLastN     *int            `json:"dry_penalty_last_n"`
	DrySequenceBreakers json.RawMessage `json:"dry_sequence_breakers"`
	AdaptiveTarget      *float64        `json:"adaptive_target"`
	AdaptiveDecay       *float64        `json:"adaptive_decay"`
	Samplers            json.RawMessage `json:"samplers"`
	LogitBias           json.RawMessage `json:"logit_bias"`
	IgnoreEOS           *bool           `json:"ignore_eos"`
	loopGuardRequest
}

// Bounds on the sampling fields that size memory or work.
const (
	maxLogitBias   = 4096 // entries after tokenizing text keys
	maxDryBreakers = 64
	maxWindowField = 1 << 20 // dry_penalty_last_n, repeat_last_n
)

// applySampling validates the extra sampling fields and applies them over
// p (which already holds the OpenAI fields over the server's defaults).
// Ranges that only the sampler knows (a sampler name, dry_base with DRY
// on) are checked when the task's sampler is built.
func (s *Server) applySampling(r *samplingRequest, p *SamplingParams) *apiError {
	for _, f := range []struct {
		dst  *float32
		v    *float64
		name string
		lo   float64
		hi   float64
	}{
		{&p.TopNSigma, r.TopNSigma, "top_n_sigma", -1e9, 1e9},
		{&p.DynatempRange, r.DynatempRange, "dynatemp_range", 0, 1e9},
		{&p.DynatempExponent, r.DynatempExponent, "dynatemp_exponent", -1e9, 1e9},
		{&p.XTCProbability, r.XTCProbability, "xtc_probability", 0, 1},
		{&p.XTCThreshold, r.XTCThreshold, "xtc_threshold", 0, 1},
		{&p.MirostatTau, r.MirostatTau, "mirostat_tau", -1e9, 1e9},
		{&p.MirostatEta, r.MirostatEta, "mirostat_eta", -1e9, 1e9},
		{&p.DryMultiplier, r.DryMultiplier, "dry_multiplier", 0, 1e9},
		{&p.DryBase, r.DryBase, "dry_base", 1, 1e9},
		{&p.AdaptiveTarget, r.AdaptiveTarget, "adaptive_target", -1e9, 1e9},
		{&p.AdaptiveDecay, r.AdaptiveDecay, "adaptive_decay", 0, 0.99},
	} {
		if f.v == nil {
			continue
		}
		if math.IsNaN(*f.v) || *f.v < f.lo || *f.v > f.hi {
			return badRequest(f.name, "%s must be in [%g, %g], got %g", f.name, f.lo, f.hi, *f.v)
		}
		*f.dst = float32(*f.v)
	}
	if e := r.applyCounts(p); e != nil {
		return e
	}
	if e := r.applyOrder(p); e != nil {
		return e
	}
	if r.DrySequenceBreakers != nil {
		b, e := dryBreakers(r.DrySequenceBreakers)
		if e != nil {
			return e
		}
		p.DryBreakers = b
	}
	if r.LogitBias != nil {
		b, e := s.logitBias(r.LogitBias)
		if e != nil {
			return e
		}
		p.LogitBias = b
	}
	if r.IgnoreEOS != nil {
		p.IgnoreEOS = *r.IgnoreEOS
	}
	if p.IgnoreEOS {
		p.LogitBias = append(p.LogitBias[:len(p.LogitBias):len(p.LogitBias)], s.eogBias()...)
	}
	return nil
}

// applyCounts applies the integer fields.
func (r *samplingRequest) applyCounts(p *SamplingParams) *apiError {
	for _, f := range []struct {
		dst    *int
		v      *int
		name   string
		lo, hi int
	}{
		{&p.MinKeep, r.MinKeep, "min_keep", 0, math.MaxInt32},
		{&p.Mirostat, r.Mirostat, "mirostat", 0, 2},
		{&p.DryAllowedLength, r.DryAllowedLength, "dry_allowed_length", 0, math.MaxInt32},
		{&p.DryPenaltyLastN, r.DryPenaltyLastN, "dry_penalty_last_n", -1, maxWindowField},
	} {
		if f.v == nil {
			continue
		}
		if *f.v < f.lo || *f.v > f.hi {
			return badRequest(f.name, "%s must be in [%d, %d], got %d", f.name, f.lo, f.hi, *f.v)
		}
		*f.dst = *f.v
	}
	return nil
}

// applyOrder reads "samplers": a list of canonical names, or a string of
// --sampling-seq letters (the names are checked by the sampler factory).
func (r *samplingRequest) applyOrder(p *SamplingParams) *apiError {
	raw := bytes.TrimSpace(r.Samplers)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var seq string
	if json.Unmarshal(raw, &seq) == nil {
		p.Samplers, p.SamplingSeq = nil, seq
		return nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return badRequest("samplers", "samplers must be a list of sampler names or a string of sampler letters")
	}
	if names == nil {
		names = []string{}
	}
	p.Samplers, p.SamplingSeq = names, ""
	return nil
}

// dryBreakers reads dry_sequence_breakers: a non-empty list of strings.
func dryBreakers(raw json.RawMessage) ([]string, *apiError) {
	var b []string
	if err := json.Unmarshal(raw, &b); err != nil || len(b) == 0 {
		return nil, badRequest("dry_sequence_breakers", "dry_sequence_breakers must be a non-empty list of strings")
	}
	if len(b) > maxDryBreakers {
		return nil, badRequest("dry_sequence_breakers", "at most %d dry_sequence_breakers, got %d", maxDryBreakers, len(b))
	}
	return b, nil
}

// eogBias bans every end-of-generation token (ignore_eos).
func (s *Server) eogBias() []LogitBias {
	s.eogOnce.Do(func() {
		tk := s.cfg.Tokenizer
		for id := range int32(tk.NVocab()) {
			if tk.IsEOG(id) {
				s.eog = append(s.eog, LogitBias{Token: id, Bias: float32(math.Inf(-1))})
			}
		}
	})
	return s.eog
}

// samplerError turns a sampler factory error into a 400, naming the field
// when the error knows it (engine/sample's ParamError does).
func samplerError(err error) *apiError {
	var pe interface{ ParamField() string }
	if errors.As(err, &pe) {
		return badRequest(pe.ParamField(), "%v", err)
	}
	return badRequest("", "%v", err)
}
