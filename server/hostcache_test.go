package server

import (
	"slices"
	"testing"
)

func toks(ids ...int32) []int32 { return ids }

// TestHostCacheLRUBudget: entries are evicted least recently used first
// (Best counts as a use) until a new one fits the byte budget; a state
// larger than the whole budget is not stored and evicts nothing.
func TestHostCacheLRUBudget(t *testing.T) {
	h := newHostCache(300, 0)
	a, b, c := toks(1, 2), toks(3, 4), toks(5, 6)
	for _, e := range [][]int32{a, b, c} {
		if !h.Put(e, make([]byte, 100)) {
			t.Fatalf("Put %v refused", e)
		}
	}
	if st := h.Stats(); st.Entries != 3 || st.Bytes != 300 || st.Tokens != 6 {
		t.Fatalf("stats %+v", st)
	}
	if e, n := h.Best(toks(1, 2, 9)); e == nil || n != 2 || !slices.Equal(e.Tokens, a) {
		t.Fatalf("Best = %v, %d", e, n) // a is now the most recently used
	}
	if !h.Put(toks(7, 8), make([]byte, 150)) { // needs 150: evicts b (LRU) then c
		t.Fatal("Put refused")
	}
	if e, _ := h.Best(toks(3, 4)); e != nil {
		t.Fatal("b should have been evicted first")
	}
	if e, _ := h.Best(toks(5, 6)); e != nil {
		t.Fatal("c should have been evicted second")
	}
	if e, n := h.Best(toks(1, 2)); e == nil || n != 2 {
		t.Fatal("a (recently used) was evicted")
	}
	st := h.Stats()
	if st.Entries != 2 || st.Bytes != 250 || st.Evicted != 2 {
		t.Fatalf("stats %+v", st)
	}
	if h.Put(toks(9), make([]byte, 301)) || h.Stats().Entries != 2 {
		t.Fatal("an over-budget state was stored or evicted others")
	}
}

// TestHostCacheTokenBudget: the token budget (llama-server: the context
// size) evicts like the byte budget.
func TestHostCacheTokenBudget(t *testing.T) {
	h := newHostCache(-1, 5)
	h.Put(toks(1, 2, 3), []byte{1})
	h.Put(toks(4, 5), []byte{2})
	if st := h.Stats(); st.Entries != 2 || st.Tokens != 5 {
		t.Fatalf("stats %+v", st)
	}
	h.Put(toks(6), []byte{3}) // 6 tokens > 5: evict the LRU (1,2,3)
	if e, _ := h.Best(toks(1)); e != nil || h.Stats().Tokens != 3 {
		t.Fatalf("stats %+v", h.Stats())
	}
	if h.Put(toks(1, 2, 3, 4, 5, 6), nil) {
		t.Fatal("a state over the token budget was stored")
	}
}

// TestHostCacheOff: budget 0 (--cache-ram 0) stores nothing.
func TestHostCacheOff(t *testing.T) {
	h := newHostCache(0, 0)
	if h.Put(toks(1), []byte{1}) || h.Admits(1, 1) {
		t.Fatal("a zero budget stored a state")
	}
	var nilCache *hostCache
	if e, _ := nilCache.Best(toks(1)); e != nil || nilCache.Admits(0, 1) {
		t.Fatal("a nil cache must be empty")
	}
}

// TestHostCachePrefixes: storing an extension replaces the prefix entry;
// storing a prefix of a held entry stores nothing; Best picks the longest
// shared prefix.
func TestHostCachePrefixes(t *testing.T) {
	h := newHostCache(-1, 0)
	h.Put(toks(1, 2, 3), []byte("abc"))
	if !h.Put(toks(1, 2, 3, 4, 5), []byte("abcde")) || h.Stats().Entries != 1 {
		t.Fatalf("the extension should replace the prefix: %+v", h.Stats())
	}
	if h.Put(toks(1, 2), []byte("ab")) || h.Stats().Entries != 1 {
		t.Fatal("a prefix of a held entry was stored")
	}
	h.Put(toks(1, 7), []byte("x"))
	if e, n := h.Best(toks(1, 2, 3, 9)); n != 3 || string(e.State) != "abcde" {
		t.Fatalf("Best = %q, %d", e.State, n)
	}
	if e, n := h.Best(toks(1, 7, 7)); n != 2 || string(e.State) != "x" {
		t.Fatalf("Best = %q, %d", e.State, n)
	}
	if e, n := h.Best(toks(8)); e != nil || n != 0 {
		t.Fatal("no shared token should give no entry")
	}
	e, _ := h.Best(toks(1, 7))
	h.Remove(e)
	h.Remove(e) // no-op
	if st := h.Stats(); st.Entries != 1 || st.Tokens != 5 || st.Bytes != 5 {
		t.Fatalf("stats %+v", st)
	}
}
