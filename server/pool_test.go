package server

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCtxSizeSplit checks llama-server's -c semantics: the total context
// split evenly among the slots (n_ctx_seq = c/np) without --kv-unified,
// all of it for every slot with it, and -np auto = 4 unified slots; /slots
// and /props report the per-slot value, as llama-server does.
func TestCtxSizeSplit(t *testing.T) {
	for _, tc := range []struct {
		ctx, np  int
		unified  bool
		slots, n int
	}{
		{256, 2, false, 2, 128},
		{250, 4, false, 4, 62},
		{256, 2, true, 2, 256},
		{256, 0, false, 4, 256}, // auto
	} {
		ts := newTestServer(t, func(c *Config) { c.CtxSize, c.Parallel, c.KVUnified = tc.ctx, tc.np, tc.unified })
		if ts.NCtx() != tc.n || ts.NumSlots() != tc.slots {
			t.Errorf("-c %d -np %d unified %v: %d slots of %d, want %d of %d", tc.ctx, tc.np, tc.unified, ts.NumSlots(), ts.NCtx(), tc.slots, tc.n)
		}
		want := `"n_ctx":` + itoa(tc.n)
		for _, path := range []string{"/slots", "/props"} {
			if _, body := ts.do(t, "GET", path, ""); !strings.Contains(body, want) {
				t.Errorf("-c %d -np %d: %s lacks %s: %s", tc.ctx, tc.np, path, want, body)
			}
		}
	}
	data := newTestServer(t, nil).cfg // a loaded model for New
	data.CtxSize, data.Parallel = 3, 4
	if _, err := New(data); err == nil {
		t.Error("-c 3 -np 4 (no position per slot) was accepted")
	}
}

// tokens returns a prompt of n token ids inside the demo vocabulary.
func tokens(n, base int) string {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = base + i%150
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// TestUnifiedSlotsShareThePool sends two requests whose prompts exceed the
// per-slot share c/np (150 > 256/2) in sum and alone, but fit c together:
// a unified server serves both at once, a split one refuses the long one
// with the per-slot numbers.
func TestUnifiedSlotsShareThePool(t *testing.T) {
	long := `{"prompt":` + tokens(150, 100) + `,"max_tokens":8,"temperature":0}`
	short := `{"prompt":` + tokens(60, 120) + `,"max_tokens":8,"temperature":0}`
	split := newTestServer(t, nil) // -c 256 -np 2
	code, m := split.post(t, "/v1/completions", long)
	if e := errorOf(t, m); code != 400 || e["n_ctx"].(float64) != 128 || e["n_prompt_tokens"].(float64) != 150 {
		t.Fatalf("split cache: %d %v", code, e)
	}
	ts := newTestServer(t, func(c *Config) { c.KVUnified = true })
	var wg sync.WaitGroup
	for _, req := range []string{long, short} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, m := ts.post(t, "/v1/completions", req); code != 200 {
				t.Errorf("unified cache: %d %v", code, m)
			}
		}()
	}
	wg.Wait()
}

// TestUnifiedPoolExhaustion fills a unified pool of 5 pages of 64 (-c 256
// -np 2): a generating request holds 4 pages (200-token prompt), then a
// 100-token prompt needs 2. The scheduler ends the longest slot with
// finish_reason "length" instead of failing the step, the second request
// completes, and afterwards every page is free again or reusable.
func TestUnifiedPoolExhaustion(t *testing.T) {
	var steps atomic.Int64
	var sched atomic.Pointer[scheduler]
	testHookStep = func() { // hold the first request at step 4 until the second is queued
		if steps.Add(1) != 4 {
			return
		}
		for deadline := time.Now().Add(5 * time.Second); len(sched.Load().queue) == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	defer func() { testHookStep = nil }()
	ts := newTestServer(t, func(c *Config) { c.KVUnified = true })
	sched.Store(ts.sched)
	first := make(chan map[string]any, 1)
	go func() {
		_, m := ts.post(t, "/v1/completions", `{"prompt":`+tokens(200, 100)+`,"max_tokens":50,"temperature":0}`)
		first <- m
	}()
	for deadline := time.Now().Add(5 * time.Second); steps.Load() < 4; {
		if time.Now().After(deadline) {
			t.Fatal("the first request did not start")
		}
		time.Sleep(time.Millisecond)
	}
	code, m := ts.post(t, "/v1/completions", `{"prompt":`+tokens(100, 50)+`,"max_tokens":3,"temperature":0}`)
	if code != 200 {
		t.Fatalf("second request: %d %v", code, m)
	}
	a := <-first
	ch := a["choices"].([]any)[0].(map[string]any)
	used := a["usage"].(map[string]any)["completion_tokens"].(float64)
	if ch["finish_reason"] != "length" || used >= 50 {
		t.Fatalf("the long request: finish %v after %v tokens, want length before 50", ch["finish_reason"], used)
	}
	if code, m := ts.post(t, "/v1/completions", `{"prompt":`+tokens(200, 100)+`,"max_tokens":4}`); code != 200 {
		t.Fatalf("after exhaustion: %d %v", code, m)
	}
}

// TestCancelFreesPages drops a streaming client of a unified server and
// expects all of the pool's pages back (a finished request keeps its
// pages as a prompt cache until the pool needs them; a cancelled one does
// not).
func TestCancelFreesPages(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.KVUnified, c.CtxSize, c.Parallel, c.CtxBeyondTrain = true, 4096, 1, true
		c.NewSampler = noEOSSampler(c.Tokenizer) // only the disconnect may end it
	})
	conn, err := ts.ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"prompt":` + tokens(300, 10) + `,"max_tokens":3000,"stream":true}`
	conn.Write([]byte("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body))
	if _, err := conn.Read(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	waitIdle(t, ts, 10*time.Second)
	all := int64(ts.sess.Cache().NumPages()) // fixed at creation: no race
	for deadline := time.Now().Add(5 * time.Second); ts.sched.freePages.Load() != all; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pages free after the client left", ts.sched.freePages.Load(), all)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSlotContextCappedAtTraining: a slot's context is capped at the
// model's training context (512 for the demo network), in a split and in
// a unified pool, unless CtxBeyondTrain; the cap is reported.
func TestSlotContextCappedAtTraining(t *testing.T) {
	for _, c := range []struct {
		unified, beyond bool
		want            int
	}{{false, false, 512}, {true, false, 512}, {false, true, 2048}, {true, true, 2048}} {
		ts := newTestServer(t, func(cfg *Config) {
			cfg.Parallel, cfg.CtxSize, cfg.KVUnified, cfg.CtxBeyondTrain = 1, 2048, c.unified, c.beyond
		})
		if ts.NCtx() != c.want {
			t.Errorf("unified %v beyond %v: n_ctx %d, want %d", c.unified, c.beyond, ts.NCtx(), c.want)
		}
		if w := strings.Join(ts.Warnings(), "\n"); !strings.Contains(w, "training context (512)") {
			t.Errorf("unified %v beyond %v: warnings %q", c.unified, c.beyond, w)
		}
		if !c.unified && !c.beyond && ts.sess.Options().NCtx != 512 {
			t.Errorf("split pool allocated %d positions per slot for a 512-position cap", ts.sess.Options().NCtx)
		}
		code, m := ts.post(t, "/v1/completions", `{"prompt":"`+strings.Repeat("hello ", 300)+`","max_tokens":1}`)
		if (code == 200) != c.beyond {
			t.Errorf("unified %v beyond %v: a 600-token prompt got %d %v", c.unified, c.beyond, code, m)
		}
	}
}
