package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestAbsentRoutesAre501: llama-server routes Waggle does not have answer
// 501 with a reason, never 404; routes Waggle has keep their handlers.
func TestAbsentRoutesAre501(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, r := range []struct{ method, path string }{
		{"POST", "/rerank"}, {"POST", "/v1/rerank"}, {"POST", "/reranking"}, {"POST", "/v1/reranking"},
		{"GET", "/lora-adapters"}, {"POST", "/lora-adapters"}, {"POST", "/v1/audio/transcriptions"},
		{"POST", "/props"}, {"POST", "/models/load"}, {"POST", "/models/unload"},
	} {
		code, m := ts.post(t, r.path, `{}`)
		if r.method == "GET" {
			code, m = ts.getJSON(t, r.path)
		}
		if code != 501 || errorOf(t, m)["type"] != "not_supported_error" || errorOf(t, m)["message"] == "" {
			t.Fatalf("%s %s: %d %v", r.method, r.path, code, m)
		}
	}
	if code, _ := ts.do(t, "GET", "/props", ""); code != 200 {
		t.Fatalf("GET /props became %d", code)
	}
	if code, _ := ts.do(t, "GET", "/no-such-route", ""); code != 404 {
		t.Fatalf("an unknown route is %d, want 404", code)
	}
}

func (ts *testServer) getJSON(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	code, b := ts.do(t, "GET", path, "")
	return code, mustObject(t, b)
}

func mustObject(t *testing.T, b string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		t.Fatalf("not a JSON object: %q", b)
	}
	return m
}

// TestWebUIRoute: GET / is the page, public even with an API key, with a
// CSP that allows exactly its inline script and style; --no-webui
// removes it.
func TestWebUIRoute(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.APIKey = "k" })
	for _, path := range []string{"/", "/index.html"} {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://waggle" + path)
		if err := ts.client.Do(req, resp); err != nil {
			t.Fatal(err)
		}
		csp := string(resp.Header.Peek("Content-Security-Policy"))
		if resp.StatusCode() != 200 || string(resp.Header.ContentType()) != "text/html; charset=utf-8" || string(resp.Body()) != string(webPage) {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode(), resp.Header.ContentType())
		}
		if !strings.Contains(csp, "script-src "+inlineHash(webPage, "script")+";") || !strings.Contains(csp, "connect-src 'self'") {
			t.Fatalf("CSP %q", csp)
		}
	}
	if code, _ := ts.do(t, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`); code != 401 {
		t.Fatalf("the API is not behind the key: %d", code)
	}
	off := newTestServer(t, func(c *Config) { c.NoWebUI = true })
	if code, _ := off.do(t, "GET", "/", ""); code != 404 {
		t.Fatalf("--no-webui: GET / is %d", code)
	}
}

// TestWebPageSelfContained: the page has one inline script and style and
// loads nothing from elsewhere.
func TestWebPageSelfContained(t *testing.T) {
	page := string(webPage)
	if strings.Count(page, "<script") != 1 || strings.Count(page, "<style") != 1 || !strings.Contains(page, "<script>") || !strings.Contains(page, "<style>") {
		t.Fatal("want exactly one bare <script> and one bare <style> (their hashes make the CSP)")
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(?:[^d"]|d[^a"])|https?://|@import|url\(`).FindString(page); m != "" {
		t.Fatalf("the page references an outside resource: %q", m)
	}
	if inlineHash([]byte("<script>x</script>"), "script") != "'sha256-LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE='" {
		t.Fatal("inlineHash does not hash the element's content")
	}
}

// TestPropsBuildInfo: /props reports the binary's build line, so a bug
// report taken from a running server says what served it.
func TestPropsBuildInfo(t *testing.T) {
	for _, c := range []struct{ set, want string }{{"", "waggle"}, {"waggle v1.2.3 (0123456789ab 2026-11-26T00:00:00Z)", "waggle v1.2.3 (0123456789ab 2026-11-26T00:00:00Z)"}} {
		ts := newTestServer(t, func(cfg *Config) { cfg.BuildInfo = c.set })
		code, m := ts.getJSON(t, "/props")
		if code != 200 || m["build_info"] != c.want {
			t.Errorf("BuildInfo %q: /props build_info %v (status %d), want %q", c.set, m["build_info"], code, c.want)
		}
	}
}
