package spec

import (
	"math"
	"time"
)

// maxDepth bounds what the controllers track (BeeLlama: 128).
const maxDepth = 128

const (
	// priorSlope is what verifying one more drafted token is assumed to
	// cost, as a fraction of a plain step, until a drafted length has been
	// measured: pessimistic for a memory-bound multi-column kernel (a few
	// per cent), optimistic for a compute-bound one (up to 1). The first
	// verified cycle replaces it with a measurement.
	priorSlope = 0.5
	// shadowBudget is the share of a plain step a shadow draft may cost
	// before shadows are rationed (a draft model drafting a few tokens).
	shadowBudget = 0.02
	// shadowHorizon is how many leading tokens of a shadow draft the
	// profit controller judges: two tell a loop's start from noise, and
	// every token waited for is a plain step not taken at depth.
	shadowHorizon = 2
	// unmeasuredCap bounds a verified draft while no verified cycle has
	// been timed: until then the cost of depth is priorSlope, a guess,
	// and where a batch of n tokens costs n plain steps or more (a tiny
	// model, where nothing is memory-bound: stories260K's verify cycles
	// measure 1.1–1.3 steps per token) one deep draft at that guess loses
	// as many steps as a short request has to win (16 of 128 tokens,
	// 10%). Six tokens measure the slope for a loss of about six steps;
	// the extrapolation then uses it. (The prompt is no proxy: a
	// stories260K prompt token costs half a step, a verified one more
	// than a step. On the simulated looping stream, caps of 4 and 8 land
	// within ±10% of 6's speed; 6 did best.)
	unmeasuredCap = 6
)

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

// addTime adds a timing sample, clipped to clipTime times the mean once
// the mean rests on a few samples: at a tenth of a millisecond per step
// (a tiny model) a scheduler hiccup or a GC pause is ten steps long, and
// one such sample would move an EWMA by alpha×10. A real change of speed
// still passes, at up to (clipTime-1)×alpha of the mean per sample.
func (e *ewma) addTime(x, alpha float64) {
	if e.n >= 3 && x > clipTime*e.v {
		x = clipTime * e.v
	}
	e.add(x, alpha)
}

// clipTime bounds a timing sample relative to its EWMA (see addTime).
const clipTime = 2

// shadowGate rations shadow drafts by what they cost: every plain cycle
// when a shadow costs at most shadowBudget of a plain step (model-free
// strategies), else one every max(ProbeInterval, cost/(budget×step))
// plain cycles, so that shadows never take more than about shadowBudget of
// the time (plus the first ones, before their cost is known). Costly
// shadows are also cut to the horizon judged.
type shadowGate struct {
	step, cost ewma // plain step without the shadow, shadow draft (ms)
	since      int  // plain cycles since the last shadow
	asked      bool // this cycle made a shadow
}

// allow returns the cap of this plain cycle's shadow draft (0: none).
func (g *shadowGate) allow(p *AdaptiveParams, base, horizon int) int {
	g.since++
	if g.cost.n == 0 {
		base = horizon // the first shadow: its cost is not known yet
	}
	if g.cost.n > 0 && g.step.n > 0 && g.cost.v > shadowBudget*g.step.v {
		every := max(p.ProbeInterval, int(math.Ceil(g.cost.v/(shadowBudget*g.step.v))))
		if g.since < every {
			return 0
		}
		base = horizon
	}
	g.since, g.asked = 0, true
	return base
}

// timing takes a plain cycle's durations (k == 0).
func (g *shadowGate) timing(draft, cycle time.Duration, alpha float64) {
	if g.asked {
		g.cost.addTime(ms(draft), alpha)
		cycle -= draft
	}
	g.step.addTime(ms(cycle), alpha)
	g.asked = false
}

// Regimes: the profit controller keeps separate statistics for drafts made
// right after a draft that was accepted whole (hot: the stream is copying
// or looping) and after one that was cut short or at the start (cold).
// Acceptance is strongly autocorrelated (a loop goes on until it breaks),
// and pooling the two would keep speculating deep through every break.
const (
	cold = 0
	hot  = 1
)

// regimeStat is what the profit controller knows about one regime: per
// draft position, an EWMA of "the draft reached it" over drafts whose cap
// went past it; and EWMAs of accepted tokens and of rejections per draft,
// from which the per-token acceptance q is estimated as
// accepted / (accepted + rejections), the maximum-likelihood continuation
// probability of a run of accepted tokens. One q for every position (a
// geometric model) is what a draft accepted to its cap needs: it says
// nothing about deeper positions, and per-position estimates there would
// stay as stale as the last failure left them.
type regimeStat struct {
	reach     [maxDepth]ewma
	acc, fail ewma
}

// q is the per-token acceptance from the regimes given, with one
// pseudo-accepted token as prior (no evidence: acceptance) and each EWMA
// counted as at most 1/alpha samples.
func q(alpha float64, rs ...*regimeStat) float64 {
	num, den := 1.0, 1.0
	for _, r := range rs {
		n := min(float64(r.acc.n), 1/alpha)
		num += n * r.acc.v
		den += n * (r.acc.v + r.fail.v)
	}
	return num / den
}

// profit is the profit controller. It scores every candidate depth n by
// expected tokens per millisecond, (1 + E[accepted | cap n]) / E[cycle ms |
// cap n], against the measured plain step, and runs the best depth when it
// beats plain by ProfitMin, in the current regime.
//
//   - Acceptance, per regime, from verified and shadow drafts alike: the
//     per-token acceptance q (see regimeStat) and, per position p, how
//     often drafts reach p (a draft shorter than its cap says the same for
//     every deeper cap; positions never measured take the value of the
//     deepest measured one). E[accepted | cap n] = Σ_{p<n} reach(p)·q^(p+1).
//   - Cost: an EWMA, per verified draft length, of whole-cycle time over
//     the plain step then measured, linearly interpolated between measured
//     lengths, extrapolated with the measured mean slope, priorSlope before
//     any measurement (and drafts capped at unmeasuredCap until then); the
//     plain step is measured without the shadow's draft time. Relative
//     costs, because both grow with the context (attention): stories260K's
//     step triples from 0.09 to 0.3 ms over 250 tokens, and absolute cycle
//     times measured early would look cheap against a later step.
//   - While off it asks for a shadow draft every plain cycle (see
//     shadowGate), judged on its first max(2, base×ProbeFraction) tokens:
//     no verification is spent on a stream whose drafts are wrong, and a
//     fully matching shadow switches to the hot regime, which speculates at
//     the best depth at once (on its first visit with an optimistic prior:
//     the draft that just matched goes on matching). The cold regime
//     speculates only after MinSamples samples say it pays.
//   - Hysteresis: on at ProfitMin above plain; off at once when no depth
//     beats plain, after OffDwell cycles when the best is within ProfitMin
//     of it; depth changes need RaiseMargin / LowerMargin. While on below
//     base it tries one rung deeper every ExploreInterval cycles, since a
//     draft accepted to its cap says nothing about deeper positions; every
//     BaselineInterval cycles on it runs one plain step to refresh the
//     baseline.
//
// Statistics survive Begin (continuation prompts on the same slot, as
// BeeLlama keeps its EWMAs on the server slot); a change of base depth
// wipes them.
type profit struct {
	p       AdaptiveParams
	base    int
	rs      []int
	st      [2]regimeStat
	cyc     [maxDepth + 1]ewma // cycle time over the plain step, by verified draft length (0 unused)
	gate    shadowGate
	regime  int
	shadowR int    // regime a pending shadow was drafted in
	cur     [2]int // depth chosen per regime (0: off)
	losses  int
	active  int // cycles spent on
	explore int // cycles on since the last exploration
	warmup  int
}

func newProfit(p AdaptiveParams) *profit { return &profit{p: p, base: -1} }

func (c *profit) wipe(base int) {
	*c = profit{p: c.p, base: base, rs: rungs(base, c.rs), warmup: c.p.Warmup}
}

// Begin keeps the statistics; a new prompt starts cold.
func (c *profit) Begin() { c.regime, c.losses, c.explore = cold, 0, 0 }

func (c *profit) Depth(base int) int {
	base = min(base, maxDepth)
	if base != c.base {
		c.wipe(base)
	}
	if c.warmup > 0 {
		c.warmup--
		return base
	}
	c.decide()
	n := c.cur[c.regime]
	if n == 0 {
		return 0
	}
	if !c.costMeasured() {
		n = min(n, unmeasuredCap)
	}
	c.active++
	if c.p.BaselineInterval > 0 && c.active%c.p.BaselineInterval == 0 {
		return 0
	}
	if n < base {
		c.explore++
		if c.explore >= c.p.ExploreInterval {
			c.explore = 0
			return c.rs[min(rungIndex(c.rs, n)+1, len(c.rs)-1)]
		}
	}
	return n
}

func (c *profit) Shadow(base int) (int, int) {
	if c.base <= 0 {
		return 0, 0
	}
	hz := min(c.base, shadowHorizon)
	c.shadowR = c.regime
	return c.gate.allow(&c.p, c.base, hz), hz
}

func (c *profit) Record(cap, k, m int, shadow bool) {
	if cap <= 0 || c.base <= 0 {
		return
	}
	h := c.regime
	if shadow {
		h = c.shadowR
	}
	a := c.p.EWMAAlpha
	st := &c.st[h]
	for p := range c.base {
		switch {
		case p < cap:
			st.reach[p].add(b2f(p < k), a)
		case k < cap: // the strategy had no more: the same at any cap
			st.reach[p].add(0, a)
		}
	}
	if k > 0 {
		st.acc.add(float64(m), a)
		st.fail.add(b2f(m < k), a)
		c.regime = cold
		if m == k {
			c.regime = hot
		}
	}
}

func (c *profit) Timing(k int, draft, cycle time.Duration) {
	switch {
	case k == 0:
		c.gate.timing(draft, cycle, c.p.EWMAAlpha)
	case k <= maxDepth && c.gate.step.n > 0 && c.gate.step.v > 0:
		c.cyc[k].addTime(ms(cycle)/c.gate.step.v, c.p.EWMAAlpha)
	}
}

// costMeasured reports whether any verified cycle has been timed.
func (c *profit) costMeasured() bool {
	for k := 1; k <= c.base; k++ {
		if c.cyc[k].n > 0 {
			return true
		}
	}
	return false
}

// rate is the expected tokens per millisecond at cap n in regime h.
func (c *profit) rate(h, n int) (float64, bool) {
	st := &c.st[h]
	if h == cold && st.reach[0].n < c.p.MinSamples {
		return 0, false
	}
	// A regime without acceptance data borrows both regimes' pooled
	// estimate (a single lucky match must not buy a deep draft), and the
	// other regime's reach.
	qv, rst := q(c.p.EWMAAlpha, st), st
	if st.acc.n == 0 {
		qv, rst = q(c.p.EWMAAlpha, &c.st[cold], &c.st[hot]), &c.st[1-h]
	}
	gain, klen, qp, reach := 1.0, 0.0, 1.0, 1.0
	for p := range min(n, c.base) {
		if st.reach[p].n > 0 {
			reach = st.reach[p].v
		} else if rst.reach[p].n > 0 {
			reach = rst.reach[p].v
		}
		qp *= qv
		gain += reach * qp
		klen += reach
	}
	return gain / c.cost(klen), true
}

// cost is the expected cycle time in ms for a verified draft of x tokens:
// the plain step times the relative cost of x, interpolated linearly
// between measured lengths (length 0 costs 1) and extrapolated with the
// slope of the deepest one measured, priorSlope before any measurement.
func (c *profit) cost(x float64) float64 {
	t0 := c.gate.step.v
	if x <= 0 {
		return t0
	}
	lo, rlo, hi := 0, 1.0, -1
	for k := 1; k <= c.base; k++ {
		if c.cyc[k].n == 0 {
			continue
		}
		if float64(k) <= x {
			lo, rlo = k, c.cyc[k].v
		} else {
			hi = k
			break
		}
	}
	if hi > 0 {
		return t0 * (rlo + (x-float64(lo))*(c.cyc[hi].v-rlo)/float64(hi-lo))
	}
	slope := priorSlope
	if lo > 0 {
		slope = max(0, (rlo-1)/float64(lo))
	}
	return t0 * (rlo + (x-float64(lo))*slope)
}

// decide updates the current regime's depth.
func (c *profit) decide() {
	if c.gate.step.n == 0 || c.gate.step.v <= 0 {
		return // no baseline yet: plain steps measure it
	}
	h := c.regime
	r0 := 1 / c.gate.step.v
	best, bestR := 0, r0
	for _, n := range c.rs[1:] {
		if r, ok := c.rate(h, n); ok && r > bestR {
			best, bestR = n, r
		}
	}
	cur := c.cur[h]
	switch {
	case cur == 0:
		if best > 0 && bestR >= r0*(1+c.p.ProfitMin) {
			c.cur[h], c.losses = best, 0
		}
	case best == 0:
		c.cur[h], c.losses = 0, 0
	case bestR < r0*(1+c.p.ProfitMin):
		c.losses++
		if c.losses >= c.p.OffDwell {
			c.cur[h], c.losses = 0, 0
		}
	default:
		c.losses = 0
		curR, ok := c.rate(h, cur)
		if !ok || best > cur && bestR >= curR*(1+c.p.RaiseMargin) || best < cur && bestR >= curR*(1+c.p.LowerMargin) {
			c.cur[h] = best
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
