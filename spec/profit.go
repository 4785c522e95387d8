package spec

import "time"

// maxDepth bounds what the controllers track (BeeLlama: 128).
const maxDepth = 128

// ewma is an exponentially weighted mean; the first sample initialises it.
type ewma struct {
	v float64
	n int
}

func (e *ewma) add(x, alpha float64) {
	if e.n == 0 {
		e.v = x
	} else {
		e.v += alpha * (x - e.v)
	}
	e.n++
}

// profit is BeeLlama's profit controller: it scores every candidate depth
// by expected tokens per second, (1 + E[accepted]) / cycle time, from EWMAs
// of per-position survival (P(accepted > p)) and of cycle time per draft
// length, against a measured no-speculation baseline, and moves the depth
// with hysteresis. Speculation is switched off after OffDwell losing
// cycles and re-probed every ProbeInterval cycles while off. The EWMAs
// survive Begin (continuation prompts on the same slot); a change of base
// depth wipes them.
type profit struct {
	p        AdaptiveParams
	base     int
	surv     [maxDepth]ewma
	cyc      [maxDepth + 1]ewma // whole cycle ms by drafted length (0: baseline)
	drf      [maxDepth + 1]ewma // draft ms by drafted length
	cur      int
	losses   int
	off      int // cycles spent off
	explore  int // cycles since the last exploration
	explores int
	active   int // cycles spent on
	warmup   int
	rs       []int
}

func newProfit(p AdaptiveParams) *profit { return &profit{p: p, base: -1} }

func (c *profit) wipe(base int) {
	*c = profit{p: c.p, base: base, cur: base, rs: rungs(base, c.rs)}
	c.warmup = c.p.Warmup
	if c.warmup == 0 {
		c.warmup = c.p.MinSamples
	}
}

// Begin keeps the statistics; only per-request counters restart.
func (c *profit) Begin() { c.losses, c.explore = 0, 0 }

func (c *profit) Depth(base int) int {
	base = min(base, maxDepth)
	if base != c.base {
		c.wipe(base)
	}
	switch {
	case c.cyc[0].n < c.p.MinSamples:
		return 0 // measure the baseline first
	case c.warmup > 0:
		c.warmup--
		return base
	case c.cur == 0:
		c.off++
		if c.off%c.p.ProbeInterval == 0 {
			return probeDepth(base, c.p.ProbeFraction)
		}
		return 0
	}
	c.active++
	if c.p.BaselineInterval > 0 && c.active%c.p.BaselineInterval == 0 {
		return 0
	}
	c.explore++
	if c.explore >= c.p.ExploreInterval {
		c.explore = 0
		c.explores++
		if c.explores%4 == 0 {
			return base
		}
		return c.rs[min(rungIndex(c.rs, c.cur)+1, len(c.rs)-1)]
	}
	return c.cur
}

func (c *profit) Record(k, m int) {
	for p := range min(k, maxDepth) {
		x := 0.0
		if m > p {
			x = 1
		}
		c.surv[p].add(x, c.p.EWMAAlpha)
	}
	c.decide()
}

func (c *profit) Timing(k int, draft, cycle time.Duration) {
	if k > maxDepth {
		return
	}
	c.cyc[k].add(float64(cycle)/1e6, c.p.EWMAAlpha)
	c.drf[k].add(float64(draft)/1e6, c.p.EWMAAlpha)
}

// score is the expected tokens per second at depth n, if known.
func (c *profit) score(n int) (float64, bool) {
	if n == 0 {
		if c.cyc[0].n < c.p.MinSamples || c.cyc[0].v <= 0 {
			return 0, false
		}
		return 1000 / c.cyc[0].v, true
	}
	e := 1.0
	for p := range n {
		if c.surv[p].n < c.p.MinSamples {
			return 0, false
		}
		e += c.surv[p].v
	}
	ms, ok := c.cycleMS(n)
	if !ok || ms <= 0 {
		return 0, false
	}
	return e * 1000 / ms, true
}

// cycleMS is depth n's cycle time, measured or extrapolated from the
// nearest measured depth d: n×(draft_d/d) + (cycle_d − draft_d).
func (c *profit) cycleMS(n int) (float64, bool) {
	if c.cyc[n].n >= c.p.MinSamples {
		return c.cyc[n].v, true
	}
	best := -1
	for d := 1; d <= maxDepth; d++ {
		if c.cyc[d].n >= c.p.MinSamples && (best < 0 || abs(d-n) < abs(best-n)) {
			best = d
		}
	}
	if best < 0 {
		return 0, false
	}
	per := c.drf[best].v / float64(best)
	return float64(n)*per + c.cyc[best].v - c.drf[best].v, true
}

func (c *profit) decide() {
	if c.base < 0 || c.warmup > 0 {
		return
	}
	baseScore, ok := c.score(0)
	if !ok {
		return
	}
	best, bestScore := 0, baseScore
	for _, n := range c.rs {
		if s, ok := c.score(n); ok && n > 0 && s > bestScore {
			best, bestScore = n, s
		}
	}
	if best == 0 || bestScore < baseScore*(1+c.p.ProfitMin) {
		c.losses++
		if c.losses >= c.p.OffDwell {
			c.cur, c.losses, c.off = 0, 0, 0
		}
		return
	}
	c.losses = 0
	if c.cur == 0 {
		c.cur = best
		return
	}
	curScore, ok := c.score(c.cur)
	if !ok {
		curScore = baseScore
	}
	i, j := rungIndex(c.rs, c.cur), rungIndex(c.rs, best)
	switch {
	case best > c.cur && bestScore >= curScore*(1+c.p.RaiseMargin):
		c.cur = c.rs[min(i+2, j)]
	case best < c.cur && bestScore >= curScore*(1+c.p.LowerMargin):
		c.cur = c.rs[max(i-1, j)]
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
