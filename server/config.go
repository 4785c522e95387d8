package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// Config is everything a Server needs. Zero values take llama-server's
// defaults where one exists.
type Config struct {
	Model      engine.Model
	Tokenizer  Tokenizer
	NewSampler SamplerFactory
	ModelPath  string // shown by /v1/models and /props
	Alias      string // model id reported instead of the path
	// BuildInfo is /props' build_info: the binary's version and commit
	// ("waggle" when empty), so a report says what served it.
	BuildInfo string

	// ChatTemplate is a Jinja source or a built-in name (--chat-template);
	// empty means ModelChatTemplate, then the chatml built-in.
	ChatTemplate       string
	ModelChatTemplate  string         // tokenizer.chat_template from the GGUF
	ChatTemplateKwargs map[string]any // --chat-template-kwargs defaults
	ReasoningFormat    string         // none, deepseek, auto ("")
	ReasoningBudget    int            // -1 unlimited, 0 no thinking, N tokens

	// Parallel is the number of slots. 0 is llama-server's auto (-np not
	// given): 4 slots over a unified KV pool.
	Parallel int
	// CtxSize is llama-server's -c: the TOTAL context in positions (0: the
	// model's training context, at most 4096). Without KVUnified each slot
	// gets CtxSize/Parallel positions of its own (llama.cpp's n_ctx_seq,
	// the remainder unused); with it all slots share one pool of CtxSize
	// cells and each may grow to CtxSize while the pool has room.
	CtxSize int
	// CtxBeyondTrain lets a slot's context exceed the model's training
	// context; by default it is capped there, as llama-server does.
	CtxBeyondTrain bool
	KVUnified      bool                  // --kv-unified (set by Parallel 0)
	BatchSize      int                   // -b: tokens per step (default 2048)
	UBatchSize     int                   // -ub: tokens per Decode (default 512)
	Session        engine.SessionOptions // KV types, threads; NSeq/NCtx/NBatch are set here
	NPredict       int                   // default max tokens (-1: until the context is full)
	CacheReuse     int                   // --cache-reuse (prefix reuse is always on with cache_prompt)
	Sampling       SamplingParams        // defaults for requests (DefaultSampling if zero)
	Grammar        string                // --grammar: GBNF for requests that set no grammar, schema or tools
	LoopGuard      LoopGuardParams       // reasoning loop guard defaults (DefaultLoopGuard if zero)
	// Diffusion holds the request defaults of a diffusion model.
	Diffusion DiffusionOptions

	// Speculator, when set, builds the speculative decoder over the
	// server's session (NSeq = Parallel); cmd/waggle wires --spec-type and
	// friends through it. A nil Speculator (or Chain) means no speculation.
	// closeFn runs at Shutdown.
	Speculator func(sess engine.Session) (sp *spec.Speculator, closeFn func() error, err error)

	// SlotSavePath is llama-server's --slot-save-path: the folder that
	// POST /slots/{id}?action=save|restore reads and writes state files
	// in. Empty disables the slot actions (501, as llama-server).
	SlotSavePath string
	// ContextShift is --context-shift: a generating slot that reaches its
	// context drops the oldest half of its tokens after n_keep (plus BOS)
	// and goes on, instead of ending with finish_reason "length". Off by
	// default, as in current llama-server.
	ContextShift bool
	// CacheRAMMiB is --cache-ram: MiB of host RAM for the prompt states of
	// idle slots (see hostcache.go); -1 no limit. Unlike llama-server,
	// whose default is 8192, the zero value here is off, so a Config built
	// in code opts in; cmd/waggle's flag carries llama-server's default.
	CacheRAMMiB int
	// ModelHash identifies the weights in state files, so a file saved
	// with another model is refused. ConfigFor fills it (ModelIdentity);
	// the zero value falls back to a hash of the model's Info.
	ModelHash [32]byte

	APIConfig // embeddings, infill, the web page (api.go)

	APIKey       string
	Timeout      time.Duration // per request (default 600 s)
	MaxQueue     int           // requests waiting for a slot (default 64)
	MaxBodyBytes int           // default 4 MiB
	Log          io.Writer     // panics and, with LogRequests, one line per request (nil: none)
	LogRequests  bool
	// DisableSlots turns GET /slots off (llama-server's --no-slots: 501).
	DisableSlots bool
}

// ConfigFor fills the model, tokenizer, GGUF chat template and pooling
// type from a loaded model.
func ConfigFor(l *engine.Loaded) Config {
	c := Config{Model: l.Model, Tokenizer: l.Tokenizer, ModelHash: ModelIdentity(l), APIConfig: apiConfigFor(l)}
	if l.File != nil {
		c.ModelChatTemplate, _ = l.File.String("tokenizer.chat_template")
	}
	return c
}

func (c *Config) fill() error {
	if c.Model == nil || c.Tokenizer == nil || c.NewSampler == nil {
		return errors.New("server: Config needs Model, Tokenizer and NewSampler")
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.Parallel <= 0 {
		c.Parallel, c.KVUnified = 4, true // llama-server: n_parallel auto → 4, kv_unified
	}
	def(&c.BatchSize, 2048)
	def(&c.UBatchSize, 512)
	def(&c.MaxQueue, 64)
	def(&c.MaxBodyBytes, 4<<20)
	if c.NPredict == 0 {
		c.NPredict = -1
	}
	if c.Timeout <= 0 {
		c.Timeout = 600 * time.Second
	}
	if reflect.ValueOf(c.Sampling).IsZero() {
		c.Sampling = DefaultSampling()
	}
	if c.LoopGuard == (LoopGuardParams{}) {
		c.LoopGuard = DefaultLoopGuard()
	}
	if _, err := c.LoopGuard.Validate(); err != nil {
		return fmt.Errorf("server: --reasoning-loop-*: %w", err)
	}
	if c.CacheRAMMiB < -1 {
		return errors.New("server: --cache-ram must be -1 (no limit), 0 (off) or a size in MiB")
	}
	if c.ModelHash == ([32]byte{}) {
		c.ModelHash = sha256.Sum256(fmt.Appendf(nil, "waggle model info %+v", *c.Model.Info()))
	}
	if c.ReasoningBudget < -1 {
		return errors.New("server: --reasoning-budget must be -1, 0 or a positive token count")
	}
	return nil
}

// sessionOptions derives the session's shape from -c, -np and
// --kv-unified as llama.cpp does (llama_context: n_ctx_seq = n_ctx when
// unified, else n_ctx / n_seq_max; the server's slots hold n_ctx_seq each).
// llama.cpp also pads n_ctx up to a multiple of 256; Waggle does not.
func (c *Config) sessionOptions() (engine.SessionOptions, error) {
	o := c.Session
	total := c.CtxSize
	if total <= 0 {
		total = min(c.Model.Info().NCtxTrain, defaultCtx)
		if total <= 0 {
			total = defaultCtx
		}
	}
	o.NSeq, o.NBatch, o.KVUnified = c.Parallel, c.UBatchSize, c.KVUnified
	o.NCtx = total
	if !c.KVUnified {
		o.NCtx = total / c.Parallel
		if o.NCtx == 0 {
			return o, fmt.Errorf("server: --ctx-size %d is less than one position per slot for %d slots", total, c.Parallel)
		}
		o.NCtx = min(o.NCtx, c.slotCtxCap()) // no memory for positions no slot may use
	}
	return o, nil
}

// slotCtxCap is the most context one slot may use: the model's training
// context unless CtxBeyondTrain (llama-server caps n_ctx_slot there too).
func (c *Config) slotCtxCap() int {
	if train := c.Model.Info().NCtxTrain; train > 0 && !c.CtxBeyondTrain {
		return train
	}
	return math.MaxInt
}

// defaultCtx caps the context taken from the model when -c is 0.
const defaultCtx = 4096

// ModelIdentity is the model hash written into state files: SHA-256 over
// the architecture, every tensor's name, type, shape and offset, and the
// first and last 64 bytes of every tensor's data. It is cheap (a few pages
// per tensor of the mapping, milliseconds even for large models) and
// stable across runs and machines; the tensor table plus data samples
// tell apart any two models a user is likely to have (another size,
// quantization, or fine-tune changes shapes, types or the sampled bytes).
// It is not a full-content hash: two files that differ only in the middle
// of tensors collide. Tokenizer metadata is not hashed; it travels with
// the weights. Without a GGUF file it hashes the model's Info.
func ModelIdentity(l *engine.Loaded) [32]byte {
	if l == nil || l.File == nil {
		if l != nil && l.Model != nil {
			return sha256.Sum256(fmt.Appendf(nil, "waggle model info %+v", *l.Model.Info()))
		}
		return [32]byte{}
	}
	h := sha256.New()
	fmt.Fprintf(h, "waggle model identity v1\x00%s\x00%d\x00", l.File.Architecture(), len(l.File.Tensors))
	for i := range l.File.Tensors {
		ti := &l.File.Tensors[i]
		fmt.Fprintf(h, "%s\x00%d\x00%v\x00%d\x00%d\x00", ti.Name, ti.Type, ti.Dims, ti.Offset, ti.Size)
		d := l.File.TensorData(ti)
		h.Write(d[:min(64, len(d))])
		h.Write(d[max(0, len(d)-64):])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
