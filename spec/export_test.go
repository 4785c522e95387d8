package spec

import "time"

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

// VerifyRows is the verification rule in use.
var VerifyRows VerifyFunc = verifyRows
