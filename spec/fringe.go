package spec

import "time"

const (
	fringeRing   = 32 // cycles remembered
	fringeWindow = 3  // trailing draft positions averaged
)

type cycle struct{ k, m int }

// fringe is BeeLlama's fringe controller: it watches the acceptance at the
// tail of the draft (the fraction of cycles reaching each of the last three
// positions below the cap in which that position was accepted). Below
// FringeMin for OffDwell readings it switches off; at FringeMax or above it
// goes to the base depth; in between it interpolates from 2 to base,
// moving at most two positions a cycle. A promotion needs MinReach samples
// at the new positions in the current epoch; a demotion starts a new epoch.
// Below base it drafts at full depth every ExploreInterval cycles to learn
// about the positions it does not reach.
//
// Unlike BeeLlama's it starts off, and while off it learns from shadow
// drafts (see Controller) instead of verified probes, so a stream whose
// drafts are rejected costs no verification at all; shadows are rationed
// by cost as in the profit controller.
type fringe struct {
	p         AdaptiveParams
	base, cur int
	ring      [fringeRing]cycle
	nRing     int
	reached   [maxDepth]int // current epoch
	accepted  [maxDepth]int
	lows      int
	sinceExpl int
	gate      shadowGate
}

func newFringe(p AdaptiveParams) *fringe { return &fringe{p: p, base: -1} }

func (c *fringe) Begin() {}

func (c *fringe) Timing(k int, draft, cyc time.Duration) {
	if k == 0 {
		c.gate.timing(draft, cyc, c.p.EWMAAlpha)
	}
}

func (c *fringe) Shadow(base int) (int, int) {
	if c.base <= 0 {
		return 0, 0
	}
	hz := probeDepth(c.base, c.p.ProbeFraction)
	return c.gate.allow(&c.p, c.base, hz), hz
}

func (c *fringe) Depth(base int) int {
	base = min(base, maxDepth)
	if base != c.base {
		*c = fringe{p: c.p, base: base}
	}
	if c.cur == 0 {
		return 0
	}
	if c.cur < base {
		c.sinceExpl++
		if c.sinceExpl >= c.p.ExploreInterval {
			c.sinceExpl = 0
			return base
		}
	}
	return c.cur
}

func (c *fringe) Record(cap, k, m int, shadow bool) {
	if k == 0 || c.base <= 0 {
		return
	}
	c.ring[c.nRing%fringeRing] = cycle{k, m}
	c.nRing++
	for p := range min(k, maxDepth) {
		c.reached[p]++
		if m > p {
			c.accepted[p]++
		}
	}
	c.decide()
}

// rate is the conditional acceptance over the window of positions just
// below depth d, from the ring, or from the epoch counters when the ring
// has fewer than MinReach samples there.
func (c *fringe) rate(d int) (float64, bool) {
	lo := max(0, d-fringeWindow)
	var reach, acc int
	for i := range min(c.nRing, fringeRing) {
		cy := c.ring[i]
		for p := lo; p < d; p++ {
			if cy.k > p {
				reach++
				if cy.m > p {
					acc++
				}
			}
		}
	}
	if reach < c.p.MinReach {
		reach, acc = 0, 0
		for p := lo; p < d; p++ {
			reach += c.reached[p]
			acc += c.accepted[p]
		}
	}
	if reach < c.p.MinReach {
		return 0, false
	}
	return float64(acc) / float64(reach), true
}

func (c *fringe) decide() {
	d := c.cur
	if d == 0 {
		d = probeDepth(c.base, c.p.ProbeFraction)
	}
	f, ok := c.rate(d)
	if !ok {
		return
	}
	lo, hi := c.p.FringeMin, c.p.FringeMax
	if f < lo {
		c.lows++
		if c.lows >= c.p.OffDwell && c.cur != 0 {
			c.cur, c.lows = 0, 0
			c.newEpoch()
		}
		return
	}
	c.lows = 0
	target := c.base
	if f < hi {
		target = 2 + int(float64(c.base-2)*(f-lo)/(hi-lo))
	}
	target = min(max(target, min(2, c.base)), c.base)
	switch {
	case target > c.cur:
		next := min(target, c.cur+2)
		if c.cur == 0 || c.backed(c.cur, next) {
			c.cur = next
		}
	case target < c.cur:
		c.cur = max(target, c.cur-2)
		c.newEpoch()
	}
}

// backed reports whether positions [from, to) have MinReach epoch samples
// whose acceptance beats a threshold interpolated between FringeMin and
// FringeMax by depth.
func (c *fringe) backed(from, to int) bool {
	for p := from; p < to && p < maxDepth; p++ {
		if c.reached[p] < c.p.MinReach {
			return false
		}
		th := c.p.FringeMin + (c.p.FringeMax-c.p.FringeMin)*float64(p)/float64(max(c.base, 1))
		if float64(c.accepted[p])/float64(c.reached[p]) < th {
			return false
		}
	}
	return true
}

func (c *fringe) newEpoch() {
	c.reached, c.accepted = [maxDepth]int{}, [maxDepth]int{}
}
