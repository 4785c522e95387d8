package server

// loopGuardRequest holds the per-request overrides of the reasoning loop
// guard (BeeLlama's names).
type loopGuardRequest struct {
	LoopGuard         *string `json:"reasoning_loop_guard"`
	LoopMinTokens     *int    `json:"reasoning_loop_min_tokens"`
	LoopWindow        *int    `json:"reasoning_loop_window"`
	LoopMaxPeriod     *int    `json:"reasoning_loop_max_period"`
	LoopMinCoverage   *int    `json:"reasoning_loop_min_coverage"`
	LoopCheckInterval *int    `json:"reasoning_loop_check_interval"`
	LoopInterventions *int    `json:"reasoning_loop_interventions"`
}

// loopGuard applies the request's overrides over the server's settings and
// validates the result as a whole, as llama-server does.
func (r *loopGuardRequest) loopGuard(def LoopGuardParams) (LoopGuardParams, *apiError) {
	p := def
	if r.LoopGuard != nil {
		m, err := ParseLoopGuardMode(*r.LoopGuard)
		if err != nil {
			return p, badRequest("reasoning_loop_guard", "%v", err)
		}
		p.Mode = m
	}
	for _, f := range []struct {
		v   *int
		dst *int
	}{
		{r.LoopMinTokens, &p.MinTokens}, {r.LoopWindow, &p.Window}, {r.LoopMaxPeriod, &p.MaxPeriod},
		{r.LoopMinCoverage, &p.MinCoverage}, {r.LoopCheckInterval, &p.CheckInterval},
		{r.LoopInterventions, &p.Interventions},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if field, err := p.Validate(); err != nil {
		return p, badRequest(field, "%v", err)
	}
	return p, nil
}
