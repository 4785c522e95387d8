package server

import (
	"encoding/json"
	"slices"
	"testing"
)

const otherPrompt = "the quick brown fox said to the cat it is a day to play"

// TestCacheRAMReuse: with --cache-ram a slot's conversation that another
// request overwrote is parked in RAM and loaded back for a request that
// continues it: all but the last prompt token come from the cache, and the
// greedy text equals the first run's. Without --cache-ram the same third
// request recomputes its prompt (only BOS is shared).
func TestCacheRAMReuse(t *testing.T) {
	for _, ram := range []int{16, 0} {
		ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = 128; c.CacheRAMMiB = ram })
		first := ts.complete(t, slotPrompt, 6, "")
		ts.complete(t, otherPrompt, 6, "")
		again := ts.complete(t, slotPrompt, 6, "")
		cached := numAt(t, again, "timings", "cache_n")
		st := ts.sched.host.Stats()
		if ram > 0 {
			if cached != numAt(t, first, "tokens_evaluated")-1 {
				t.Fatalf("cache-ram %d: %d prompt tokens reused, want %d", ram, cached, numAt(t, first, "tokens_evaluated")-1)
			}
			if st.Loaded != 1 || st.Entries != 1 { // the other conversation is parked now
				t.Fatalf("host cache stats %+v", st)
			}
		} else if cached > 1 || st != (hostCacheStats{}) {
			t.Fatalf("without cache-ram: %d tokens reused, stats %+v", cached, st)
		}
		if again["content"] != first["content"] {
			t.Fatalf("cache-ram %d: reused state changed the greedy text: %q vs %q", ram, again["content"], first["content"])
		}
	}
}

// TestCacheRAMProps: /props reports the KV cache types and memory and the
// prompt cache's budget and contents under waggle_* names.
func TestCacheRAMProps(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = 128; c.CacheRAMMiB = -1 })
	ts.complete(t, slotPrompt, 4, "")
	ts.complete(t, otherPrompt, 4, "")
	code, body := ts.do(t, "GET", "/props", "")
	if code != 200 {
		t.Fatalf("/props: %d", code)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	kv := m["waggle_kv_cache"].(map[string]any)
	k, v := ts.sess.Cache().Bytes()
	if kv["type_k"] != "f32" || kv["type_v"] != "f32" || kv["bytes_k"] != float64(k) || kv["bytes_v"] != float64(v) || kv["cells"] != 128.0 {
		t.Fatalf("waggle_kv_cache %v", kv)
	}
	pc := m["waggle_prompt_cache"].(map[string]any)
	if pc["cache_ram_mib"] != -1.0 || pc["entries"] != 1.0 || pc["bytes"].(float64) <= 0 || pc["max_tokens"] != 128.0 {
		t.Fatalf("waggle_prompt_cache %v", pc)
	}
}

// TestCacheRAMHybrid: on a hybrid model a conversation parked in RAM when
// another request took its slot, and loaded back for a request that
// continues it, continues exactly as on a server without --cache-ram whose
// slot kept it (same tokens and log-probabilities), evaluating only the
// new prompt tokens.
func TestCacheRAMHybrid(t *testing.T) {
	ts := newHybridServer(t, func(c *Config) { c.CacheRAMMiB = 64 })
	ref := newHybridServer(t, nil)
	first := ts.complete(t, slotPrompt, 6, "")
	ref.complete(t, slotPrompt, 6, "")
	cached := ts.cachedTokens(0)
	ts.complete(t, otherPrompt, 6, "") // parks the first conversation
	next := continuationOf(t, cached, first)
	got := ts.completeIDs(t, next, 6)
	if st := ts.sched.host.Stats(); st.Loaded != 1 {
		t.Fatalf("host cache stats %+v: the parked state was not loaded", st)
	}
	sameContinuation(t, got, ref.completeIDs(t, next, 6), next, len(cached))
}

// TestCacheRAMHybridPartialPrefix: a hybrid model's parked state is not
// loaded for a prompt that shares only part of it (its recurrent state
// exists at its full length alone, so the slot would prefill from 0 and the
// parked state would be lost); it stays parked for a prompt that continues
// it.
func TestCacheRAMHybridPartialPrefix(t *testing.T) {
	ts := newHybridServer(t, func(c *Config) { c.CacheRAMMiB = 64 })
	first := ts.complete(t, slotPrompt, 6, "")
	cached := ts.cachedTokens(0)
	ts.complete(t, otherPrompt, 6, "") // parks the first conversation
	partial := append(slices.Clone(cached[:len(cached)/2]), 7, 8, 9)
	ts.completeIDs(t, partial, 2)
	if st := ts.sched.host.Stats(); st.Loaded != 0 {
		t.Fatalf("host cache stats %+v: a partly shared hybrid state was loaded", st)
	}
	got := ts.completeIDs(t, continuationOf(t, cached, first), 2)
	if st := ts.sched.host.Stats(); st.Loaded != 1 || numAt(t, got, "timings", "cache_n") != len(cached) {
		t.Fatalf("host cache stats %+v, cache_n %v: the parked state was lost", st, got["timings"])
	}
}
