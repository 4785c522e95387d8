package server

import (
	"errors"
	"fmt"
)

// The unified KV pool (--kv-unified) lets a slot grow to the whole -c
// context while other slots hold cells too, so a decode step can find the
// pool full. Waggle then frees pages instead of failing the step:
// makeRoom first drops the prompt cache of an idle slot (least recently
// used), then ends the busy slot holding the most positions. A generating
// slot ends with finish_reason "length" (stop_type "limit"), as if it had
// reached its context; a slot still reading its prompt ends with an error.
// llama-server instead retries with smaller batches and, at one token,
// fails every processing slot with "Context size has been exceeded."
// (server-context.cpp, update_slots); ending one slot keeps the others
// going.

// errPoolFull ends a request whose prompt did not fit the shared pool.
var errPoolFull = errors.New("context size has been exceeded: the unified KV cache is in use by other slots")

// undoBatch takes back the bookkeeping of a batch that Decode rejected
// (the session is unchanged): the tokens appended to the slots' caches
// and, for slots reading their prompt, the pending tokens consumed.
func (s *scheduler) undoBatch() {
	for _, seq := range s.batch.Seq {
		sl := s.slots[seq]
		sl.cached = sl.cached[:len(sl.cached)-1]
	}
	for _, sl := range s.slots {
		if sl.t != nil && !sl.generating && !sl.specOn {
			sl.pending = sl.t.prompt[len(sl.cached):]
		}
	}
}

// makeRoom frees KV pages after a decode found the pool full (see above).
// Every call frees a slot's pages, so the scheduler makes progress.
func (s *scheduler) makeRoom() {
	if sl := s.lruIdleCache(); sl != nil {
		s.park(sl) // kept in RAM with --cache-ram
		s.dropCache(sl)
		return
	}
	var victim *slot
	for _, sl := range s.slots {
		if sl.t != nil && (victim == nil || len(sl.cached) > len(victim.cached)) {
			victim = sl
		}
	}
	if victim == nil {
		return
	}
	if victim.generating {
		s.finish(victim, "length", "limit", "", len(victim.text))
	} else {
		victim.t.send(event{done: true, err: fmt.Errorf("%w (%d positions)", errPoolFull, len(victim.t.prompt))})
		s.release(victim)
	}
	s.dropCache(victim)
}

// lruIdleCache returns the least recently used idle slot that holds
// cached positions, or nil.
func (s *scheduler) lruIdleCache() *slot {
	var best *slot
	for _, sl := range s.slots {
		if sl.t == nil && s.sess.SeqLen(sl.id) > 0 && (best == nil || sl.lastUsed.Before(best.lastUsed)) {
			best = sl
		}
	}
	return best
}

// dropCache forgets a slot's cached tokens and frees its KV pages.
func (s *scheduler) dropCache(sl *slot) {
	sl.cached = sl.cached[:0]
	_ = s.sess.Truncate(sl.id, 0)
}
