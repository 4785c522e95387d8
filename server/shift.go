package server

import "github.com/waggle-llm/waggle/engine"

// Context shift (--context-shift), as llama-server's update_slots does it:
// when a generating slot's sequence reaches the slot's context, keep the
// first n_keep tokens (the request's n_keep, default 0; -1 keeps the whole
// prompt) plus one for BOS when the model adds it, drop n_discard of the
// tokens after them (default: half of them) and move the rest down; the
// engine re-rotates the moved keys (engine.Shifter). The reply then
// reports "truncated": true. Slots running through the speculative
// decoder, and models whose session cannot shift, end with "length" as
// without the flag.

// shiftParams reads n_keep and n_discard.
func (r *rawRequest) shiftParams() (keep, discard int, e *apiError) {
	if r.NKeep != nil {
		if keep = *r.NKeep; keep < -1 {
			return 0, 0, badRequest("n_keep", "n_keep must be -1 (the whole prompt) or >= 0, got %d", keep)
		}
	}
	if r.NDiscard != nil {
		if discard = *r.NDiscard; discard < 0 {
			return 0, 0, badRequest("n_discard", "n_discard must be >= 0, got %d", discard)
		}
	}
	return keep, discard, nil
}

// shiftContext makes room in sl's full sequence; false means it could not
// (flag off, speculative slot, no Shifter, nothing left to drop, or the
// engine failed) and the task should end.
func (s *scheduler) shiftContext(sl *slot) bool {
	if !s.ctxShift || sl.specOn {
		return false
	}
	sh, ok := s.sess.(engine.Shifter)
	if !ok {
		return false
	}
	n := len(sl.cached)
	keep := sl.t.nKeep
	if keep < 0 {
		keep = len(sl.t.prompt)
	}
	if s.tok.AddBOS() {
		keep++
	}
	keep = min(keep, n)
	drop := (n - keep) / 2
	if sl.t.nDiscard > 0 {
		drop = min(sl.t.nDiscard, n-keep)
	}
	if drop <= 0 {
		return false
	}
	if err := sh.Shift(sl.id, keep, drop); err != nil {
		sl.cached = sl.cached[:min(n, s.sess.SeqLen(sl.id))]
		return false
	}
	sl.cached = append(sl.cached[:keep], sl.cached[keep+drop:]...)
	sl.truncated = true
	return true
}
