package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends a JSON body and decodes the JSON answer.
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("POST %s: %d, not JSON: %q", url, resp.StatusCode, buf.String())
	}
	return resp.StatusCode, m
}

func timing(m map[string]any, k string) float64 {
	tm, _ := m["timings"].(map[string]any)
	v, _ := tm[k].(float64)
	return v
}

// TestSlotSaveRestoreAcrossProcesses: a slot saved by one `waggle serve`
// is restored by a fresh process with the same model and serves the same
// prompt from its cache with the same greedy text; a server running
// another model refuses the file.
func TestSlotSaveRestoreAcrossProcesses(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	dir := t.TempDir()
	args := []string{"-m", m, "-c", "256", "-np", "1", "-ctk", "f16", "-ctv", "f16", "--slot-save-path", dir}
	const req = `{"prompt":"Once upon a time, there was a little girl","n_predict":16,"temperature":0}`

	url := serve(t, args...)
	code, first := post(t, url+"/completion", req)
	if code != 200 {
		t.Fatalf("completion: %d %v", code, first)
	}
	code, saved := post(t, url+"/slots/0?action=save", `{"filename":"story.bin"}`)
	if code != 200 || saved["n_saved"].(float64) < 16 {
		t.Fatalf("save: %d %v", code, saved)
	}

	url2 := serve(t, args...)
	code, restored := post(t, url2+"/slots/0?action=restore", `{"filename":"story.bin"}`)
	if code != 200 || restored["n_restored"] != saved["n_saved"] || restored["n_read"] != saved["n_written"] {
		t.Fatalf("restore: %d %v (saved %v)", code, restored, saved)
	}
	code, again := post(t, url2+"/completion", req)
	if code != 200 {
		t.Fatalf("completion after restore: %d %v", code, again)
	}
	if got, want := timing(again, "cache_n"), timing(first, "prompt_n")-1; got != want {
		t.Errorf("after restore %v prompt tokens came from the cache, want %v", got, want)
	}
	if again["content"] != first["content"] {
		t.Errorf("restored cache changed the greedy text:\n%q\n%q", again["content"], first["content"])
	}

	other := serve(t, "--slot-save-path", dir, "-np", "1") // the embedded demo model
	code, refused := post(t, other+"/slots/0?action=restore", `{"filename":"story.bin"}`)
	if msg, _ := refused["error"].(map[string]any)["message"].(string); code != 400 || !strings.Contains(msg, "another model") {
		t.Errorf("another model: %d %v", code, refused)
	}
}

// TestContextShiftFlag: with --context-shift a request for more tokens
// than the slot's context gets them all and "truncated": true, and /props
// reports the flag and the cache types.
func TestContextShiftFlag(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	url := serve(t, "-m", m, "-c", "64", "-np", "1", "--context-shift", "-ctk", "f16")
	code, res := post(t, url+"/completion", `{"prompt":"Once upon a time","n_predict":120,"temperature":0,"n_keep":4}`)
	if code != 200 {
		t.Fatalf("completion: %d %v", code, res)
	}
	if res["stop_type"] == "eos" {
		t.Logf("the model ended its story before the context filled (%v tokens); shift not exercised", res["tokens_predicted"])
	} else if res["tokens_predicted"] != 120.0 || res["truncated"] != true {
		t.Errorf("with --context-shift: %v tokens, truncated %v", res["tokens_predicted"], res["truncated"])
	}
	resp, err := http.Get(url + "/props")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		KV map[string]any `json:"waggle_kv_cache"`
		PC map[string]any `json:"waggle_prompt_cache"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.KV["type_k"] != "f16" || p.KV["type_v"] != "f16" || p.KV["context_shift"] != true || p.PC["cache_ram_mib"] != 8192.0 {
		t.Errorf("/props: %v %v", p.KV, p.PC)
	}
}
