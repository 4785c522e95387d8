package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/grammar"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/server"
	"github.com/waggle-llm/waggle/spec"
)

// serveCmd is `waggle serve`: llama-server's flags and environment
// variables (LLAMA_ARG_*, also WAGGLE_*), grouped as llama-server's --help
// groups them. Flags llama-server has that change nothing here are
// accepted and logged (serve_compat.go).
type serveCmd struct {
	Model           string `group:"common" short:"m" help:"GGUF model file (default: the embedded demo network)." type:"path" env:"WAGGLE_MODEL,LLAMA_ARG_MODEL"`
	Threads         int    `group:"common" short:"t" help:"Worker threads (0: all cores)." default:"0" env:"WAGGLE_THREADS,LLAMA_ARG_THREADS"`
	CtxSize         int    `group:"common" short:"c" name:"ctx-size" help:"Total context of all slots (0: the model's, at most 4096); each slot gets ctx-size/parallel, or shares all of it with --kv-unified, and at most the model's training context." default:"0" env:"WAGGLE_CTX_SIZE,LLAMA_ARG_CTX_SIZE"`
	CtxBeyondTrain  bool   `group:"common" name:"ctx-beyond-train" help:"Let a slot's context exceed the model's training context (output past it is usually poor)." env:"WAGGLE_CTX_BEYOND_TRAIN"`
	NPredict        int    `group:"common" short:"n" name:"n-predict" help:"Default max tokens per request (-1: until the context is full)." default:"-1" env:"WAGGLE_N_PREDICT,LLAMA_ARG_N_PREDICT"`
	BatchSize       int    `group:"common" short:"b" name:"batch-size" help:"Tokens per scheduler step." default:"2048" env:"WAGGLE_BATCH,LLAMA_ARG_BATCH"`
	UBatchSize      int    `group:"common" name:"ubatch-size" aliases:"ub" help:"Tokens per forward pass." default:"512" env:"WAGGLE_UBATCH,LLAMA_ARG_UBATCH"`
	FlashAttn       string `group:"common" name:"flash-attn" help:"on, off or auto (= off). on: online-softmax (flash) attention over 64-position chunks of the KV cache; off: the exact two-pass attention, llama.cpp's -fa off bit for bit on f16/f32 caches." default:"auto" env:"WAGGLE_FLASH_ATTN,LLAMA_ARG_FLASH_ATTN"`
	CacheTypeK      string `group:"common" name:"cache-type-k" aliases:"ctk" help:"KV cache type for keys." default:"f16" env:"WAGGLE_CACHE_TYPE_K,LLAMA_ARG_CACHE_TYPE_K"`
	CacheTypeV      string `group:"common" name:"cache-type-v" aliases:"ctv" help:"KV cache type for values." default:"f16" env:"WAGGLE_CACHE_TYPE_V,LLAMA_ARG_CACHE_TYPE_V"`
	ContextShift    bool   `group:"common" name:"context-shift" negatable:"" help:"When a generating slot fills its context, drop the oldest half of the tokens after n_keep and go on." env:"WAGGLE_CONTEXT_SHIFT,LLAMA_ARG_CONTEXT_SHIFT"`
	KVUnified       bool   `group:"common" name:"kv-unified" aliases:"kvu" help:"One KV pool of ctx-size cells shared by all slots; each slot may grow to ctx-size." env:"WAGGLE_KV_UNIFIED,LLAMA_ARG_KV_UNIFIED"`
	CtxCheckpoints  int    `group:"common" name:"ctx-checkpoints" aliases:"swa-checkpoints" help:"Recurrent-state checkpoints per slot for prompt-prefix reuse on hybrid models (qwen35, qwen3next; 0: none)." default:"8" env:"WAGGLE_CTX_CHECKPOINTS,LLAMA_ARG_CTX_CHECKPOINTS"`
	CheckpointEvery int    `group:"common" name:"checkpoint-every-n-tokens" aliases:"cpent" help:"Also checkpoint a hybrid model's recurrent state every N prompt tokens (-1: only at prompt ends)." default:"8192" env:"WAGGLE_CHECKPOINT_EVERY_NT,LLAMA_ARG_CHECKPOINT_EVERY_NT"`
	gpuFlags
	samplingFlags    `group:"sampling"`
	grammarFlags     `group:"sampling"`
	specFlags        `group:"speculative"` // before the server group: llama-server's --help order
	Alias            string                `group:"server" short:"a" help:"Model name reported by the API (the first of a comma-separated list; default: the file name)." env:"WAGGLE_ALIAS,LLAMA_ARG_ALIAS"`
	Host             string                `group:"server" help:"Address to listen on." default:"127.0.0.1" env:"WAGGLE_HOST,LLAMA_ARG_HOST"`
	Port             int                   `group:"server" help:"Port to listen on (0: any free port)." default:"8080" env:"WAGGLE_PORT,LLAMA_ARG_PORT"`
	Parallel         int                   `group:"server" name:"parallel" aliases:"np" help:"Slots: requests decoded together (-1: auto, 4 slots sharing a unified KV cache; 1 with --kv-unified or speculation)." default:"-1" env:"WAGGLE_N_PARALLEL,LLAMA_ARG_N_PARALLEL"`
	Timeout          int                   `group:"server" name:"timeout" aliases:"to" help:"Per-request time limit in seconds." default:"600" env:"WAGGLE_TIMEOUT,LLAMA_ARG_TIMEOUT"`
	APIKey           string                `group:"server" name:"api-key" help:"Require Authorization: Bearer <key>." env:"WAGGLE_API_KEY,LLAMA_API_KEY"`
	APIKeyFile       string                `group:"server" name:"api-key-file" help:"File holding the API key (its first line)." type:"path"`
	MaxQueue         int                   `group:"server" name:"max-queue" help:"Requests waiting for a slot before 503." default:"64" env:"WAGGLE_MAX_QUEUE"`
	CacheReuse       int                   `group:"server" name:"cache-reuse" help:"Accepted; the longest common prefix with a slot's previous prompt is always reused when cache_prompt is on." default:"0" env:"WAGGLE_CACHE_REUSE,LLAMA_ARG_CACHE_REUSE"`
	CacheRAM         int                   `group:"server" name:"cache-ram" aliases:"cram" help:"MiB of RAM for the prompt caches of idle slots, reused for prompts that share their prefix (-1: no limit, 0: off)." default:"8192" env:"WAGGLE_CACHE_RAM,LLAMA_ARG_CACHE_RAM"`
	SlotSavePath     string                `group:"server" name:"slot-save-path" help:"Folder for slot state files (POST /slots/{id}?action=save|restore); empty disables the slot actions." env:"WAGGLE_SLOT_SAVE_PATH,LLAMA_ARG_SLOT_SAVE_PATH"`
	ChatTemplate     string                `group:"server" name:"chat-template" help:"Jinja template source or built-in name (chatml, llama2, llama3, qwen)." env:"WAGGLE_CHAT_TEMPLATE,LLAMA_ARG_CHAT_TEMPLATE"`
	ChatTemplateFile string                `group:"server" name:"chat-template-file" help:"File holding a Jinja chat template." type:"path" env:"WAGGLE_CHAT_TEMPLATE_FILE,LLAMA_ARG_CHAT_TEMPLATE_FILE"`
	ChatTemplateKw   string                `group:"server" name:"chat-template-kwargs" help:"JSON object of extra template variables." env:"WAGGLE_CHAT_TEMPLATE_KWARGS,LLAMA_CHAT_TEMPLATE_KWARGS"`
	ReasoningFormat  string                `group:"server" name:"reasoning-format" help:"none, deepseek or auto." default:"auto" env:"WAGGLE_REASONING_FORMAT,LLAMA_ARG_THINK"`
	ReasoningBudget  int                   `group:"server" name:"reasoning-budget" help:"Thinking tokens: -1 unlimited, 0 off." default:"-1" env:"WAGGLE_REASONING_BUDGET,LLAMA_ARG_THINK_BUDGET"`
	Metrics          bool                  `group:"server" name:"metrics" help:"Accepted; /metrics is always on." env:"WAGGLE_ENDPOINT_METRICS,LLAMA_ARG_ENDPOINT_METRICS"`
	Slots            bool                  `group:"server" name:"slots" negatable:"" default:"true" help:"Serve GET /slots (--no-slots: 501)." env:"WAGGLE_ENDPOINT_SLOTS,LLAMA_ARG_ENDPOINT_SLOTS"`
	Pprof            string                `group:"server" name:"pprof" help:"Serve net/http/pprof on this address (host:port), a listener of its own; off when empty." env:"WAGGLE_PPROF"`
	loopGuardFlags   `group:"server"`
	apiFlags         `group:"server"`
	llamaCompat
	diffusionServeFlags `group:"server"`
}

func (c *serveCmd) Run() error {
	logs, err := c.openLogs(stderr)
	if err != nil {
		return err
	}
	defer logs.Close()
	for _, n := range c.ignored() {
		fmt.Fprintf(logs.quiet, "waggle: %s\n", n)
	}
	taps, depth, err := c.prepare()
	if err != nil {
		return err
	}
	defer c.closeDraft()
	l, err := c.load(logs.quiet, depth)
	if err != nil {
		return err
	}
	defer l.Close()
	cfg, err := c.config(l)
	if err != nil {
		return err
	}
	cfg.Log = logs.loud
	cfg.Session.Taps = taps
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	if err != nil {
		srv.Shutdown(context.Background())
		return err
	}
	if c.Pprof != "" {
		addr, stop, err := servePprof(c.Pprof)
		if err != nil {
			srv.Shutdown(context.Background())
			return err
		}
		defer stop()
		fmt.Fprintf(logs.quiet, "waggle: pprof on http://%s/debug/pprof/\n", addr)
	}
	for _, w := range srv.Warnings() {
		fmt.Fprintf(logs.quiet, "waggle: %s\n", w)
	}
	fmt.Fprintf(logs.quiet, "waggle: %s\n", srv.KVReport())
	fmt.Fprintf(logs.loud, "waggle: model %q, %d slots, n_ctx %d per slot%s; listening on http://%s\n",
		srv.ModelID(), srv.NumSlots(), srv.NCtx(), c.specNote(), ln.Addr())
	return serveUntilSignal(srv, ln, logs.quiet)
}

// serveUntilSignal serves until SIGINT/SIGTERM, then stops accepting and
// lets running and queued requests finish for up to shutdownGrace; at that
// deadline the server ends the rest with proper final answers (see
// server.Shutdown), and the command exits 0.
func serveUntilSignal(srv *server.Server, ln net.Listener, log io.Writer) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case s := <-sig:
		fmt.Fprintf(log, "waggle: %v: shutting down\n", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(log, "waggle: shutdown: %v\n", err)
	}
	return nil
}

// shutdownGrace is how long running requests may take after SIGTERM.
const shutdownGrace = 10 * time.Second

// slots resolves -np and --kv-unified as llama-server does: an explicit
// -np N is kept (with --kv-unified as given); -np not given (or <= 0) is
// auto: 4 slots over a unified KV cache, except that --kv-unified or a
// speculative decoder keeps 1 slot (llama-server's main: "setting
// n_parallel = 4 and kv_unified = true (add -kvu to disable this)", done
// only when n_parallel == 1 && !kv_unified && !has_speculative). Unlike
// llama-server, whose -np default is 1, an explicit -np 1 stays 1 slot.
func (c *serveCmd) slots() (parallel int, unified bool) {
	switch {
	case c.Parallel > 0:
		return c.Parallel, c.KVUnified
	case c.KVUnified || c.specNote() != "":
		return 1, c.KVUnified
	default:
		return 0, false // server.Config: 0 is auto, 4 slots, unified
	}
}

// specNote names the speculative strategies for the ready line.
func (c *serveCmd) specNote() string {
	types, err := c.types(c.draft)
	if err != nil || len(types) == 0 {
		return ""
	}
	return fmt.Sprintf(", speculative %s", strings.Join(types, ","))
}

func (c *serveCmd) load(log io.Writer, depth int) (*engine.Loaded, error) {
	if c.Model == "" {
		fmt.Fprintln(log, "waggle: no -m given: serving the embedded DEMO network (random weights; gibberish output).")
		return engine.LoadBytes(demoModel())
	}
	if c.CtxCheckpoints < 0 {
		return nil, fmt.Errorf("--ctx-checkpoints must be >= 0")
	}
	l, err := loadWithProgress(log, c.Model)
	if err != nil {
		return nil, err
	}
	if m, ok := l.Model.(*qwen35.Model); ok {
		l.Model = m.With(qwen35.Options{CtxCheckpoints: c.CtxCheckpoints, CheckpointEvery: c.CheckpointEvery, Depth: depth})
	}
	return l, nil
}

func (c *serveCmd) config(l *engine.Loaded) (server.Config, error) {
	cfg := server.ConfigFor(l)
	tk, err := kvcache.ParseType(c.CacheTypeK)
	if err != nil {
		return cfg, fmt.Errorf("--cache-type-k: %w", err)
	}
	tv, err := kvcache.ParseType(c.CacheTypeV)
	if err != nil {
		return cfg, fmt.Errorf("--cache-type-v: %w", err)
	}
	fa, err := parseFlashAttn(c.FlashAttn)
	if err != nil {
		return cfg, err
	}
	if c.CtxSize < 0 || c.BatchSize < 1 || c.UBatchSize < 1 || c.Timeout < 1 {
		return cfg, fmt.Errorf("--batch-size, --ubatch-size and --timeout must be positive, --ctx-size >= 0")
	}
	fac := &samplerFactory{vocab: l.Tokenizer}
	cfg.NewSampler = fac.newSampler
	cfg.ModelPath, cfg.Alias, cfg.BuildInfo = c.Model, c.Alias, buildLine()
	if c.ChatTemplate, err = c.chatTemplate(); err != nil {
		return cfg, err
	}
	cfg.ChatTemplate, cfg.ReasoningFormat, cfg.ReasoningBudget = c.ChatTemplate, c.ReasoningFormat, c.ReasoningBudget
	if c.ChatTemplateKw != "" {
		if err := json.Unmarshal([]byte(c.ChatTemplateKw), &cfg.ChatTemplateKwargs); err != nil {
			return cfg, fmt.Errorf("--chat-template-kwargs: %w", err)
		}
	}
	cfg.Parallel, cfg.KVUnified = c.slots()
	cfg.CtxSize, cfg.BatchSize, cfg.UBatchSize = c.CtxSize, c.BatchSize, c.UBatchSize
	cfg.CtxBeyondTrain = c.CtxBeyondTrain
	cfg.Session.TypeK, cfg.Session.TypeV, cfg.Session.Threads = tk, tv, c.Threads
	cfg.Session.FlashAttn = fa
	if err := c.gpuFlags.apply(&cfg.Session); err != nil {
		return cfg, err
	}
	cfg.Speculator = func(sess engine.Session) (*spec.Speculator, func() error, error) {
		return c.speculator(l, sess, c.Temp) // one Speculator over the server's session: NSeq = --parallel
	}
	cfg.NPredict, cfg.CacheReuse = c.NPredict, c.CacheReuse
	cfg.CacheRAMMiB, cfg.ContextShift, cfg.SlotSavePath = c.CacheRAM, c.ContextShift, c.SlotSavePath
	cfg.APIKey, cfg.MaxQueue, cfg.Timeout = c.APIKey, c.MaxQueue, time.Duration(c.Timeout)*time.Second
	if cfg.Diffusion, err = c.diffusionServeFlags.options(); err != nil {
		return cfg, err
	}
	if c.APIKeyFile != "" {
		if cfg.APIKey, err = readAPIKeyFile(c.APIKeyFile); err != nil {
			return cfg, err
		}
	}
	if cfg.Grammar, err = c.grammarFlags.text(); err != nil {
		return cfg, err
	}
	if cfg.Grammar != "" {
		if _, err := grammar.Parse(cfg.Grammar, func(t string) []int32 { return l.Tokenizer.Encode(t, false, true) }); err != nil {
			return cfg, fmt.Errorf("--grammar: %w", err)
		}
	}
	if cfg.Sampling, err = c.samplingFlags.params(); err != nil {
		return cfg, err
	}
	if cfg.LoopGuard, err = c.loopGuardFlags.params(); err != nil {
		return cfg, err
	}
	probe := cfg.Sampling
	probe.NCtx = max(c.CtxSize, 1)
	if _, err := fac.newSampler(probe, l.Model.Info().NVocab); err != nil {
		return cfg, fmt.Errorf("sampling flags: %w", err)
	}
	c.apiFlags.apply(&cfg)
	cfg.DisableSlots = !c.Slots
	cfg.LogRequests = c.logRequests()
	return cfg, nil
}

// chatTemplate resolves --chat-template and --chat-template-file.
func (c *serveCmd) chatTemplate() (string, error) {
	if c.ChatTemplateFile == "" {
		return c.ChatTemplate, nil
	}
	if c.ChatTemplate != "" {
		return "", fmt.Errorf("give --chat-template or --chat-template-file, not both")
	}
	b, err := os.ReadFile(c.ChatTemplateFile)
	if err != nil {
		return "", fmt.Errorf("--chat-template-file: %w", err)
	}
	return string(b), nil
}
