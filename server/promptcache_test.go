package server

import (
	"encoding/json"
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
