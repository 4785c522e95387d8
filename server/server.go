package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/chat"
)

// Server serves one model. Create it with New, run it with Serve, stop it
// with Shutdown.
type Server struct {
	cfg      Config
	sess     engine.Session
	sched    *scheduler
	tmpl     *chat.Template
	metrics  *metrics
	http     *fasthttp.Server
	started  time.Time
	stopping atomic.Bool
	routeMap atomic.Pointer[map[string]map[string]route]
	// specClose releases what the speculative strategies hold.
	specClose func() error
	gram      grammarState
	// eog bans every end-of-generation token (ignore_eos), built once.
	eog     []LogitBias
	eogOnce sync.Once
	// diff serves a diffusion model in place of sess and sched (nil for
	// an autoregressive model); see diffusion.go.
	diff *diffScheduler
}

// attachSpeculator builds the configured Speculator over the session.
func (s *Server) attachSpeculator() error {
	if s.cfg.Speculator == nil {
		return nil
	}
	sp, closeFn, err := s.cfg.Speculator(s.sess)
	if err != nil {
		return fmt.Errorf("server: speculative decoding: %w", err)
	}
	s.specClose = closeFn
	if sp != nil && sp.Chain.Len() > 0 {
		s.sched.sp = sp
	}
	return nil
}

// New creates the session (Parallel sequences sharing CtxSize positions;
// see Config.CtxSize) and starts the scheduler.
func New(cfg Config) (*Server, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	tmpl, err := pickTemplate(&cfg)
	if err != nil {
		return nil, err
	}
	if dm, ok := cfg.Model.(engine.DiffusionModel); ok {
		s := &Server{cfg: cfg, tmpl: tmpl, metrics: &metrics{}, started: time.Now()}
		s.http = s.newHTTP()
		return newDiffusionServer(cfg, s, dm)
	}
	opts, err := cfg.sessionOptions()
	if err != nil {
		return nil, err
	}
	sess, err := cfg.Model.NewSession(opts)
	if err != nil {
		return nil, fmt.Errorf("server: session: %w", err)
	}
	if err := cfg.APIConfig.resolvePooling(sess); err != nil {
		return nil, err
	}
	if cfg.SlotSavePath != "" {
		if err := os.MkdirAll(cfg.SlotSavePath, 0o755); err != nil {
			return nil, fmt.Errorf("server: --slot-save-path: %w", err)
		}
	}
	s := &Server{cfg: cfg, sess: sess, tmpl: tmpl, metrics: &metrics{}, started: time.Now()}
	s.sched = newScheduler(&s.cfg, sess, s.metrics)
	if err := s.attachSpeculator(); err != nil {
		return nil, err
	}
	s.http = s.newHTTP()
	go s.sched.run()
	return s, nil
}

// newHTTP is the fasthttp server of s.
func (s *Server) newHTTP() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:            s.handle,
		Name:               "waggle",
		MaxRequestBodySize: s.cfg.MaxBodyBytes,
		ReadTimeout:        s.cfg.Timeout,
		IdleTimeout:        s.cfg.Timeout,
		CloseOnShutdown:    true,
		ErrorHandler:       s.transportError,
		NoDefaultDate:      true,
	}
}

// pickTemplate resolves --chat-template, then the GGUF's, then chatml.
func pickTemplate(cfg *Config) (*chat.Template, error) {
	src := cfg.ChatTemplate
	if src == "" {
		src = cfg.ModelChatTemplate
	}
	if src == "" {
		src = chat.DefaultName
	}
	t, err := chat.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("server: chat template: %w", err)
	}
	bos, eos := tokenText(cfg.Tokenizer, cfg.Tokenizer.BOS()), tokenText(cfg.Tokenizer, cfg.Tokenizer.EOS())
	if err := t.DryRun(bos, eos); err != nil {
		return nil, fmt.Errorf("server: the chat template fails on a four-message conversation: %w", err)
	}
	return t, nil
}

// NCtx is the per-slot context size in effect (llama.cpp's n_ctx_seq):
// CtxSize/Parallel, or CtxSize with a unified KV pool.
func (s *Server) NCtx() int {
	if s.diff != nil {
		return s.diff.nCtx
	}
	return s.sched.nCtx
}

// NumSlots is the number of slots (Config.Parallel after auto).
func (s *Server) NumSlots() int {
	if s.diff != nil {
		return len(s.diff.slots)
	}
	return len(s.sched.slots)
}

// KVReport describes the KV cache for the start-up log: slots, cells and
// memory.
func (s *Server) KVReport() string {
	if s.diff != nil {
		return s.diff.describe()
	}
	o, c := s.sess.Options(), s.sess.Cache()
	k, v := c.Bytes()
	mib := float64(k+v) / (1 << 20)
	if o.KVUnified {
		return fmt.Sprintf("%d slots sharing a unified KV pool of %d cells (each may grow to %d), %s/%s, %.1f MiB",
			o.NSeq, c.NumPages()*c.PageSize(), s.NCtx(), o.TypeK, o.TypeV, mib)
	}
	return fmt.Sprintf("%d slots × %d cells of KV cache, %s/%s, %.1f MiB", o.NSeq, o.NCtx, o.TypeK, o.TypeV, mib)
}

// Warnings are start-up notes about the configuration: a slot context
// capped at the model's training context, or one beyond it.
func (s *Server) Warnings() []string {
	if s.diff != nil {
		return nil // a diffusion model's slots hold what -c gives them
	}
	var w []string
	train := s.cfg.Model.Info().NCtxTrain
	asked := s.sess.Options().NCtx
	if !s.sess.Options().KVUnified {
		asked = s.cfg.CtxSize / s.cfg.Parallel
	}
	switch {
	case train <= 0:
	case s.cfg.CtxBeyondTrain && s.NCtx() > train:
		w = append(w, fmt.Sprintf("the slot context (%d) exceeds the model's training context (%d)", s.NCtx(), train))
	case asked > s.NCtx():
		w = append(w, fmt.Sprintf("the slot context (%d) exceeds the model's training context (%d): capping (--ctx-beyond-train keeps it)", asked, train))
	}
	return w
}

// ModelID is the model name the API reports: the first --alias, else the
// model file's name (never its path), else "waggle".
func (s *Server) ModelID() string {
	if a, _, _ := strings.Cut(s.cfg.Alias, ","); strings.TrimSpace(a) != "" {
		return strings.TrimSpace(a)
	}
	if s.cfg.ModelPath != "" {
		return filepath.Base(s.cfg.ModelPath)
	}
	return "waggle"
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.http.Serve(ln) }

// Shutdown stops accepting connections and lets running and queued
// requests (streams included) finish until ctx ends. At that deadline it
// ends what is left: generating requests finish with finish_reason
// "length" and what they produced (a stream gets its final chunk and
// [DONE]), requests that had not started get 503 (a stream: a final chunk
// with no text). It then waits up to flushGrace for the handlers to write
// those answers and stops the scheduler. A second call returns at once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	httpCtx, cancelHTTP := context.WithCancel(context.Background())
	defer cancelHTTP()
	httpDone := make(chan error, 1)
	go func() { httpDone <- s.http.ShutdownWithContext(httpCtx) }()
	var err error
	select {
	case err = <-httpDone: // everything finished within the grace
	case <-ctx.Done():
		s.stopScheduler()
		select {
		case err = <-httpDone:
		case <-time.After(flushGrace):
			err = errors.New("server: some connections were still open after the shutdown deadline")
		}
	}
	s.stopScheduler()
	if s.specClose != nil {
		if e := s.specClose(); e != nil && err == nil {
			err = e
		}
		s.specClose = nil
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// stopScheduler stops the model's scheduler (causal or diffusion); it may
// be called more than once.
func (s *Server) stopScheduler() {
	if s.diff != nil {
		s.diff.stop()
		return
	}
	s.sched.stop()
}

// flushGrace is how long Shutdown waits, after its deadline, for handlers
// to write the answers of the requests it ended.
const flushGrace = 2 * time.Second

// route is one handler and whether it needs the API key.
type route struct {
	fn     func(*fasthttp.RequestCtx)
	public bool
}

func (s *Server) routes() map[string]map[string]route {
	if s.diff != nil {
		return s.diffusionRoutes()
	}
	gen := func(fn func(*fasthttp.RequestCtx)) map[string]route { return map[string]route{"POST": {fn: fn}} }
	get := func(fn func(*fasthttp.RequestCtx), public bool) map[string]route {
		return map[string]route{"GET": {fn: fn, public: public}}
	}
	return s.withAPIRoutes(map[string]map[string]route{
		"/v1/chat/completions": gen(s.handleChat),
		"/chat/completions":    gen(s.handleChat),
		"/v1/completions":      gen(s.handleCompletions),
		"/completions":         gen(s.handleNative), // llama-server: native format without /v1
		"/completion":          gen(s.handleNative),
		"/tokenize":            gen(s.handleTokenize),
		"/detokenize":          gen(s.handleDetokenize),
		"/apply-template":      gen(s.handleApplyTemplate),
		"/v1/models":           get(s.handleModels, true),
		"/models":              get(s.handleModels, true),
		"/health":              get(s.handleHealth, true),
		"/v1/health":           get(s.handleHealth, true),
		"/metrics":             get(s.handleMetrics, false),
		"/props":               get(s.handleProps, false),
		"/slots":               get(s.handleSlots, false),
	})
}

// handle routes a request: 404 for unknown paths, 405 with Allow for a
// wrong method, 401 without the API key, and a recovered panic becomes a
// 500 instead of taking the server down.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	t0, label := time.Now(), "unmatched" // the route, a metrics label of bounded cardinality
	defer func() { s.observe(ctx, label, t0) }()
	defer func() {
		if r := recover(); r != nil {
			if s.cfg.Log != nil {
				fmt.Fprintf(s.cfg.Log, "panic serving %s: %v\n%s", ctx.Path(), r, debug.Stack())
			}
			writeError(ctx, newError(500, "server_error", "internal error: %v", r))
		}
	}()
	path := strings.TrimRight(string(ctx.Path()), "/")
	if path == "" {
		path = "/"
	}
	methods, ok := s.routeTable()[path]
	if ok {
		label = path
	} else if strings.HasPrefix(path, slotActionPrefix) {
		methods, ok = map[string]route{"POST": {fn: func(ctx *fasthttp.RequestCtx) { s.handleSlotAction(ctx, path) }}}, true
		label = slotActionPrefix + "{id}"
	}
	if !ok {
		writeError(ctx, newError(404, "not_found_error", "no route %s %s", ctx.Method(), path))
		return
	}
	method := string(ctx.Method())
	if method == "OPTIONS" {
		s.preflight(ctx, methods)
		return
	}
	r, ok := methods[method]
	if !ok {
		ctx.Response.Header.Set("Allow", allow(methods))
		writeError(ctx, newError(405, "invalid_request_error", "method %s is not allowed on %s (allowed: %s)", method, path, allow(methods)))
		return
	}
	ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
	if !r.public && !s.authorized(ctx) {
		writeError(ctx, newError(401, "authentication_error", "invalid or missing API key: send Authorization: Bearer <key>"))
		return
	}
	r.fn(ctx)
}

// observe counts a handled request by route and status for /metrics and,
// with LogRequests, logs it. A stream is counted when its handler returns
// (status 200), before its body is written.
func (s *Server) observe(ctx *fasthttp.RequestCtx, label string, t0 time.Time) {
	status := ctx.Response.StatusCode()
	s.metrics.httpRequest(label, status)
	if s.cfg.LogRequests && s.cfg.Log != nil {
		fmt.Fprintf(s.cfg.Log, "waggle: %s %s %s %d %.1fms\n", ctx.RemoteIP(), ctx.Method(), ctx.Path(), status, msBetween(t0, time.Now()))
	}
}

func (s *Server) routeTable() map[string]map[string]route {
	if t := s.routeMap.Load(); t != nil {
		return *t
	}
	t := s.routes()
	s.routeMap.Store(&t)
	return t
}

func allow(methods map[string]route) string {
	var l []string
	for m := range methods {
		l = append(l, m)
	}
	return strings.Join(append(l, "OPTIONS"), ", ")
}

func (s *Server) preflight(ctx *fasthttp.RequestCtx, methods map[string]route) {
	h := &ctx.Response.Header
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", allow(methods))
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}

// authorized checks "Authorization: Bearer <key>" (or X-Api-Key) in
// constant time when an API key is configured.
func (s *Server) authorized(ctx *fasthttp.RequestCtx) bool {
	if s.cfg.APIKey == "" {
		return true
	}
	got := string(ctx.Request.Header.Peek("Authorization"))
	if k, ok := strings.CutPrefix(got, "Bearer "); ok {
		got = k
	} else {
		got = string(ctx.Request.Header.Peek("X-Api-Key"))
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) == 1
}

// transportError answers requests fasthttp could not read (too large,
// malformed, timed out) with a JSON error instead of plain text.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge) || strings.Contains(err.Error(), "body size exceeds"):
		writeError(ctx, newError(413, "invalid_request_error", "request body larger than %d bytes", s.cfg.MaxBodyBytes))
	case errors.Is(err, fasthttp.ErrTimeout) || strings.Contains(err.Error(), "timeout"):
		writeError(ctx, newError(408, "invalid_request_error", "timed out reading the request"))
	default:
		writeError(ctx, newError(400, "invalid_request_error", "malformed HTTP request: %v", err))
	}
}
