package spec

import (
	"fmt"
	"time"
)

// AdaptiveParams configure the per-slot draft-depth controller, with
// BeeLlama's flag names and defaults (--spec-dm-*). Where Waggle's
// controllers differ from BeeLlama's (shadow drafts instead of verified
// probes, no warm-up by default), the comment says what the flag does here.
type AdaptiveParams struct {
	Enabled          bool    // --spec-dm-adaptive / --no-spec-dm-adaptive (on)
	Controller       string  // --spec-dm-controller: profit (default) or fringe
	ProbeInterval    int     // plain cycles between shadows when a shadow is not cheap (16)
	ProbeFraction    float64 // shadow horizon = max(2, base×fraction) (0.25)
	ExploreInterval  int     // cycles between exploration drafts (12)
	OffDwell         int     // consecutive losing cycles before switching off (8)
	FringeMin        float64 // fringe: below this, switch off (0.30)
	FringeMax        float64 // fringe: at or above this, full depth (0.50)
	MinReach         int     // fringe: samples at new positions before promotion (3)
	ProfitMin        float64 // profit: required relative gain over the baseline (0.05)
	RaiseMargin      float64 // profit: relative margin to raise depth (0.05)
	LowerMargin      float64 // profit: relative margin to lower depth (0.05)
	EWMAAlpha        float64 // profit: EWMA weight (0.15)
	MinSamples       int     // profit: samples after a failed draft before speculating (3)
	Warmup           int     // profit: initial full-depth cycles (0: none, shadows decide)
	BaselineInterval int     // profit: active cycles between baseline re-probes (1024, 0: never)
}

// DefaultAdaptive returns BeeLlama's defaults.
func DefaultAdaptive() AdaptiveParams {
	return AdaptiveParams{
		Enabled: true, Controller: "profit",
		ProbeInterval: 16, ProbeFraction: 0.25, ExploreInterval: 12, OffDwell: 8,
		FringeMin: 0.30, FringeMax: 0.50, MinReach: 3,
		ProfitMin: 0.05, RaiseMargin: 0.05, LowerMargin: 0.05, EWMAAlpha: 0.15,
		MinSamples: 3, Warmup: 0, BaselineInterval: 1024,
	}
}

// Validate checks BeeLlama's ranges.
func (a *AdaptiveParams) Validate() error {
	switch {
	case a.Controller != "profit" && a.Controller != "fringe":
		return fmt.Errorf("spec: --spec-dm-controller must be profit or fringe, got %q", a.Controller)
	case a.ProbeInterval < 1 || a.ExploreInterval < 1 || a.OffDwell < 1:
		return fmt.Errorf("spec: --spec-dm-probe-interval, -explore-interval and -off-dwell must be ≥ 1")
	case a.ProbeFraction <= 0 || a.ProbeFraction > 1:
		return fmt.Errorf("spec: --spec-dm-probe-fraction must be in (0, 1]")
	case a.FringeMin < 0 || a.FringeMax > 1 || a.FringeMin >= a.FringeMax:
		return fmt.Errorf("spec: need 0 ≤ --spec-dm-fringe-min < --spec-dm-fringe-max ≤ 1")
	case a.MinReach < 1 || a.MinReach > 32:
		return fmt.Errorf("spec: --spec-dm-min-reach must be in 1..32")
	case a.ProfitMin < 0 || a.ProfitMin > 0.5:
		return fmt.Errorf("spec: --spec-dm-profit-min must be in 0..0.5")
	case a.RaiseMargin < 0 || a.RaiseMargin > 1 || a.LowerMargin < 0 || a.LowerMargin > 1:
		return fmt.Errorf("spec: --spec-dm-profit-raise-margin and -lower-margin must be in 0..1")
	case a.EWMAAlpha < 0.01 || a.EWMAAlpha > 1:
		return fmt.Errorf("spec: --spec-dm-profit-ewma-alpha must be in 0.01..1")
	case a.MinSamples < 1 || a.MinSamples > 64:
		return fmt.Errorf("spec: --spec-dm-profit-min-samples must be in 1..64")
	case a.Warmup < 0 || a.BaselineInterval < 0:
		return fmt.Errorf("spec: --spec-dm-profit-warmup and -baseline-interval must be ≥ 0")
	}
	return nil
}

// Controller chooses a slot's draft depth cycle by cycle.
//
// Besides the drafts it verifies, a controller learns from shadow drafts:
// on a cycle it runs plain (Depth 0) it may ask for a draft that is not
// verified but compared with the tokens the target then emits. For the
// model-free strategies a draft costs microseconds against a target step
// of tens of milliseconds, so shadows measure acceptance for free; that is
// what lets a controller stay off on a stream whose drafts are rejected
// without paying for probes, and switch on within a few tokens when the
// stream starts repeating.
type Controller interface {
	// Depth is the draft cap for the next cycle, at most base (the
	// configured depth); 0 means a plain one-token step.
	Depth(base int) int
	// Shadow is asked on a plain cycle (Depth returned 0, no shadow
	// pending): the cap of an unverified draft to make now (0: none) and
	// the horizon, the number of its leading tokens to judge against the
	// emitted ones before reporting it.
	Shadow(base int) (cap, horizon int)
	// Record reports a draft's outcome: made under cap (the depth asked
	// for; for a shadow, its horizon), k tokens long (at most cap; k < cap
	// means the strategy had no more), m of them accepted (for a shadow:
	// matched by the emitted tokens). cap 0 is a plain step.
	Record(cap, k, m int, shadow bool)
	// Timing reports the cycle's durations when the slot was alone in its
	// batch (only then is the time its own): draft time (for a plain
	// cycle, the shadow's) and whole cycle, for a cycle that verified k
	// drafted tokens (0: a plain step).
	Timing(k int, draft, cycle time.Duration)
	// Begin marks a new request on the slot; learned statistics persist.
	Begin()
}

// NewController builds the controller p names.
func NewController(p AdaptiveParams) Controller {
	if p.Controller == "fringe" {
		return newFringe(p)
	}
	return newProfit(p)
}

// ladder is BeeLlama's set of candidate depths, extended past 16 for the
// deep bases of ngram-mod and long copies (base is added).
var ladder = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 48, 64}

// rungs returns the ladder ∩ [0, base] plus base, ascending.
func rungs(base int, dst []int) []int {
	dst = dst[:0]
	for _, r := range ladder {
		if r <= base {
			dst = append(dst, r)
		}
	}
	if dst[len(dst)-1] != base {
		dst = append(dst, base)
	}
	return dst
}

// rungIndex is the index of the highest rung ≤ d.
func rungIndex(rs []int, d int) int {
	i := 0
	for j, r := range rs {
		if r <= d {
			i = j
		}
	}
	return i
}

// probeDepth is max(2, floor(base×fraction)), at most base.
func probeDepth(base int, frac float64) int {
	return min(base, max(2, int(float64(base)*frac)))
}
