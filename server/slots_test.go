package server

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/testenv"
)

const slotPrompt = "once upon a time there was a little girl and a happy dog in the sun"

// complete runs a greedy /completion and returns the response.
func (ts *testServer) complete(t *testing.T, prompt string, n int, extra string) map[string]any {
	t.Helper()
	code, m := ts.post(t, "/completion", jsonf(`{"prompt":%q,"n_predict":%d,"temperature":0,"return_tokens":true%s}`, prompt, n, extra))
	if code != 200 {
		t.Fatalf("completion: %d %v", code, m)
	}
	return m
}

func numAt(t *testing.T, m map[string]any, path ...string) int {
	t.Helper()
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: no %q in %v", path, k, v)
		}
		v = mm[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v is %v, not a number", path, v)
	}
	return int(f)
}

// TestSlotSaveRestoreErase: a slot saved to a file, erased, and restored
// serves the next request with the same prompt from its cache (all but
// the last prompt token), and that request's greedy text equals the first
// run's; the response shapes are llama-server's.
func TestSlotSaveRestoreErase(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServer(t, func(c *Config) { c.SlotSavePath = dir; c.Parallel = 1; c.CtxSize = 128 })
	first := ts.complete(t, slotPrompt, 8, "")
	evaluated, predicted := numAt(t, first, "tokens_evaluated"), numAt(t, first, "tokens_predicted")

	code, m := ts.post(t, "/slots/0?action=save", `{"filename":"conv.bin"}`)
	if code != 200 || m["id_slot"] != 0.0 || m["filename"] != "conv.bin" {
		t.Fatalf("save: %d %v", code, m)
	}
	nSaved := numAt(t, m, "n_saved")
	if nSaved != evaluated+predicted-1 { // the last sampled token is not evaluated
		t.Fatalf("n_saved %d, want %d+%d-1", nSaved, evaluated, predicted)
	}
	st, err := os.Stat(filepath.Join(dir, "conv.bin"))
	if err != nil || st.Size() != int64(numAt(t, m, "n_written")) {
		t.Fatalf("file: %v, size vs n_written %v", err, m["n_written"])
	}
	if _, ok := m["timings"].(map[string]any)["save_ms"]; !ok {
		t.Fatalf("no timings.save_ms in %v", m)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".waggle-slot-*")); len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}

	code, m = ts.post(t, "/slots/0?action=erase", ``)
	if code != 200 || numAt(t, m, "n_erased") != nSaved || ts.sess.SeqLen(0) != 0 {
		t.Fatalf("erase: %d %v, seq len %d", code, m, ts.sess.SeqLen(0))
	}

	code, m = ts.post(t, "/slots/0?action=restore", `{"filename":"conv.bin"}`)
	if code != 200 || numAt(t, m, "n_restored") != nSaved || numAt(t, m, "n_read") != int(st.Size()) || m["filename"] != "conv.bin" {
		t.Fatalf("restore: %d %v", code, m)
	}
	if _, ok := m["timings"].(map[string]any)["restore_ms"]; !ok {
		t.Fatalf("no timings.restore_ms in %v", m)
	}
	again := ts.complete(t, slotPrompt, 8, "")
	if got := numAt(t, again, "timings", "cache_n"); got != evaluated-1 {
		t.Fatalf("after restore the prompt reused %d cached tokens, want %d", got, evaluated-1)
	}
	if again["content"] != first["content"] {
		t.Fatalf("restored cache changed the greedy text: %q vs %q", again["content"], first["content"])
	}
}

// TestSlotActionErrors: llama-server's refusals, and a refused file leaves
// the slot's cache as it was.
func TestSlotActionErrors(t *testing.T) {
	off := newTestServer(t, nil)
	if code, m := off.post(t, "/slots/0?action=save", `{"filename":"a.bin"}`); code != 501 || errorOf(t, m)["type"] != "not_supported_error" {
		t.Fatalf("without --slot-save-path: %d %v", code, m)
	}

	dir := t.TempDir()
	ts := newTestServer(t, func(c *Config) { c.SlotSavePath = dir })
	for _, tc := range []struct {
		path, body string
		code       int
		msg        string
	}{
		{"/slots/0?action=save", `{"filename":"../evil.bin"}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{"filename":"a/b.bin"}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{"filename":"a\\b.bin"}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{"filename":"..."}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{"filename":""}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{"filename":"a\u0001"}`, 400, "Invalid filename"},
		{"/slots/0?action=save", `{}`, 400, "filename is required"},
		{"/slots/0?action=save", `not json`, 400, ""},
		{"/slots/0?action=fly", ``, 400, "Invalid action"},
		{"/slots/0", ``, 400, "Invalid action"},
		{"/slots/7?action=erase", ``, 400, "Invalid slot ID"},
		{"/slots/x?action=erase", ``, 400, "Invalid slot ID"},
		{"/slots/0?action=restore", `{"filename":"missing.bin"}`, 400, "no slot file"},
	} {
		code, m := ts.post(t, tc.path, tc.body)
		if code != tc.code || !strings.Contains(errorOf(t, m)["message"].(string), tc.msg) {
			t.Fatalf("%s %s: %d %v", tc.path, tc.body, code, m)
		}
	}
	if code, _ := ts.do(t, "GET", "/slots/0?action=save", ""); code != 405 {
		t.Fatalf("GET on a slot action: %d", code)
	}

	// A corrupt file is refused and the slot keeps its cache.
	first := ts.complete(t, slotPrompt, 4, "")
	id := numAt(t, first, "id_slot")
	if code, m := ts.post(t, jsonf("/slots/%d?action=save", id), `{"filename":"good.bin"}`); code != 200 {
		t.Fatalf("save: %d %v", code, m)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "good.bin"))
	b[len(b)/2] ^= 0xFF
	os.WriteFile(filepath.Join(dir, "bad.bin"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "short.bin"), b[:len(b)-3], 0o644)
	before := ts.sess.SeqLen(id)
	for name, msg := range map[string]string{"bad.bin": "checksum", "short.bin": "truncated"} {
		code, m := ts.post(t, jsonf("/slots/%d?action=restore", id), jsonf(`{"filename":%q}`, name))
		if code != 400 || !strings.Contains(errorOf(t, m)["message"].(string), msg) {
			t.Fatalf("%s: %d %v", name, code, m)
		}
		if ts.sess.SeqLen(id) != before || before == 0 {
			t.Fatalf("%s: a refused file changed the slot (%d -> %d positions)", name, before, ts.sess.SeqLen(id))
		}
	}

	// A file from another model is refused.
	other := newTestServer(t, func(c *Config) { c.SlotSavePath = dir; c.ModelHash = [32]byte{9} })
	if code, m := other.post(t, "/slots/0?action=restore", `{"filename":"good.bin"}`); code != 400 || !strings.Contains(errorOf(t, m)["message"].(string), "another model") {
		t.Fatalf("other model: %d %v", code, m)
	}
}

// TestSlotActionBusy: an action on a slot that runs a request is refused
// with 503 and Retry-After.
func TestSlotActionBusy(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.SlotSavePath = t.TempDir() })
	fake := &task{out: newMailbox(), deadline: time.Now().Add(time.Hour)}
	ts.control(func() { ts.sched.slots[1].t = fake })
	code, body := ts.do(t, "POST", "/slots/1?action=erase", "")
	ts.control(func() { ts.sched.slots[1].t = nil })
	if code != 503 || !strings.Contains(body, "busy") {
		t.Fatalf("busy slot: %d %s", code, body)
	}
}

// TestValidateFilename covers names llama.cpp's fs_validate_filename
// accepts and refuses.
func TestValidateFilename(t *testing.T) {
	for _, ok := range []string{"a.bin", "slot 1.bin", "état.bin", ".hidden", "x"} {
		if err := validateFilename(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../a", "a/..", "/abs", `c:\x`, "a:b", " a", "a ", "a\x00b", "a\nb", "\xff", strings.Repeat("a", 256)} {
		if validateFilename(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// hybridModel is the tiny Qwen3.5 fixture (DeltaNet and attention layers).
const hybridModel = "synth-qwen35-spm-f32.gguf"

// newHybridServer serves the hybrid fixture on an in-memory listener with
// one slot of 256 positions, like newTestServer.
func newHybridServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, hybridModel))
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(l)
	cfg.NewSampler, cfg.CtxSize, cfg.Parallel = testSampler, 256, 1
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		l.Close()
	})
	return &testServer{Server: s, ln: ln, client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}}
}

// cachedTokens returns a copy of slot id's cached tokens.
func (ts *testServer) cachedTokens(id int) []int32 {
	var out []int32
	ts.control(func() { out = slices.Clone(ts.sched.slots[id].cached) })
	return out
}

// completeIDs runs a greedy /completion of a token-id prompt asking for
// the top 3 log-probabilities of every generated token.
func (ts *testServer) completeIDs(t *testing.T, ids []int32, n int) map[string]any {
	t.Helper()
	b, _ := json.Marshal(ids)
	code, m := ts.post(t, "/completion", jsonf(`{"prompt":%s,"n_predict":%d,"temperature":0,"n_probs":3,"return_tokens":true}`, b, n))
	if code != 200 {
		t.Fatalf("completion: %d %v", code, m)
	}
	return m
}

// continuationOf is the prompt that continues a slot's conversation: the
// cached tokens, the last generated token (sampled, never evaluated) and
// a few new ones.
func continuationOf(t *testing.T, cached []int32, first map[string]any) []int32 {
	t.Helper()
	gen, ok := first["tokens"].([]any)
	if !ok || len(gen) == 0 {
		t.Fatalf("no generated tokens in %v", first)
	}
	return append(slices.Clone(cached), int32(gen[len(gen)-1].(float64)), 100, 200, 300)
}

// sameContinuation checks that two responses to the same continuation
// prompt generated the same tokens with the same log-probabilities, and
// that the first evaluated only the prompt tokens past the n cached ones
// (no re-prefill).
func sameContinuation(t *testing.T, got, want map[string]any, prompt []int32, n int) {
	t.Helper()
	if ps, _ := want["completion_probabilities"].([]any); len(ps) == 0 {
		t.Fatalf("no completion_probabilities in %v", want)
	}
	for _, k := range []string{"content", "tokens", "completion_probabilities"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Fatalf("%s differs after the round trip:\n got %v\nwant %v", k, got[k], want[k])
		}
	}
	if pn, cn := numAt(t, got, "timings", "prompt_n"), numAt(t, got, "timings", "cache_n"); pn != len(prompt)-n || cn != n {
		t.Fatalf("prompt_n %d, cache_n %d: want %d evaluated and %d from the cache (no re-prefill)", pn, cn, len(prompt)-n, n)
	}
}

// TestSlotRestoreHybrid: on a hybrid model a slot saved to a file, then
// overwritten by another conversation and restored, continues its
// conversation exactly as a server that never did the round trip (same
// tokens and log-probabilities), evaluating only the new prompt tokens.
func TestSlotRestoreHybrid(t *testing.T) {
	dir := t.TempDir()
	ts := newHybridServer(t, func(c *Config) { c.SlotSavePath = dir })
	ref := newHybridServer(t, nil)
	first := ts.complete(t, slotPrompt, 8, "")
	if r := ref.complete(t, slotPrompt, 8, ""); r["content"] != first["content"] {
		t.Fatalf("two servers disagree before any round trip: %q vs %q", r["content"], first["content"])
	}
	cached := ts.cachedTokens(0)
	if code, m := ts.post(t, "/slots/0?action=save", `{"filename":"hybrid.bin"}`); code != 200 || numAt(t, m, "n_saved") != len(cached) {
		t.Fatalf("save: %d %v", code, m)
	}
	ts.complete(t, otherPrompt, 8, "") // the slot now holds another conversation
	if code, m := ts.post(t, "/slots/0?action=restore", `{"filename":"hybrid.bin"}`); code != 200 || numAt(t, m, "n_restored") != len(cached) {
		t.Fatalf("restore: %d %v", code, m)
	}
	next := continuationOf(t, cached, first)
	sameContinuation(t, ts.completeIDs(t, next, 8), ref.completeIDs(t, next, 8), next, len(cached))
}
