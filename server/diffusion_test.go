package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/diffusion"
	"github.com/waggle-llm/waggle/internal/testenv"
)

func loadDiffusion(t testing.TB, stem string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, filepath.Join("diffusion", stem+".gguf")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// newDiffusionServer serves model (with l's tokenizer) on an in-memory
// listener: 3 slots of 256 positions.
func newDiffusionTestServer(t *testing.T, l *engine.Loaded, model engine.Model, mutate func(*Config)) *testServer {
	t.Helper()
	cfg := ConfigFor(l)
	cfg.Model = model
	cfg.NewSampler = testSampler
	cfg.CtxSize, cfg.Parallel = 768, 3
	cfg.Session.Threads = 2
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return serveInMemory(t, s)
}

func serveInMemory(t *testing.T, s *Server) *testServer {
	t.Helper()
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return &testServer{Server: s, ln: ln, client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}}
}

// chatContent posts a chat request and returns the answer, the finish
// reason and the timings.
func chatContent(t *testing.T, ts *testServer, body string) (string, string, map[string]any) {
	t.Helper()
	code, m := ts.post(t, "/v1/chat/completions", body)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	ch := m["choices"].([]any)[0].(map[string]any)
	tm, _ := m["timings"].(map[string]any)
	return ch["message"].(map[string]any)["content"].(string), ch["finish_reason"].(string), tm
}

// directAnswer runs the decoder on its own with the server's defaults for
// a greedy request of maxTokens on prompt with steps steps over blocks of
// 12.
func directAnswer(t *testing.T, l *engine.Loaded, prompt []int32, maxTokens, steps int) string {
	t.Helper()
	dm := l.Model.(engine.DiffusionModel)
	cfg := baseConfig(dm.Diffusion(), DiffusionOptions{})
	canvas := (maxTokens + 11) / 12 * 12
	cfg.Greedy, cfg.Steps, cfg.BlockLength = true, steps, 12
	r, err := diffusion.NewRun(dm.Diffusion(), dm.Info().NVocab, cfg, prompt, diffusion.Options{Canvas: canvas, IsEOG: l.Tokenizer.IsEOG})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{NCtx: 256, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := diffusion.Generate(d, r, 0, nil); err != nil {
		t.Fatal(err)
	}
	toks := r.Committed()
	text := "" // piece by piece, as llama-server reports generated text
	for _, tok := range toks[:min(len(toks), maxTokens)] {
		text += l.Tokenizer.Piece(tok, false)
	}
	return text
}

func chatPromptTokens(t *testing.T, ts *testServer, user string) []int32 {
	t.Helper()
	r := rawRequest{Messages: []rawMessage{{Role: "user", Content: json.RawMessage(fmt.Sprintf("%q", user))}}}
	p, _, _, e := ts.chatPrompt(&r)
	if e != nil {
		t.Fatal(e)
	}
	return p
}

// TestDiffusionChatMatchesDecoder: a greedy chat request on LLaDA answers
// what the decoder gives on its own (blocks of 12, the steps shared among
// them, reference-greedy ranking), cut to max_tokens with finish_reason
// length, and reports its denoising steps per block.
func TestDiffusionChatMatchesDecoder(t *testing.T) {
	l := loadDiffusion(t, "synth-llada-spm-f32")
	ts := newDiffusionTestServer(t, l, l.Model, nil)
	got, finish, tm := chatContent(t, ts, `{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":20,"temperature":0,"diffusion_steps":6,"diffusion_block_length":12}`)
	want := directAnswer(t, l, chatPromptTokens(t, ts, "Once upon a time"), 20, 6)
	if got != want || finish != "length" {
		t.Fatalf("answer %q (%s), decoder alone %q (length)", got, finish, want)
	}
	d := tm["diffusion"].(map[string]any)
	if fmt.Sprint(d["steps_per_block"]) != "[3 3]" || d["steps"].(float64) != 6 || tm["predicted_n"].(float64) != 20 {
		t.Fatalf("timings %v", tm)
	}
}

// TestDiffusionStreamsBlocks: a stream sends one content chunk per
// committed block, and the chunks add up to the non-streamed answer.
func TestDiffusionStreamsBlocks(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	ts := newDiffusionTestServer(t, l, l.Model, nil)
	req := `{"messages":[{"role":"user","content":"Tell me"}],"max_tokens":30,"seed":7,"temperature":0.7,"diffusion_block_length":10,"diffusion_steps":9%s}`
	whole, _, _ := chatContent(t, ts, fmt.Sprintf(req, ""))
	code, body := ts.do(t, "POST", "/v1/chat/completions", fmt.Sprintf(req, `,"stream":true`))
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var parts []string
	finish := ""
	for _, ev := range sseEvents(t, body) {
		if ev == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta        map[string]any `json:"delta"`
				FinishReason *string        `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatal(err)
		}
		for _, ch := range c.Choices {
			if s, ok := ch.Delta["content"].(string); ok {
				parts = append(parts, s)
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if len(parts) != 3 || strings.Join(parts, "") != whole || finish != "length" {
		t.Fatalf("%d chunks %q (finish %q), want the 3 blocks of %q (length)", len(parts), parts, finish, whole)
	}
}

// TestDiffusionConcurrentRequests: requests served together (their
// canvases in one forward) answer what each answers alone.
func TestDiffusionConcurrentRequests(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	ts := newDiffusionTestServer(t, l, l.Model, nil)
	bodies := []string{
		`{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":16,"temperature":0,"diffusion_steps":4,"diffusion_block_length":8}`,
		`{"messages":[{"role":"user","content":"The quick brown fox"}],"max_tokens":20,"seed":3,"diffusion_steps":6,"diffusion_block_length":10}`,
		`{"prompt":"A story","max_tokens":10,"seed":11,"temperature":1.1,"top_k":0,"diffusion_algorithm":"entropy-bound","entropy_bound":2}`,
	}
	paths := []string{"/v1/chat/completions", "/v1/chat/completions", "/v1/completions"}
	alone := make([]string, len(bodies))
	for i := range bodies {
		_, alone[i] = ts.do(t, "POST", paths[i], bodies[i])
	}
	var wg sync.WaitGroup
	together := make([]string, len(bodies))
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, together[i] = ts.do(t, "POST", paths[i], bodies[i])
		}()
	}
	wg.Wait()
	for i := range bodies {
		if answerOf(t, alone[i]) != answerOf(t, together[i]) {
			t.Errorf("request %d: together %q, alone %q", i, answerOf(t, together[i]), answerOf(t, alone[i]))
		}
	}
}

func answerOf(t *testing.T, body string) string {
	t.Helper()
	var m struct {
		Choices []struct {
			Text    string `json:"text"`
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || len(m.Choices) != 1 {
		t.Fatalf("not an answer: %s", body)
	}
	return m.Choices[0].Text + m.Choices[0].Message.Content
}

// TestDiffusionRejects: fields a denoiser cannot honour, and bad
// diffusion fields, are 400s that name the field.
func TestDiffusionRejects(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	ts := newDiffusionTestServer(t, l, l.Model, nil)
	for _, tc := range []struct{ body, field string }{
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true}`, "logprobs"},
		{`{"prompt":"x","logprobs":3}`, "logprobs"},
		{`{"prompt":"x","speculative.type":"ngram"}`, "speculative.type"},
		{`{"prompt":"x","diffusion_steps":-1}`, "diffusion_steps"},
		{`{"prompt":"x","diffusion_algorithm":"bogus"}`, "diffusion_algorithm"},
		{`{"prompt":"x","diffusion_eps":1.5}`, "diffusion_eps"},
		{`{"prompt":"x","diffusion_block_length":0}`, "diffusion_block_length"},
		{`{"prompt":"x","entropy_bound":-1}`, "entropy_bound"},
		{`{"prompt":"x","min_p":0.1}`, "min_p"},
		{`{"prompt":"x","frequency_penalty":0.5}`, "frequency_penalty"},
		{`{"prompt":"x","logit_bias":{"5":-100}}`, "logit_bias"},
		{`{"prompt":"x","mirostat":2}`, "mirostat"},
		{`{"prompt":"x","grammar":"root ::= \"a\""}`, "grammar"},
		{`{"prompt":"x","response_format":{"type":"json_object"}}`, "response_format"},
	} {
		path := "/v1/completions"
		if strings.Contains(tc.body, "messages") {
			path = "/v1/chat/completions"
		}
		code, m := ts.post(t, path, tc.body)
		e, _ := m["error"].(map[string]any)
		if code != 400 || e == nil || e["param"] != tc.field {
			t.Errorf("%s: status %d %v, want 400 naming %s", tc.body, code, m, tc.field)
		}
	}
}

// fakeDiffusion is a DiffusionModel whose logits are fixed by position:
// absolute position p predicts token 259 + (p·7 mod 250) with a wide margin,
// except that positions >= eogAt predict the end-of-sequence token 2. It
// records what the server asks of its Denoiser. uniform makes it a
// uniform-noise model with a fixed canvas (DiffusionGemma's shape).
type fakeDiffusion struct {
	info    engine.DiffusionInfo
	nVocab  int
	eogAt   int
	mu      sync.Mutex
	log     []string      // SetPrefix / Release / Denoise calls
	gate    chan struct{} // when set, each Denoise waits for a value
	entered chan struct{} // when set, each Denoise signals its start
	free    atomic.Bool   // set: Denoise no longer waits
}

func (f *fakeDiffusion) Info() *engine.Info {
	return &engine.Info{Arch: "fake-diffusion", NVocab: f.nVocab, NCtxTrain: 4096}
}
func (f *fakeDiffusion) Diffusion() *engine.DiffusionInfo { return &f.info }
func (f *fakeDiffusion) NewSession(engine.SessionOptions) (engine.Session, error) {
	return nil, engine.ErrDiffusionModel
}
func (f *fakeDiffusion) NewDenoiser(o engine.DenoiserOptions) (engine.Denoiser, error) {
	return &fakeDenoiser{f: f, o: o, prefix: make([]int, o.NSeq), logits: make([]float32, f.nVocab)}, nil
}

func (f *fakeDiffusion) record(format string, args ...any) {
	f.mu.Lock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeDiffusion) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

type fakeDenoiser struct {
	f      *fakeDiffusion
	o      engine.DenoiserOptions
	prefix []int
	logits []float32
}

func (d *fakeDenoiser) Options() engine.DenoiserOptions { return d.o }
func (d *fakeDenoiser) SetPrefix(seq int, tokens []int32) error {
	d.prefix[seq] = len(tokens)
	d.f.record("prefix %d %d", seq, len(tokens))
	return nil
}
func (d *fakeDenoiser) Release(seq int) { d.f.record("release %d", seq) }
func (d *fakeDenoiser) Denoise(cs []engine.Canvas, visit func(k, i int, logits []float32)) error {
	if d.f.entered != nil && !d.f.free.Load() {
		select {
		case d.f.entered <- struct{}{}:
			<-d.f.gate
		case <-time.After(50 * time.Millisecond):
			if !d.f.free.Load() {
				d.f.entered <- struct{}{}
				<-d.f.gate
			}
		}
	}
	for k, c := range cs {
		d.f.record("denoise %d %d sc=%v", c.Seq, len(c.Tokens), c.SelfCondInvTemp != 0)
		for i := range c.Tokens {
			if c.Need != nil && !c.Need[i] {
				continue
			}
			p := d.prefix[c.Seq] + i
			clear(d.logits)
			tok := 259 + p*7%250
			d.f.mu.Lock()
			eog := d.f.eogAt
			d.f.mu.Unlock()
			if p >= eog {
				tok = 2
			}
			d.logits[tok] = 30
			visit(k, i, d.logits)
		}
	}
	return nil
}

// TestDiffusionStopsAtEOG: an end-of-generation token in a committed block
// ends the answer there with finish_reason stop.
func TestDiffusionStopsAtEOG(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	prompt := chatPromptLen(t, l)
	fake := &fakeDiffusion{info: engine.DiffusionInfo{MaskToken: 512, PrefixSeesCanvas: true}, nVocab: 513, eogAt: prompt + 45}
	ts := newDiffusionTestServer(t, l, fake, nil)
	got, finish, tm := chatContent(t, ts, `{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":100,"temperature":0}`)
	want := ""
	for p := prompt; p < prompt+45; p++ {
		want += l.Tokenizer.Piece(int32(259+p*7%250), false)
	}
	if got != want || finish != "stop" || tm["predicted_n"].(float64) != 45 {
		t.Fatalf("answer %q (%s, %v tokens), want %q (stop, 45)", got, finish, tm["predicted_n"], want)
	}
	if fmt.Sprint(tm["diffusion"].(map[string]any)["steps_per_block"]) != "[32 32]" {
		t.Fatalf("blocks %v: the answer ends in the second block", tm["diffusion"])
	}
}

func chatPromptLen(t *testing.T, l *engine.Loaded) int {
	t.Helper()
	ts := &testServer{Server: &Server{cfg: ConfigFor(l)}}
	tm, err := pickTemplate(&ts.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.tmpl = tm
	return len(chatPromptTokens(t, ts, "Once upon a time"))
}

// TestDiffusionUniformNoiseModel: a uniform-noise model with a fixed
// canvas (DiffusionGemma's shape) plugs in through the seam alone: each
// canvas is denoised with the prefix cached (one SetPrefix per canvas, the
// prefix growing by a canvas each time), self-conditioning from its second
// step, and the answer ends at the end-of-generation token of the third
// canvas.
func TestDiffusionUniformNoiseModel(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	prompt := chatPromptLen(t, l)
	fake := &fakeDiffusion{info: engine.DiffusionInfo{MaskToken: -1, UniformNoise: true, CanvasLength: 16}, nVocab: 513, eogAt: prompt + 40}
	alg := diffusion.Confidence // waggle serve's default flag: not for this model
	ts := newDiffusionTestServer(t, l, fake, func(c *Config) { c.Parallel, c.Diffusion.Algorithm = 1, &alg })
	got, finish, tm := chatContent(t, ts, `{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":100,"seed":5}`)
	want := ""
	for p := prompt; p < prompt+40; p++ {
		want += l.Tokenizer.Piece(int32(259+p*7%250), false)
	}
	if got != want || finish != "stop" {
		t.Fatalf("answer %q (%s), want %q (stop)", got, finish, want)
	}
	if !ts.diff.d.Options().CachePrefix {
		t.Fatal("prefix caching is off for a model whose prefix does not see the canvas")
	}
	var prefixes []string
	sc := 0
	for _, c := range fake.calls() {
		if strings.HasPrefix(c, "prefix") {
			prefixes = append(prefixes, c)
		}
		if strings.HasSuffix(c, "sc=true") {
			sc++
		}
	}
	wantPrefixes := fmt.Sprintf("[prefix 0 %d prefix 0 %d prefix 0 %d]", prompt, prompt+16, prompt+32)
	if fmt.Sprint(prefixes) != wantPrefixes || sc == 0 {
		t.Fatalf("prefixes %v (want %s), %d self-conditioned steps", prefixes, wantPrefixes, sc)
	}
	if d := tm["diffusion"].(map[string]any); d["canvas"].(float64) != 112 {
		t.Fatalf("canvas %v, want 112 (100 rounded up to canvases of 16)", d["canvas"])
	}
}

// TestDiffusionCancelFreesCanvas: a stream whose client leaves is ended
// at the next block: its sequence is released, the rest of its answer is
// not computed, and the slot serves the next request.
func TestDiffusionCancelFreesCanvas(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	fake := &fakeDiffusion{info: engine.DiffusionInfo{MaskToken: 512, PrefixSeesCanvas: true}, nVocab: 513, eogAt: 1 << 30,
		gate: make(chan struct{}), entered: make(chan struct{})}
	ts := newDiffusionTestServer(t, l, fake, func(c *Config) { c.Parallel = 1 })
	pump := func() { <-fake.entered; fake.gate <- struct{}{} }
	conn, err := ts.ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"messages":[{"role":"user","content":"x"}],"max_tokens":200,"stream":true,"diffusion_block_length":4,"diffusion_steps":50}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: waggle\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	rd := bufio.NewReader(conn)
	for seen := false; !seen; {
		pump() // one step commits one block of 4: one chunk
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(line, `"content":"`) {
				seen = true
				break
			}
			if strings.HasPrefix(line, "data: ") {
				break
			}
		}
	}
	conn.Close() // the client leaves mid-answer
	// Step on slowly, giving the stream's writer time to fail on the closed
	// connection, until the server releases the sequence.
	for i := 0; !slices.Contains(fake.calls(), "release 0"); i++ {
		if i == 45 {
			t.Fatalf("the cancelled stream's sequence was not released: %v", fake.calls())
		}
		time.Sleep(30 * time.Millisecond)
		select {
		case <-fake.entered:
			fake.gate <- struct{}{}
		case <-time.After(30 * time.Millisecond):
		}
	}
	steps := 0
	for _, c := range fake.calls() {
		if strings.HasPrefix(c, "denoise") {
			steps++
		}
	}
	if steps >= 50 {
		t.Fatalf("%d steps: the cancelled answer ran to the end", steps)
	}
	fake.free.Store(true)
	fake.mu.Lock()
	fake.eogAt = 0
	fake.mu.Unlock()
	if _, finish, _ := chatContent(t, ts, `{"messages":[{"role":"user","content":"y"}],"max_tokens":8}`); finish != "stop" {
		t.Fatalf("the next request finished with %q", finish)
	}
}

// TestDiffusionServerReports: everything the command line and the
// monitoring routes ask of a server works on a diffusion model.
func TestDiffusionServerReports(t *testing.T) {
	l := loadDiffusion(t, "synth-dream-spm-f32")
	ts := newDiffusionTestServer(t, l, l.Model, nil)
	if ts.NumSlots() != 3 || ts.NCtx() != 256 || !strings.Contains(ts.KVReport(), "diffusion model: 3 slots") || len(ts.Warnings()) != 0 {
		t.Fatalf("slots %d, n_ctx %d, report %q, warnings %v", ts.NumSlots(), ts.NCtx(), ts.KVReport(), ts.Warnings())
	}
	for _, path := range []string{"/health", "/v1/models", "/props", "/slots", "/metrics"} {
		if code, body := ts.do(t, "GET", path, ""); code != 200 {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	if code, body := ts.do(t, "POST", "/slots/0?action=erase", ""); code != 404 && code != 501 {
		t.Errorf("a slot action on a diffusion server: %d %s, want 404 or 501", code, body)
	}
}
