package server

import (
	"bytes"
	"slices"
)

// The --cache-ram prompt cache (llama-server's server_prompt_cache, PR
// #16391): a slot's sequence that is about to be overwritten is parked in
// host RAM as a state (the kvcache state codec without the file), and a
// new request whose prompt shares a longer prefix with a parked state than
// with the slot it is given loads that state into the slot first, so only
// the rest of the prompt is computed. Parking costs one copy of the
// sequence's rows (memory bandwidth, milliseconds for thousands of
// positions) plus, for a hybrid model, its recurrent state (a fixed size
// per sequence: 19.3 MiB for Qwen3.5-0.8B); loading costs the same plus a
// CRC pass. A hybrid model's state is loaded only for a prompt that
// continues all of its tokens: its recurrent state exists at that length
// alone, so keeping a shorter prefix would mean prefilling from 0 anyway
// and losing the parked state. The budget is
// --cache-ram MiB and, as in llama-server, at most the -c total of tokens.

// newPromptCache builds the host cache for cfg, nil when it is off.
func newPromptCache(cfg *Config, totalCtx int) *hostCache {
	switch {
	case cfg.CacheRAMMiB == 0:
		return nil
	case cfg.CacheRAMMiB < 0:
		return newHostCache(-1, totalCtx)
	}
	return newHostCache(int64(cfg.CacheRAMMiB)<<20, totalCtx)
}

// park saves sl's sequence in the host cache when it is on, the slot holds
// positions, and the state fits and is not already held.
func (s *scheduler) park(sl *slot) {
	n := len(sl.cached)
	if s.host == nil || n == 0 || n != s.sess.SeqLen(sl.id) || s.host.Holds(sl.cached) {
		return
	}
	c := s.sess.Cache()
	size := c.StateSize(n)
	if !s.host.Admits(size, n) {
		return
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := c.WriteState(buf, sl.id, s.model, sl.cached); err != nil {
		return
	}
	s.host.Put(slices.Clone(sl.cached), buf.Bytes())
}

// unpark loads a parked state into sl (replacing its sequence) and takes
// it out of the host cache, since the slot now holds it. On failure (a
// full unified pool) the slot is left empty.
func (s *scheduler) unpark(sl *slot, e *hostEntry) bool {
	s.host.Remove(e)
	toks, err := s.sess.Cache().RestoreState(bytes.NewReader(e.State), int64(len(e.State)), sl.id, s.model)
	if err != nil {
		s.dropCache(sl)
		return false
	}
	sl.cached = append(sl.cached[:0], toks...)
	s.host.Loaded()
	return true
}

// reuseHost runs when t is assigned to best, whose cached tokens share n
// with t's prompt: it loads a parked state that shares more (cache_prompt
// only), parking best's own sequence first, or parks best's sequence when
// t would cut it. It returns the prefix best now shares with the prompt.
func (s *scheduler) reuseHost(best *slot, t *task, n int) int {
	if s.host == nil {
		return n
	}
	limit := len(t.prompt) - 1 // at least one prompt token is evaluated
	if t.cachePrompt {
		if e, hn := s.host.Best(t.prompt); e != nil && min(hn, limit) > min(n, limit) && s.resumable(e, hn, limit) {
			s.park(best)
			if s.unpark(best, e) {
				return commonPrefix(best.cached, t.prompt)
			}
			return 0
		}
	}
	if !t.cachePrompt || min(n, limit) < len(best.cached) {
		s.park(best)
	}
	return n
}

// resumable reports whether loading e, which shares hn tokens with a
// prompt whose reusable prefix is at most limit, lets the slot keep them:
// always for attention rows, which can be cut anywhere; for a model with
// recurrent state only when the prompt continues all of e's tokens.
func (s *scheduler) resumable(e *hostEntry, hn, limit int) bool {
	return s.sess.Cache().Options().Recurrent == 0 || (hn == len(e.Tokens) && hn <= limit)
}
