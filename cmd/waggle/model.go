package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/kvcache"
)

// modelFlags are shared by every command that evaluates a model.
type modelFlags struct {
	Model      string `short:"m" help:"GGUF model file (default: the embedded demo network)." type:"path" env:"WAGGLE_MODEL,LLAMA_ARG_MODEL"`
	Threads    int    `short:"t" help:"Worker threads (0: one per physical core)." default:"0" env:"WAGGLE_THREADS,LLAMA_ARG_THREADS"`
	CtxSize    int    `short:"c" name:"ctx-size" help:"Context size in tokens (0: the model's, at most 4096)." default:"0" env:"WAGGLE_CTX_SIZE,LLAMA_ARG_CTX_SIZE"`
	BatchSize  int    `short:"b" name:"batch-size" help:"Tokens evaluated per forward pass during prompt processing." default:"512"`
	CacheTypeK string `name:"cache-type-k" aliases:"ctk" help:"KV cache type for keys: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl, turbo2, turbo3, turbo4, turbo2_tcq, turbo3_tcq." default:"f16"`
	CacheTypeV string `name:"cache-type-v" aliases:"ctv" help:"KV cache type for values (same types as keys)." default:"f16"`
	gpuFlags
	FlashAttn string `name:"flash-attn" help:"on, off or auto (= off). on: online-softmax (flash) attention over 64-position chunks of the KV cache; off: the exact two-pass attention, llama.cpp's -fa off bit for bit on f16/f32 caches." default:"auto" env:"WAGGLE_FLASH_ATTN,LLAMA_ARG_FLASH_ATTN"`
}

// open loads the model (or the demo network) and creates one session.
func (f *modelFlags) open() (*engine.Loaded, engine.Session, error) { return f.openWith(nil, 0) }

// openWith is open with a session capturing taps (a DFlash drafter's) and,
// for a hybrid model, a rollback depth for tree verification (0: default).
func (f *modelFlags) openWith(taps []engine.Tap, depth int) (*engine.Loaded, engine.Session, error) {
	if err := f.apply(&engine.SessionOptions{}); err != nil {
		return nil, nil, err
	}
	f.warn()
	l, err := f.load()
	if err != nil {
		return nil, nil, err
	}
	if m, ok := l.Model.(*qwen35.Model); ok && depth > 0 {
		l.Model = m.With(qwen35.Options{Depth: depth})
	}
	tk, err := kvcache.ParseType(f.CacheTypeK)
	if err != nil {
		l.Close()
		return nil, nil, fmt.Errorf("--cache-type-k: %w", err)
	}
	tv, err := kvcache.ParseType(f.CacheTypeV)
	if err != nil {
		l.Close()
		return nil, nil, fmt.Errorf("--cache-type-v: %w", err)
	}
	fa, err := parseFlashAttn(f.FlashAttn)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	if f.CtxSize < 0 || f.BatchSize <= 0 {
		l.Close()
		return nil, nil, fmt.Errorf("--ctx-size must be >= 0 and --batch-size > 0")
	}
	o := engine.SessionOptions{NCtx: f.CtxSize, NBatch: f.BatchSize, TypeK: tk, TypeV: tv, Threads: f.Threads, FlashAttn: fa, Taps: taps}
	f.apply(&o) // checked before loading
	s, err := l.Model.NewSession(o)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, s, nil
}

func (f *modelFlags) load() (*engine.Loaded, error) {
	if f.Model == "" {
		fmt.Fprintln(stderr, "waggle: no -m given: using the embedded DEMO network (random weights, tiny vocabulary; its output is gibberish). Pass -m model.gguf for a real model.")
		return engine.LoadBytes(demoModel())
	}
	return engine.LoadFile(f.Model)
}

// parseTokenList reads "1,2,3" (spaces allowed) into token ids.
func parseTokenList(s string) ([]int32, error) {
	var ids []int32
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.ParseInt(field, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad token id %q: %w", field, err)
		}
		ids = append(ids, int32(v))
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no token ids in %q", s)
	}
	return ids, nil
}
