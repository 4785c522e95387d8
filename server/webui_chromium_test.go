//go:build linux

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// The chat page driven in headless Chromium (Debian's chromium package)
// over the DevTools protocol: a message gets a streamed answer equal to
// the API's, the stop button ends a reply and frees the slot, and
// reasoning is shown folded. Without chromium the test is skipped (failed
// under CI=true, where .ci/run installs it); WAGGLE_CHROMIUM names
// another binary.

// startChromium runs headless Chromium on a fresh profile and returns a
// DevTools client attached to its blank page.
func startChromium(t *testing.T) *cdp {
	t.Helper()
	bin := os.Getenv("WAGGLE_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if bin != "" {
			break
		}
		bin, _ = exec.LookPath(name)
	}
	if bin == "" {
		testenv.Missing(t, "chromium for the web page test (apt-get install -y chromium)")
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+dir,
		"--remote-debugging-port=0", "about:blank")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers end with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	var port string
	for deadline := time.Now().Add(30 * time.Second); port == ""; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil && bytes.Contains(b, []byte("\n")) {
			port = string(b[:bytes.IndexByte(b, '\n')])
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromium did not start in 30 s:\n%s", logs.String())
		}
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, WebSocketDebuggerURL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			c, err := dialCDP(tg.WebSocketDebuggerURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
	}
	t.Fatalf("no page target in %+v", targets)
	return nil
}

// tcpServer serves the demo network on a loopback port, for the browser.
func tcpServer(t *testing.T, mutate func(*Config)) (string, *testServer) {
	t.Helper()
	data, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(l)
	cfg.NewSampler, cfg.CtxSize, cfg.Parallel = testSampler, 256, 2
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	addr := ln.Addr().String()
	return "http://" + addr, &testServer{Server: s, client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return net.Dial("tcp", addr) }}}
}

// pageMsg is the last assistant message as the page shows it.
type pageMsg struct {
	State, Text, Reasoning, Meta string
	Folded                       bool
	Lens                         []int // the answer's length at each DOM change
	Send, Stop                   bool  // the buttons are enabled
}

const lastMsgJS = `(() => {
  const m = [...document.querySelectorAll('.msg.assistant')].pop();
  if (!m) return null;
  const r = m.querySelector('details.reasoning');
  return {State: m.dataset.state, Text: m.querySelector('.content').textContent,
    Reasoning: r ? r.querySelector('.text').textContent : '', Folded: r ? !r.open : false,
    Meta: m.querySelector('.meta')?.textContent || '', Lens: window.__lens || [],
    Send: !document.getElementById('send').disabled, Stop: !document.getElementById('stop').disabled};
})()`

// sendJS records the answer's growth, sets the settings and sends text.
func sendJS(text string, maxTokens int) string {
	return fmt.Sprintf(`(() => {
  window.__lens = [];
  new MutationObserver(() => {
    const c = [...document.querySelectorAll('.msg.assistant .content')].pop();
    if (c) __lens.push(c.textContent.length);
  }).observe(document.getElementById('log'), {subtree: true, childList: true, characterData: true});
  document.getElementById('temperature').value = '0';
  document.getElementById('max-tokens').value = '%d';
  document.getElementById('input').value = %q;
  document.getElementById('form').requestSubmit();
  return true;
})()`, maxTokens, text)
}

// waitMsg polls the page until ok accepts the last assistant message.
func waitMsg(t *testing.T, c *cdp, what string, ok func(pageMsg) bool) pageMsg {
	t.Helper()
	var m pageMsg
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		m = pageMsg{}
		if err := c.eval(lastMsgJS, &m); err != nil {
			t.Fatal(err)
		}
		if ok(m) {
			return m
		}
	}
	t.Fatalf("%s: the page shows %+v", what, m)
	return m
}

// openPage loads the chat page of url and waits for its model line.
func openPage(t *testing.T, c *cdp, url string) {
	t.Helper()
	if _, err := c.call("Page.navigate", map[string]any{"url": url + "/"}); err != nil {
		t.Fatal(err)
	}
	var info string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(info, "slots busy"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page's header shows %q", info)
		}
		_ = c.eval(`document.readyState === 'complete' ? document.querySelector('header').textContent : ''`, &info)
	}
	if !strings.Contains(info, "waggle · n_ctx 128") || !strings.Contains(info, "0 of 2 slots busy") {
		t.Fatalf("header %q lacks the model and slots", info)
	}
}

func TestWebPageInChromium(t *testing.T) {
	c := startChromium(t)
	prev := testHookStep
	testHookStep = func() { time.Sleep(10 * time.Millisecond) } // a visible stream
	t.Cleanup(func() { testHookStep = prev })                   // after the servers stop

	url, ts := tcpServer(t, nil)
	openPage(t, c, url)
	if err := c.eval(sendJS("Once upon a time", 24), nil); err != nil {
		t.Fatal(err)
	}
	m := waitMsg(t, c, "a streamed answer", func(m pageMsg) bool { return m.State == "done" })
	want := chatText(t, ts, `[{"role":"user","content":"Once upon a time"}]`, 24)
	steps := 0
	for i := 1; i < len(m.Lens); i++ {
		if m.Lens[i] > m.Lens[i-1] {
			steps++
		}
	}
	if m.Text != want || steps < 2 || !strings.Contains(m.Meta, "24 tokens") || !m.Send || m.Stop {
		t.Fatalf("answer %+v (grew in %d steps), want %q in several steps", m, steps, want)
	}

	// Stop: in a new chat, an unbounded reply ends when the button is
	// pressed, and the server frees the slot.
	if err := c.eval(`document.getElementById('new').click()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.eval(sendJS("Once", -1), nil); err != nil {
		t.Fatal(err)
	}
	waitMsg(t, c, "a reply under way", func(m pageMsg) bool { return m.State == "streaming" && m.Text != "" && m.Stop })
	if err := c.eval(`document.getElementById('stop').click()`, nil); err != nil {
		t.Fatal(err)
	}
	waitMsg(t, c, "a stopped reply", func(m pageMsg) bool { return m.State == "stopped" && m.Send && !m.Stop })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, b := ts.do(t, "GET", "/slots", "")
		if !strings.Contains(b, `"is_processing":true`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot is still busy after the stop: %s", b)
		}
	}

	// Reasoning: a template that opens <think> makes the answer all
	// reasoning, shown in a folded block.
	url, ts = tcpServer(t, func(c *Config) { c.ChatTemplate = thinkTemplate })
	openPage(t, c, url)
	if err := c.eval(sendJS("hi", 8), nil); err != nil {
		t.Fatal(err)
	}
	m = waitMsg(t, c, "a reasoning answer", func(m pageMsg) bool { return m.State == "done" })
	_, api := ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":8,"temperature":0}`)
	reasoning := api["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["reasoning_content"]
	if m.Reasoning == "" || m.Reasoning != reasoning || !m.Folded || m.Text != "" {
		t.Fatalf("page %+v, want folded reasoning %q", m, reasoning)
	}
}
