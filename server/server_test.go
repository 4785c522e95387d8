package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/demomodel"
)

func TestChatCompletion(t *testing.T) {
	ts := newTestServer(t, nil)
	code, m := ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":6,"temperature":0,"user":"u1","store":false,"metadata":{"x":"y"}}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	if m["object"] != "chat.completion" || !strings.HasPrefix(m["id"].(string), "chatcmpl-") {
		t.Fatalf("shape: %v", m)
	}
	ch := m["choices"].([]any)[0].(map[string]any)
	if ch["finish_reason"] != "length" || ch["message"].(map[string]any)["role"] != "assistant" {
		t.Fatalf("choice: %v", ch)
	}
	u := m["usage"].(map[string]any)
	if u["completion_tokens"].(float64) != 6 || u["total_tokens"].(float64) != u["prompt_tokens"].(float64)+6 {
		t.Fatalf("usage: %v", u)
	}
	tm := m["timings"].(map[string]any)
	if tm["predicted_n"].(float64) != 6 || tm["prompt_n"].(float64) <= 0 {
		t.Fatalf("timings: %v", tm)
	}
}

func TestChatStreamShape(t *testing.T) {
	ts := newTestServer(t, nil)
	code, body := ts.do(t, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	ev := sseEvents(t, body)
	if ev[len(ev)-1] != "[DONE]" {
		t.Fatalf("no [DONE]: %v", ev)
	}
	var chunks []map[string]any
	for _, e := range ev[:len(ev)-1] {
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	first := chunks[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	if first["role"] != "assistant" || first["content"] != nil {
		t.Fatalf("first delta %v", first)
	}
	id := chunks[0]["id"]
	var text string
	finish := ""
	for _, c := range chunks[1 : len(chunks)-1] {
		if c["id"] != id || c["object"] != "chat.completion.chunk" {
			t.Fatalf("chunk %v", c)
		}
		ch := c["choices"].([]any)[0].(map[string]any)
		d := ch["delta"].(map[string]any)
		if _, has := d["role"]; has {
			t.Fatal("role repeated")
		}
		if s, ok := d["content"].(string); ok {
			text += s
		}
		if f, ok := ch["finish_reason"].(string); ok {
			finish = f
		}
	}
	usage := chunks[len(chunks)-1]
	if len(usage["choices"].([]any)) != 0 || usage["usage"].(map[string]any)["completion_tokens"].(float64) != 5 || finish != "length" {
		t.Fatalf("usage chunk %v finish %q", usage, finish)
	}
	// The stream's text equals the non-streamed one.
	_, m := ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"temperature":0}`)
	if want := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; want != text {
		t.Fatalf("stream %q != whole %q", text, want)
	}
}

func TestCompletionsStopNAndLogprobs(t *testing.T) {
	ts := newTestServer(t, nil)
	_, m := ts.post(t, "/v1/completions", `{"prompt":"hello","max_tokens":12,"temperature":0}`)
	full := m["choices"].([]any)[0].(map[string]any)["text"].(string)
	if len(full) < 4 {
		t.Fatalf("short text %q", full)
	}
	if stop := asciiPair(full); stop != "" {
		sj, _ := json.Marshal(stop)
		_, m = ts.post(t, "/v1/completions", `{"prompt":"hello","max_tokens":12,"temperature":0,"stop":[`+string(sj)+`]}`)
		ch := m["choices"].([]any)[0].(map[string]any)
		if want := full[:strings.Index(full, stop)]; ch["text"] != want || ch["finish_reason"] != "stop" {
			t.Fatalf("stop %q: got %q (%v), want %q", stop, ch["text"], ch["finish_reason"], want)
		}
	} else {
		t.Errorf("no printable pair in %q to use as a stop word", full)
	}
	_, m = ts.post(t, "/v1/completions", `{"prompt":"hello","max_tokens":4,"temperature":1,"seed":5,"n":3,"logprobs":2}`)
	cs := m["choices"].([]any)
	if len(cs) != 3 {
		t.Fatalf("n=3 gave %d choices", len(cs))
	}
	lp := cs[1].(map[string]any)["logprobs"].(map[string]any)
	if len(lp["tokens"].([]any)) != 4 || len(lp["top_logprobs"].([]any)[0].(map[string]any)) != 2 {
		t.Fatalf("logprobs %v", lp)
	}
	for _, v := range lp["token_logprobs"].([]any) {
		if v.(float64) > 0 {
			t.Fatalf("logprob > 0: %v", v)
		}
	}
}

func TestNativeCompletionAndTokenize(t *testing.T) {
	ts := newTestServer(t, nil)
	code, m := ts.post(t, "/completion", `{"prompt":"hello","n_predict":3,"temperature":0}`)
	if code != 200 || m["stop"] != true || m["tokens_predicted"].(float64) != 3 || m["stop_type"] != "limit" {
		t.Fatalf("%d %v", code, m)
	}
	_, body := ts.do(t, "POST", "/completion", `{"prompt":"hello","n_predict":3,"temperature":0,"stream":true}`)
	ev := sseEvents(t, body)
	if strings.Contains(body, "[DONE]") || !strings.Contains(ev[len(ev)-1], `"stop":true`) {
		t.Fatalf("native stream: %v", ev)
	}
	_, tk := ts.post(t, "/tokenize", `{"content":"hello world","with_pieces":false}`)
	ids, _ := json.Marshal(tk["tokens"])
	_, dt := ts.post(t, "/detokenize", `{"tokens":`+string(ids)+`}`)
	if !strings.Contains(dt["content"].(string), "hello") {
		t.Fatalf("round trip: %v -> %v", tk, dt)
	}
	_, pc := ts.post(t, "/tokenize", `{"content":"hi","with_pieces":true}`)
	if _, ok := pc["tokens"].([]any)[0].(map[string]any)["piece"]; !ok {
		t.Fatalf("with_pieces: %v", pc)
	}
}

func TestInfoRoutes(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Alias = "demo" })
	for path, want := range map[string]string{"/health": `"ok"`, "/v1/models": `"demo"`, "/props": `"total_slots":2`, "/slots": `"n_ctx":128`, "/metrics": "llamacpp:requests_processing 0"} {
		code, body := ts.do(t, "GET", path, "")
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

func TestErrors(t *testing.T) {
	ts := newTestServer(t, nil)
	cases := []struct {
		method, path, body string
		code               int
		param              string
	}{
		{"GET", "/nope", "", 404, ""},
		{"GET", "/v1/chat/completions", "", 405, ""},
		{"POST", "/v1/chat/completions", "", 400, ""},
		{"POST", "/v1/chat/completions", "{", 400, ""},
		{"POST", "/v1/chat/completions", `[]`, 400, ""},
		{"POST", "/v1/chat/completions", `{"messages":"x"}`, 400, "messages"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":1.5}`, 400, "max_tokens"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"seed":1e30}`, 400, "seed"},
		{"POST", "/tokenize", `{"content":5}`, 400, "content"},
		{"POST", "/tokenize", `{"content":"x","extra":1}`, 400, "extra"},
		{"POST", "/v1/chat/completions", `{"messages":[]}`, 400, "messages"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"wizard","content":"x"}]}`, 400, "messages"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"temperature":"hot"}`, 400, "temperature"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"top_p":2}`, 400, "top_p"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"n":0}`, 400, "n"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"top_logprobs":3}`, 400, "top_logprobs"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":-5}`, 400, "max_tokens"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"reasoning_format":"x"}`, 400, "reasoning_format"},
		{"POST", "/v1/completions", `{"prompt":"x","echo":true}`, 400, "echo"},
		{"POST", "/v1/completions", `{"prompt":[99999999]}`, 400, "prompt"},
		{"POST", "/v1/completions", `{"prompt":"x","stop":5}`, 400, "stop"},
		{"POST", "/v1/completions", `{}`, 400, "prompt"},
		{"POST", "/v1/completions", strings.Repeat("[", 100) + strings.Repeat("]", 100), 400, ""},
		{"POST", "/detokenize", `{"tokens":[-1]}`, 400, "tokens"},
	}
	for _, c := range cases {
		code, body := ts.do(t, c.method, c.path, c.body)
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Errorf("%s %s %q: not JSON: %q", c.method, c.path, c.body, body)
			continue
		}
		e := errorOf(t, m)
		if code != c.code || int(e["code"].(float64)) != c.code {
			t.Errorf("%s %s %q: status %d, want %d (%v)", c.method, c.path, c.body, code, c.code, e)
		}
		if c.param != "" && e["param"] != c.param {
			t.Errorf("%s %q: param %v, want %s", c.path, c.body, e["param"], c.param)
		}
		if msg := e["message"].(string); goNames.MatchString(msg) {
			t.Errorf("%s %q: message names Go types: %q", c.path, c.body, msg)
		}
	}
}

// goNames matches what a message in the API's terms never contains: Go
// package-qualified names, pointer and slice types, Go's numeric types.
var goNames = regexp.MustCompile(`server\.|rawRequest|\*[a-z]|\[\][a-z]|map\[|\b(u?int(8|16|32|64)?|float(32|64)|struct|interface)\b|json: `)

// TestRequestFieldPolicy: unknown fields are a 400 naming them, fields
// known but not implemented a 400 saying so, and OpenAI's bookkeeping
// fields are accepted and ignored.
func TestRequestFieldPolicy(t *testing.T) {
	ts := newTestServer(t, nil)
	chat := `{"messages":[{"role":"user","content":"hi","refusal":null}],"max_tokens":2,%s}`
	for _, c := range []struct {
		extra, param, want string
	}{
		{`"temprature":0.5`, "temprature", `unrecognized request field "temprature"`},
		{`"Temperature":0.5`, "Temperature", "unrecognized"},
		{`"modalities":["audio"]`, "modalities", "not supported"},
		{`"lora":[]`, "lora", "not supported"},
		{`"user":"u","store":true,"metadata":{"a":"b"},"service_tier":"auto"`, "", ""},
	} {
		for _, path := range []string{"/v1/chat/completions", "/v1/completions", "/completion"} {
			body := fmt.Sprintf(chat, c.extra)
			if path != "/v1/chat/completions" {
				body = fmt.Sprintf(`{"prompt":"hi","max_tokens":2,%s}`, c.extra)
			}
			code, m := ts.post(t, path, body)
			if c.param == "" {
				if code != 200 {
					t.Errorf("%s %s: %d %v", path, c.extra, code, m)
				}
				continue
			}
			e := errorOf(t, m)
			if code != 400 || e["param"] != c.param || !strings.Contains(e["message"].(string), c.want) {
				t.Errorf("%s %s: %d %v", path, c.extra, code, e)
			}
		}
	}
	for body, want := range map[string]string{
		`[]`:                 "must be a JSON object, got an array",
		`"x"`:                "must be a JSON object, got a string",
		`null`:               "must be a JSON object, got null",
		`{"n":"2"}`:          `field "n" must be an integer, got a string`,
		`{"temperature":[]}`: `field "temperature" must be a number, got an array`,
		`{"stream":1}`:       `field "stream" must be a boolean, got a number`,
		`{"messages":{}}`:    `field "messages" must be an array, got an object`,
	} {
		code, m := ts.post(t, "/v1/chat/completions", body)
		if msg := errorOf(t, m)["message"].(string); code != 400 || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %q, want %q", body, code, msg, want)
		}
	}
}

func TestPromptLongerThanContext(t *testing.T) {
	ts := newTestServer(t, nil)
	code, m := ts.post(t, "/v1/completions", `{"prompt":"`+strings.Repeat("hello ", 300)+`"}`)
	e := errorOf(t, m)
	if code != 400 || e["type"] != "exceed_context_size_error" || e["n_ctx"].(float64) != 128 || e["n_prompt_tokens"].(float64) < 128 {
		t.Fatalf("%d %v", code, e)
	}
}

func TestBodyLimitAndAuth(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.APIKey = "sekrit"; c.MaxBodyBytes = 1 << 10 })
	code, body := ts.do(t, "POST", "/v1/completions", `{"prompt":"x"}`)
	if code != 401 || !strings.Contains(body, "authentication_error") {
		t.Fatalf("no key: %d %s", code, body)
	}
	if code, _ := ts.do(t, "POST", "/v1/completions", `{"prompt":"x","max_tokens":1}`, "Authorization", "Bearer wrong"); code != 401 {
		t.Fatalf("wrong key: %d", code)
	}
	if code, body := ts.do(t, "POST", "/v1/completions", `{"prompt":"x","max_tokens":1}`, "Authorization", "Bearer sekrit"); code != 200 {
		t.Fatalf("right key: %d %s", code, body)
	}
	if code, _ := ts.do(t, "GET", "/health", ""); code != 200 {
		t.Fatalf("/health must be public, got %d", code)
	}
	// The server answers 413 and closes the connection as soon as the
	// limit is passed; over the in-memory pipe the client can still be
	// writing the body then and see the close first (a transport race,
	// seen under the race detector), so a closed connection is retried.
	var err error
	for range 5 {
		code, body, err = ts.try("POST", "/v1/completions", `{"prompt":"`+strings.Repeat("x", 4<<10)+`"}`, "Authorization", "Bearer sekrit")
		if err == nil {
			break
		}
	}
	if err != nil || code != 413 || !strings.Contains(body, "invalid_request_error") {
		t.Fatalf("oversized body: %d %s (%v)", code, body, err)
	}
}

// TestQueueFull holds the scheduler so one request runs, one waits and the
// third finds the queue full.
func TestQueueFull(t *testing.T) {
	gate := make(chan struct{})
	var once sync.Once
	testHookStep = func() { <-gate }
	defer func() { testHookStep = nil }()
	ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.MaxQueue = 1 })
	defer once.Do(func() { close(gate) })
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); ts.do(t, "POST", "/v1/completions", `{"prompt":"hi","max_tokens":2}`) }()
	}
	deadline := time.Now().Add(5 * time.Second)
	busy := func() bool { return slices.Contains(ts.sched.snapshot(), true) } // published atomically
	for len(ts.sched.queue) == 0 || !busy() {
		if time.Now().After(deadline) {
			t.Fatal("requests did not queue")
		}
		time.Sleep(5 * time.Millisecond)
	}
	req := `{"prompt":"hi","max_tokens":2}`
	code, body := ts.do(t, "POST", "/v1/completions", req)
	if code != 503 || !strings.Contains(body, "unavailable_error") {
		t.Fatalf("full queue: %d %s", code, body)
	}
	once.Do(func() { close(gate) })
	wg.Wait()
}

// TestDisconnectFreesSlot drops a streaming client and expects its slot
// back well before its 100000-token budget could run out.
func TestDisconnectFreesSlot(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = 4096; c.CtxBeyondTrain = true })
	conn, err := ts.ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"prompt":"hi","max_tokens":4000,"stream":true}`
	conn.Write([]byte("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body))
	buf := make([]byte, 4096)
	if _, err := conn.Read(buf); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	waitIdle(t, ts, 10*time.Second)
}

func waitIdle(t *testing.T, ts *testServer, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		_, body := ts.do(t, "GET", "/metrics", "")
		if strings.Contains(body, "llamacpp:requests_processing 0") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot still busy after %v:\n%s", d, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestParallelMatchesAlone runs seeded requests one at a time, then all at
// once on 4 slots: every text must be the same (no mixing between slots)
// and the concurrent run must have batched several slots per decode.
func TestParallelMatchesAlone(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Parallel = 4; c.CtxSize = 1024 })
	const n = 8
	req := func(i int) string {
		return jsonf(`{"prompt":"hello %d","max_tokens":24,"temperature":0.9,"seed":%d,"cache_prompt":false}`, i, 100+i)
	}
	alone := make([]string, n)
	for i := range n {
		_, m := ts.post(t, "/v1/completions", req(i))
		alone[i] = m["choices"].([]any)[0].(map[string]any)["text"].(string)
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, body := ts.do(t, "POST", "/v1/completions", strings.Replace(req(i), "}", `,"stream":true}`, 1))
			for _, e := range sseEvents(t, body) {
				var c map[string]any
				if e != "[DONE]" && json.Unmarshal([]byte(e), &c) == nil && len(c["choices"].([]any)) > 0 {
					got[i] += c["choices"].([]any)[0].(map[string]any)["text"].(string)
				}
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if got[i] != alone[i] {
			t.Errorf("request %d: concurrent %q != alone %q", i, got[i], alone[i])
		}
	}
	_, body := ts.do(t, "GET", "/metrics", "")
	if strings.Contains(body, "llamacpp:n_busy_slots_per_decode 1\n") {
		t.Errorf("no batching happened:\n%s", body)
	}
}

func TestShutdownEndsStreams(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = 4096; c.CtxBeyondTrain = true })
	done := make(chan int, 1)
	go func() {
		code, _ := ts.do(t, "POST", "/v1/completions", `{"prompt":"hi","max_tokens":50,"stream":true}`)
		done <- code
	}()
	time.Sleep(50 * time.Millisecond)
	ts.stopping.Store(true)
	if code, _ := ts.do(t, "GET", "/health", ""); code != 503 {
		t.Fatalf("health while stopping: %d", code)
	}
	select {
	case code := <-done:
		if code != 200 {
			t.Fatalf("stream status %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("stream did not finish")
	}
}

var _ = net.Dial

// asciiPair returns the first two consecutive printable ASCII bytes of s.
func asciiPair(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] >= 0x21 && s[i] < 0x7f && s[i+1] >= 0x21 && s[i+1] < 0x7f {
			return s[i : i+2]
		}
	}
	return ""
}

// TestIdleStatePublished: once a request has finished, /slots shows every
// slot idle and /props the KV cells as they are (the scheduler publishes
// its state when it goes idle, not only before a step).
func TestIdleStatePublished(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Parallel, c.KVUnified = 2, true })
	for range 2 {
		if code, m := ts.post(t, "/v1/completions", `{"prompt":"once upon a time","max_tokens":3}`); code != 200 {
			t.Fatalf("%d %v", code, m)
		}
		_, body := ts.do(t, "GET", "/slots", "")
		if strings.Contains(body, `"is_processing":true`) {
			t.Fatalf("/slots after the request: %s", body)
		}
		_, pb := ts.do(t, "GET", "/props", "")
		var p struct {
			KV struct {
				Free int `json:"free_cells"`
			} `json:"waggle_kv_cache"`
		}
		if err := json.Unmarshal([]byte(pb), &p); err != nil {
			t.Fatal(err)
		}
		c := ts.sess.Cache() // the scheduler is idle: nothing else touches it
		if want := c.FreePages() * c.PageSize(); p.KV.Free != want {
			t.Fatalf("/props after the request: %d cells free, the cache has %d", p.KV.Free, want)
		}
	}
}

// TestShutdownGrace: with every slot busy and requests queued, Shutdown
// keeps its deadline: the running stream ends with a final chunk
// (finish_reason "length") and [DONE], a queued stream with a final chunk
// and [DONE], a queued plain request with 503; then Shutdown returns.
func TestShutdownGrace(t *testing.T) {
	testHookStep = func() { time.Sleep(5 * time.Millisecond) }
	defer func() { testHookStep = nil }()
	ts := newTestServer(t, func(c *Config) {
		c.Parallel = 1
		c.CtxSize = 8192
		c.CtxBeyondTrain = true
		c.NewSampler = noEOSSampler(c.Tokenizer)
	})
	type answer struct {
		code int
		body string
	}
	run := func(body string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			code, b, err := ts.try("POST", "/v1/chat/completions", body)
			if err != nil {
				b = err.Error()
			}
			ch <- answer{code, b}
		}()
		return ch
	}
	stream := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5000,"stream":true,"stream_options":{"include_usage":true}}`
	running := run(stream)
	waitFor(t, func() bool { return slices.Contains(ts.sched.snapshot(), true) })
	queuedStream := run(stream)
	queuedPlain := run(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":5}`)
	waitFor(t, func() bool { return len(ts.sched.queue) == 2 })

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Shutdown took %v with a 300 ms grace", d)
	}
	for name, ch := range map[string]chan answer{"running stream": running, "queued stream": queuedStream} {
		a := <-ch
		ev := sseEvents(t, a.body)
		if a.code != 200 || len(ev) < 2 || ev[len(ev)-1] != "[DONE]" || strings.Contains(a.body, `"error"`) {
			t.Fatalf("%s: %d %q", name, a.code, a.body)
		}
		if !strings.Contains(strings.Join(ev, "\n"), `"finish_reason":"length"`) || !strings.Contains(ev[len(ev)-2], `"usage"`) {
			t.Errorf("%s lacks its final chunks: %q", name, ev[max(0, len(ev)-3):])
		}
	}
	if a := <-queuedPlain; a.code != 503 {
		t.Errorf("queued request: %d %s", a.code, a.body)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// noEOSSampler builds test samplers that never pick an end-of-generation
// token, so a request runs until its limit.
func noEOSSampler(tok Tokenizer) SamplerFactory {
	return func(p SamplingParams, nVocab int) (Sampler, error) {
		smp, err := testSampler(p, nVocab)
		return noEOS{smp, tok}, err
	}
}

type noEOS struct {
	Sampler
	tok Tokenizer
}

func (s noEOS) Sample(logits []float32) int32 {
	for id := range logits {
		if s.tok.IsEOG(int32(id)) {
			logits[id] = float32(math.Inf(-1))
		}
	}
	return s.Sampler.Sample(logits)
}

// TestMetricsProcess: /metrics reports goroutines, heap, the queue and
// HTTP requests by route and status.
func TestMetricsProcess(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":1}`)
	ts.post(t, "/v1/chat/completions", `{"messages":[]}`)
	ts.do(t, "GET", "/no/such/route", "")
	ts.do(t, "GET", "/health", "")
	_, body := ts.do(t, "GET", "/metrics", "")
	for name, ok := range map[string]func(float64) bool{
		"waggle:goroutines":   func(v float64) bool { return v > 1 },
		"waggle:heap_bytes":   func(v float64) bool { return v > 0 },
		"waggle:queue_length": func(v float64) bool { return v == 0 },
		`waggle:http_requests_total{route="/v1/chat/completions",status="200"}`: func(v float64) bool { return v == 1 },
		`waggle:http_requests_total{route="/v1/chat/completions",status="400"}`: func(v float64) bool { return v == 1 },
		`waggle:http_requests_total{route="unmatched",status="404"}`:            func(v float64) bool { return v == 1 },
		`waggle:http_requests_total{route="/health",status="200"}`:              func(v float64) bool { return v == 1 },
	} {
		v := metric(body, name)
		if !ok(v) {
			t.Errorf("%s = %v in\n%s", name, v, body)
		}
	}
}

// TestHostileChatTemplate: a template that exhausts its render budget
// fails the server's start (when it does so on any conversation) or the
// request with a 500 naming the template (when it depends on the input),
// quickly, and the server goes on serving.
func TestHostileChatTemplate(t *testing.T) {
	cfg := func(src string) func(*Config) { return func(c *Config) { c.ChatTemplate = src } }
	data, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := ConfigFor(l)
	c.NewSampler, c.ChatTemplate = testSampler, `{{ 'a' * 1000000000 }}`
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "chat template") {
		t.Fatalf("New with a bomb template: %v", err)
	}
	ts := newTestServer(t, cfg(`{% if messages|length > 4 %}{% for i in range(100000000) %}{% endfor %}{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}`))
	many := `{"messages":[` + strings.Repeat(`{"role":"user","content":"hi"},`, 5) + `{"role":"user","content":"x"}],"max_tokens":1}`
	t0 := time.Now()
	code, m := ts.post(t, "/v1/chat/completions", many)
	if e := errorOf(t, m); code != 500 || !strings.Contains(e["message"].(string), "chat template") || time.Since(t0) > 30*time.Second {
		t.Fatalf("%d %v after %v", code, e, time.Since(t0))
	}
	if code, m := ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":1}`); code != 200 {
		t.Fatalf("after the bomb: %d %v", code, m)
	}
}
