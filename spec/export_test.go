package spec

import (
	"time"

	"github.com/waggle-llm/waggle/engine/sample"
)

// Test hooks: the equality tests swap in broken verification rules to
// prove that they catch them.

// VerifyFunc is the verification rule's signature.
type VerifyFunc = func(sp *Speculator, sl *Slot, row int, draft []int32, out []int32) []int32

// SetVerify replaces sp's verification rule.
func SetVerify(sp *Speculator, f VerifyFunc) { sp.verify = f }

// VerifyAcceptAll accepts every draft token unchecked and adds the target's
// token after them: a broken rule the tests must catch.
func VerifyAcceptAll(sp *Speculator, sl *Slot, row int, draft []int32, out []int32) []int32 {
	for _, d := range draft {
		sl.Sampler.Accept(d)
		out = append(out, d)
	}
	tok := sl.Sampler.Sample(sp.Sess.Logits(row + len(draft)))
	sl.Sampler.Accept(tok)
	return append(out, tok)
}

// ChainStrategies exposes a chain's strategies.
func ChainStrategies(c *Chain) []Strategy { return c.strats }

// SetClock replaces the clock sp's controllers are timed with.
func SetClock(sp *Speculator, now func() time.Time) { sp.now = now }

// ChooseFunc is the sampled rule of tree and stochastic drafts.
type ChooseFunc = func(sp *Speculator, smp *sample.Sampler, logits []float32, cands []int32, q []float32) (int32, bool)

// SetChoose replaces sp's sampled rule.
func SetChoose(sp *Speculator, f ChooseFunc) { sp.choose = f }

// ChooseBeeLlama is BeeLlama's sampled DFlash rule (dflash-ddtree.md §6),
// which is not lossless: the target samples t; t is emitted when it is a
// candidate; otherwise each candidate is accepted with probability
// min(1, p/q), and if none is, the target's own t is emitted instead of a
// draw from the residual. The tests must catch it.
func ChooseBeeLlama(sp *Speculator, smp *sample.Sampler, logits []float32, cands []int32, q []float32) (int32, bool) {
	dist := smp.Distribution(logits)
	t := smp.SampleFrom(dist)
	for _, x := range cands {
		if x == t {
			return t, true
		}
	}
	for _, x := range cands {
		var px float32
		for _, c := range dist {
			if c.ID == x {
				px = c.P
			}
		}
		qx := float32(1)
		if q != nil {
			qx = q[x]
		}
		if qx > 0 && (px >= qx || coin(smp, px/qx)) {
			return x, true
		}
	}
	return t, false
}

// VerifyRows is the verification rule in use.
var VerifyRows VerifyFunc = verifyRows
