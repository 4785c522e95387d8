package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// specPrompts repeat themselves, so n-gram strategies find drafts.
var specPrompts = []string{
	"Once upon a time, there was a little girl named Lily. Once upon a time, there was a little girl named Lily. Once upon a time",
	"The cat sat on the mat. The dog sat on the mat. The cat sat on the mat. The dog",
	"Tom and Sam went to the park. They played and played. Tom and Sam went to the park. They",
}

// completion posts a greedy /v1/completions request and returns the text
// and timings.
func completion(t *testing.T, url, prompt string, extra map[string]any) (string, map[string]float64) {
	t.Helper()
	req := map[string]any{"prompt": prompt, "max_tokens": 128, "temperature": 0}
	for k, v := range extra {
		req[k] = v
	}
	b, _ := json.Marshal(req)
	resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var out struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
		Timings map[string]float64 `json:"timings"`
	}
	if err := json.Unmarshal(body, &out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("bad body %s: %v", body, err)
	}
	return out.Choices[0].Text, out.Timings
}

// TestSpeculativeGreedy: on stories260K, greedy output with n-gram
// speculation equals the output without it, drafts were made and
// accepted, timings and /metrics count them, and a type the server was
// not started with is a 400.
func TestSpeculativeGreedy(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	plain := serve(t, "-m", m, "-c", "1024", "--parallel", "2")
	sp := serve(t, "-m", m, "-c", "1024", "--parallel", "2", "--spec-type", "ngram-simple,ngram-map-k",
		"--spec-ngram-simple-size-n", "3", "--spec-ngram-simple-size-m", "8", "--spec-ngram-map-k-size-n", "2")
	drafted, accepted := 0.0, 0.0
	for _, p := range specPrompts {
		want, _ := completion(t, plain, p, nil)
		got, tm := completion(t, sp, p, nil)
		if got != want {
			t.Errorf("prompt %q:\nspeculative %q\nplain       %q", p, got, want)
		}
		drafted += tm["draft_n"]
		accepted += tm["draft_n_accepted"]
	}
	t.Logf("drafted %.0f, accepted %.0f", drafted, accepted)
	if drafted == 0 || accepted == 0 {
		t.Fatalf("no drafts (%.0f) or none accepted (%.0f): the test proves nothing", drafted, accepted)
	}
	resp, err := http.Get(sp + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mm := regexp.MustCompile(`(?m)^llamacpp:n_drafted_accepted_total (\S+)$`).FindSubmatch(body)
	if mm == nil {
		t.Fatalf("no llamacpp:n_drafted_accepted_total in /metrics:\n%s", body)
	}
	if v, _ := strconv.ParseFloat(string(mm[1]), 64); v != accepted {
		t.Errorf("/metrics n_drafted_accepted_total %v, timings summed %v", v, accepted)
	}
	b, _ := json.Marshal(map[string]any{"prompt": "x", "max_tokens": 2, "speculative.type": "suffix"})
	r, err := http.Post(sp+"/v1/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 400 {
		t.Errorf("speculative.type suffix (not started with it): status %d, want 400", r.StatusCode)
	}
}
