package server

// loopReport is what the reasoning loop guard did to a task, reported by
// /completion as "loop_guard".
type loopReport struct {
	action  string // force-close or stop
	finding loopFinding
	region  loopRegion
}

// slotGuard is a slot's reasoning loop guard state for its current task.
type slotGuard struct {
	g             *loopGuard
	interventions int
	report        *loopReport // the last trigger
	stopped       bool        // the guard ended the task
	forced        bool        // the token being emitted was forced, not sampled
}

// start arms the guard for t, reusing the slot's buffers when the window
// is unchanged.
func (sg *slotGuard) start(t *task) {
	switch {
	case t.guard.Mode == LoopGuardOff:
		sg.g = nil
	case sg.g != nil && sg.g.p.Window == t.guard.Window:
		sg.g.p = t.guard
		sg.g.seen = [2]int{}
		for i := range sg.g.tails {
			sg.g.tails[i].first, sg.g.tails[i].size = 0, 0
		}
	default:
		sg.g = newLoopGuard(t.guard)
	}
	sg.interventions, sg.report, sg.stopped, sg.forced = 0, nil, false, false
}

// checkLoop feeds tok (already emitted as text, not an end of generation)
// to the guard: inside <think>…</think> it counts as reasoning, otherwise
// as visible output; forced tokens are not counted. When a test fires, a
// reasoning loop in force-close mode with interventions left gets its
// closing tag forced; anything else ends the task with finish_reason
// "length" (stop_type limit, stop_detail loop_guard). force-close falls
// back to stop where it cannot apply: no closing tag for the task (not a
// chat request), a speculative slot (which cannot take forced tokens), or
// fewer tokens left than the tag needs. It reports whether the task ended.
func (s *scheduler) checkLoop(sl *slot, tok int32) bool {
	sg := &sl.guard
	forced := sg.forced
	sg.forced = false
	if sg.g == nil || forced {
		return false
	}
	region := regionVisible
	if sl.thinking {
		region = regionReasoning
	}
	if !sg.g.accept(tok, region) {
		return false
	}
	f, ok := sg.g.check(region)
	if !ok {
		return false
	}
	t := sl.t
	rep := &loopReport{action: "stop", finding: f, region: region}
	sg.report = rep
	if region == regionReasoning && t.guard.Mode == LoopGuardForceClose && sg.interventions < t.guard.Interventions &&
		canForceClose(sl) {
		sl.forced = append(sl.forced, t.closeThink...)
		sl.thinking = false
		sg.interventions++
		rep.action = "force-close"
		return false
	}
	sg.stopped = true
	s.finish(sl, "length", "limit", "", len(sl.text))
	return true
}

// canForceClose reports whether the closing tag can be forced now.
func canForceClose(sl *slot) bool {
	t := sl.t
	return len(t.closeThink) > 0 && !sl.specOn && len(sl.forced) == 0 && len(t.closeThink) <= t.nPredict-sl.nGen
}

// stopDetail is llama-server's stop_detail for a finished task.
func (sl *slot) stopDetail(stopType string) string {
	switch {
	case sl.guard.stopped:
		return "loop_guard"
	case stopType == "limit" && sl.nGen >= sl.t.nPredict:
		return "token_limit"
	}
	return ""
}

// json is the "loop_guard" object of /completion.
func (r *loopReport) json() map[string]any {
	return map[string]any{
		"triggered": true, "action": r.action, "reason": r.finding.kind, "region": r.region.String(),
		"period": r.finding.period, "coverage": r.finding.coverage, "score": r.finding.score,
	}
}
