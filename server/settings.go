package server

import "math"

// samplingSettings is llama-server's report of sampling settings (the
// sampling part of generation_settings and of /props'
// default_generation_settings.params). History lengths are shown resolved
// (-1 becomes the context size), as llama-server shows them. stages is the
// stage order by canonical name (nil: the configured names).
func samplingSettings(p SamplingParams, g LoopGuardParams, stages []string) map[string]any {
	window := func(n int) int {
		if n == -1 {
			return p.NCtx
		}
		return n
	}
	if stages == nil {
		stages = p.Samplers
	}
	bias := make([]map[string]any, len(p.LogitBias))
	for i, b := range p.LogitBias {
		var v any = b.Bias
		if math.IsInf(float64(b.Bias), -1) {
			v = nil // JSON has no -Inf; llama-server writes null as well
		}
		bias[i] = map[string]any{"bias": v, "token": b.Token}
	}
	return map[string]any{
		"seed": p.Seed, "temperature": p.Temp, "dynatemp_range": p.DynatempRange,
		"dynatemp_exponent": p.DynatempExponent, "top_k": p.TopK, "top_p": p.TopP, "min_p": p.MinP,
		"top_n_sigma": p.TopNSigma, "xtc_probability": p.XTCProbability, "xtc_threshold": p.XTCThreshold,
		"typical_p": p.TypicalP, "repeat_last_n": window(p.RepeatLastN), "repeat_penalty": p.RepeatPenalty,
		"presence_penalty": p.PresencePenalty, "frequency_penalty": p.FrequencyPenalty,
		"dry_multiplier": p.DryMultiplier, "dry_base": p.DryBase, "dry_allowed_length": p.DryAllowedLength,
		"dry_penalty_last_n": window(p.DryPenaltyLastN), "dry_sequence_breakers": strs(p.DryBreakers),
		"mirostat": p.Mirostat, "mirostat_tau": p.MirostatTau, "mirostat_eta": p.MirostatEta,
		"adaptive_target": p.AdaptiveTarget, "adaptive_decay": p.AdaptiveDecay,
		"ignore_eos": p.IgnoreEOS, "logit_bias": bias, "min_keep": p.MinKeep, "samplers": strs(stages),
		"reasoning_loop_guard": string(g.Mode), "reasoning_loop_min_tokens": g.MinTokens,
		"reasoning_loop_window": g.Window, "reasoning_loop_max_period": g.MaxPeriod,
		"reasoning_loop_min_coverage": g.MinCoverage, "reasoning_loop_check_interval": g.CheckInterval,
		"reasoning_loop_interventions": g.Interventions,
	}
}

// taskSettings is generation_settings for a task: its sampling settings
// plus the generation fields.
func (s *Server) taskSettings(j *job, t *task) map[string]any {
	var stages []string
	if n, ok := t.smp.(interface{ StageNames() []string }); ok {
		stages = n.StageNames()
	}
	m := samplingSettings(t.sampling, t.guard, stages)
	m["n_ctx"], m["model"] = s.NCtx(), j.model
	m["n_predict"], m["max_tokens"], m["stop"] = t.nPredict, t.nPredict, strs(t.stops)
	m["n_keep"], m["n_discard"], m["stream"], m["n_probs"] = t.nKeep, t.nDiscard, j.stream, t.nProbs
	return m
}

// defaultSettings is /props' default_generation_settings.params.
func (s *Server) defaultSettings() map[string]any {
	p := s.cfg.Sampling
	p.NCtx = s.NCtx()
	stages := p.Samplers
	if stages == nil {
		stages = defaultStageNames()
	}
	m := samplingSettings(p, s.cfg.LoopGuard, stages)
	m["n_predict"] = s.cfg.NPredict
	return m
}

// defaultStageNames is llama.cpp's default order, as /props reports it.
func defaultStageNames() []string {
	return []string{"penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"}
}

// strs keeps an empty list an empty JSON array rather than null.
func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
