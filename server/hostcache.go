package server

import (
	"slices"
	"sync"
)

// hostCache holds sequence states (kvcache.Cache.WriteState output) in
// RAM, keyed by the tokens they were computed from, within a byte budget
// and a token budget, evicting the least recently used entry first. (It
// lives here, not in kvcache, because the server may not import kvcache;
// it only stores bytes.) It is llama-server's
// --cache-ram prompt cache: when a slot's sequence is about to be
// overwritten its state is parked here, and a later request whose prompt
// shares a longer prefix with a parked state than with any slot loads it
// back instead of recomputing that prefix.
//
// Entries never overlap as prefixes: storing tokens that extend a held
// entry replaces it (the longer state serves every prompt the shorter
// one did), and storing tokens that a held entry already extends is a
// no-op. All methods are safe for concurrent use (the scheduler writes,
// /props reads the totals).
type hostCache struct {
	mu        sync.Mutex
	budget    int64 // bytes; < 0: no limit
	maxTokens int   // tokens over all entries; <= 0: no limit
	entries   []*hostEntry
	bytes     int64
	tokens    int
	tick      uint64
	evicted   int64
	loaded    int64 // states taken back into a slot
}

// hostEntry is one parked state.
type hostEntry struct {
	Tokens []int32
	State  []byte
	used   uint64 // hostCache.tick at the last Put or Best that chose it
}

// newHostCache makes a cache of at most budget bytes of state (< 0: no
// limit; 0 stores nothing) and maxTokens tokens in all (<= 0: no limit;
// llama-server uses the context size).
func newHostCache(budget int64, maxTokens int) *hostCache {
	return &hostCache{budget: budget, maxTokens: maxTokens}
}

// Admits reports whether a state of size bytes for n tokens could be held
// at all (it may evict others to make room). Callers ask before they
// encode a state, so a state that cannot fit is never built.
func (h *hostCache) Admits(size int64, n int) bool {
	if h == nil || n == 0 {
		return false
	}
	return (h.budget < 0 || size <= h.budget) && (h.maxTokens <= 0 || n <= h.maxTokens)
}

// Put parks a state computed from tokens (the slices are kept, not
// copied). It returns false when the state was not stored: too large for
// the budgets, or a held entry already extends tokens (that entry is
// marked used instead). Entries that tokens extend are dropped; then the
// least recently used entries are evicted until the new one fits.
func (h *hostCache) Put(tokens []int32, state []byte) bool {
	if !h.Admits(int64(len(state)), len(tokens)) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tick++
	for _, e := range h.entries {
		if len(e.Tokens) >= len(tokens) && slices.Equal(e.Tokens[:len(tokens)], tokens) {
			e.used = h.tick
			return false
		}
	}
	h.entries = slices.DeleteFunc(h.entries, func(e *hostEntry) bool {
		if len(e.Tokens) < len(tokens) && slices.Equal(tokens[:len(e.Tokens)], e.Tokens) {
			h.bytes -= int64(len(e.State))
			h.tokens -= len(e.Tokens)
			return true
		}
		return false
	})
	for len(h.entries) > 0 && !h.fits(int64(len(state)), len(tokens)) {
		h.evictLRU()
	}
	h.entries = append(h.entries, &hostEntry{Tokens: tokens, State: state, used: h.tick})
	h.bytes += int64(len(state))
	h.tokens += len(tokens)
	return true
}

// fits reports whether size more bytes and n more tokens stay within the
// budgets.
func (h *hostCache) fits(size int64, n int) bool {
	return (h.budget < 0 || h.bytes+size <= h.budget) && (h.maxTokens <= 0 || h.tokens+n <= h.maxTokens)
}

func (h *hostCache) evictLRU() {
	i := 0
	for j, e := range h.entries {
		if e.used < h.entries[i].used {
			i = j
		}
	}
	h.removeAt(i)
	h.evicted++
}

func (h *hostCache) removeAt(i int) {
	e := h.entries[i]
	h.bytes -= int64(len(e.State))
	h.tokens -= len(e.Tokens)
	h.entries = slices.Delete(h.entries, i, i+1)
}

// Best returns the entry sharing the longest prefix with prompt and the
// length of that prefix (nil, 0 when none shares a token), marking it
// used. On a tie the most recently used entry wins.
func (h *hostCache) Best(prompt []int32) (*hostEntry, int) {
	if h == nil {
		return nil, 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var best *hostEntry
	bestN := 0
	for _, e := range h.entries {
		n := commonPrefix(e.Tokens, prompt)
		if n > bestN || (n == bestN && n > 0 && e.used > best.used) {
			best, bestN = e, n
		}
	}
	if best != nil {
		h.tick++
		best.used = h.tick
	}
	return best, bestN
}

// Remove drops e (a slot took its state back); it is a no-op when e was
// evicted meanwhile.
func (h *hostCache) Remove(e *hostEntry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := slices.Index(h.entries, e); i >= 0 {
		h.removeAt(i)
	}
}

// Loaded counts a state taken back into a slot (reported by /props).
func (h *hostCache) Loaded() {
	h.mu.Lock()
	h.loaded++
	h.mu.Unlock()
}

// hostCacheStats are a hostCache's totals.
type hostCacheStats struct {
	Entries   int
	Bytes     int64
	Tokens    int
	Budget    int64 // bytes; < 0: no limit
	MaxTokens int   // <= 0: no limit
	Evicted   int64 // entries evicted for room since creation
	Loaded    int64 // states loaded back into a slot since creation
}

// Stats returns the current totals.
func (h *hostCache) Stats() hostCacheStats {
	if h == nil {
		return hostCacheStats{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return hostCacheStats{Entries: len(h.entries), Bytes: h.bytes, Tokens: h.tokens, Budget: h.budget, MaxTokens: h.maxTokens, Evicted: h.evicted, Loaded: h.loaded}
}

// Holds reports whether an entry already holds tokens or an extension of
// them (marking it used), so the caller can skip encoding a state Put
// would not store.
func (h *hostCache) Holds(tokens []int32) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.entries {
		if len(e.Tokens) >= len(tokens) && slices.Equal(e.Tokens[:len(tokens)], tokens) {
			h.tick++
			e.used = h.tick
			return true
		}
	}
	return false
}
