package server

import (
	"encoding/json"
	"testing"
)

// TestFlashAttnSession: Config.Session.FlashAttn reaches the server's
// session (its Options and /props' waggle_kv_cache.flash_attn say so) and
// the server completes requests on the flash path.
func TestFlashAttnSession(t *testing.T) {
	for _, fa := range []bool{false, true} {
		ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = 128; c.Session.FlashAttn = fa })
		if ts.sess.Options().FlashAttn != fa {
			t.Fatalf("flash %v: session options say %v", fa, ts.sess.Options().FlashAttn)
		}
		if got := ts.complete(t, slotPrompt, 4, ""); got["content"] == "" {
			t.Fatalf("flash %v: empty completion %v", fa, got)
		}
		code, body := ts.do(t, "GET", "/props", "")
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); code != 200 || err != nil {
			t.Fatalf("/props: %d %v", code, err)
		}
		if kv := m["waggle_kv_cache"].(map[string]any); kv["flash_attn"] != fa {
			t.Fatalf("flash %v: waggle_kv_cache %v", fa, kv)
		}
	}
}
