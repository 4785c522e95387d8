package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/chat"
	"github.com/waggle-llm/waggle/engine/diffusion"
)

// diffuseCmd is `waggle diffuse`: llama-diffusion-cli's command line with
// its defaults. The prompt goes through the model's chat template (ChatML
// when it has none) as the CLI does; the sequence is -ub positions long
// (prompt plus canvas); the final text goes to stdout, progress and
// timings to stderr. The same command gives the same text as
// llama-diffusion-cli (seeded runs included: the generator and sampler
// streams are the CLI's).
type diffuseCmd struct {
	Model        string  `short:"m" required:"" help:"GGUF diffusion model (dream, llada, llada-moe)." type:"path" env:"WAGGLE_MODEL,LLAMA_ARG_MODEL"`
	Prompt       string  `short:"p" help:"Prompt text; the model's chat template is applied." required:""`
	SystemPrompt string  `name:"system-prompt" help:"System message before the prompt (-sys)."`
	UBatch       int     `name:"ubatch-size" help:"Sequence length: prompt plus canvas (llama-diffusion-cli's max_length, -ub)." default:"512"`
	Batch        int     `short:"b" name:"batch-size" help:"Logical batch; must hold the sequence." default:"2048"`
	CtxSize      int     `short:"c" name:"ctx-size" help:"Context size (0: the model's); the prompt must be shorter." default:"0"`
	Threads      int     `short:"t" help:"Worker threads (0: one per physical core)." default:"0" env:"WAGGLE_THREADS,LLAMA_ARG_THREADS"`
	FlashAttn    string  `name:"flash-attn" help:"on, off or auto (= off)." default:"auto"`
	Steps        int     `name:"diffusion-steps" help:"Denoising steps." default:"128"`
	Algorithm    string  `name:"diffusion-algorithm" help:"0 origin, 1 entropy, 2 margin, 3 random, 4 confidence (llama-diffusion-cli's numbers), 5 entropy-bound; or a name." default:"4"`
	Eps          float32 `name:"diffusion-eps" help:"Timestep schedule from 1 down to eps (Dream style); exclusive with --diffusion-block-length." default:"0"`
	BlockLength  int     `name:"diffusion-block-length" help:"Block schedule with blocks of N (LLaDA style); exclusive with --diffusion-eps." default:"0"`
	AlgTemp      float32 `name:"diffusion-alg-temp" help:"Accepted; llama-diffusion-cli parses it but never uses it." default:"0"`
	CFGScale     float32 `name:"diffusion-cfg-scale" help:"Accepted; llama-diffusion-cli parses it but never uses it." default:"0"`
	Gumbel       float32 `name:"diffusion-add-gumbel-noise" help:"Non-zero: llama-diffusion-cli's Gumbel option (it only advances the generator's stream; see docs/diffusion.md)." default:"0"`
	Visual       bool    `name:"diffusion-visual" help:"Redraw the canvas on stderr after every step."`
	TopK         int     `name:"top-k" help:"Top-k (0: off)." default:"40"`
	TopP         float32 `name:"top-p" help:"Top-p (1: off)." default:"0.95"`
	Temp         float32 `name:"temp" help:"Temperature; 0 adds no temperature stage (sampling at T = 1; --top-k 1 is greedy)." default:"0.8"`
	Seed         uint32  `short:"s" name:"seed" help:"RNG seed (4294967295: random)." default:"4294967295"`

	Greedy       bool    `name:"diffusion-greedy" help:"Waggle: argmax candidates ranked by the reference decoders' confidences (deterministic; the LLaDA and Dream references at T = 0)."`
	EntropyBound float32 `name:"diffusion-entropy-bound" help:"Waggle: the bound of --diffusion-algorithm 5 (negative: the GGUF's diffusion.eb_entropy_bound, else 0.1)." default:"-1"`
	CachePrefix  bool    `name:"diffusion-cache-prefix" help:"Waggle: compute the prefix keys and values once per block and reuse them in its steps (approximate for Dream and LLaDA, whose prompt sees the canvas)."`
}

func (c *diffuseCmd) Run() error {
	l, err := engine.LoadFile(c.Model)
	if err != nil {
		return err
	}
	defer l.Close()
	dm, ok := l.Model.(engine.DiffusionModel)
	if !ok {
		return fmt.Errorf("unsupported model for diffusion: %s is not a diffusion architecture", l.Model.Info().Arch)
	}
	prompt, err := c.promptTokens(l)
	if err != nil {
		return err
	}
	nCtx := c.CtxSize
	if nCtx == 0 {
		nCtx = dm.Info().NCtxTrain
	}
	switch {
	case c.CtxSize < 0 || c.UBatch < 1 || c.Batch < 1:
		return fmt.Errorf("--ctx-size must be >= 0, --ubatch-size and --batch-size positive")
	case c.Batch < c.UBatch:
		return fmt.Errorf("--batch-size %d is smaller than the sequence (--ubatch-size %d), which must be one batch", c.Batch, c.UBatch)
	case len(prompt) >= nCtx:
		return fmt.Errorf("input too long (%d tokens), max context is %d", len(prompt), nCtx)
	case len(prompt) >= c.UBatch:
		return fmt.Errorf("the prompt (%d tokens) leaves no canvas in a sequence of %d (--ubatch-size)", len(prompt), c.UBatch)
	}
	cfg, err := c.config(dm.Diffusion())
	if err != nil {
		return err
	}
	r, err := diffusion.NewRun(dm.Diffusion(), dm.Info().NVocab, cfg, prompt, diffusion.Options{Canvas: c.UBatch - len(prompt)})
	if err != nil {
		return err
	}
	fa, err := parseFlashAttn(c.FlashAttn)
	if err != nil {
		return err
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{NCtx: len(prompt) + len(r.Tokens()), Threads: c.Threads, FlashAttn: fa, CachePrefix: c.CachePrefix})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := diffusion.Generate(d, r, 0, c.progress(l, len(prompt), cfg.Steps)); err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintln(stdout, l.Tokenizer.Decode(r.Tokens(), false, false))
	st := r.Stats()
	ms := float64(elapsed.Microseconds()) / 1000
	fmt.Fprintf(stderr, "\ntotal time: %.2fms, time per step: %.2fms, steps: %d, steps/s: %.2f, canvas tokens/s: %.2f\n",
		ms, ms/float64(max(st.Forwards, 1)), st.Forwards, float64(st.Forwards)/elapsed.Seconds(), float64(len(r.Tokens()))/elapsed.Seconds())
	return nil
}

// promptTokens renders the prompt (and system prompt) through the model's
// chat template, or ChatML, with the generation prompt, and tokenizes it
// with special tokens added and parsed (common_tokenize(…, true, true)).
func (c *diffuseCmd) promptTokens(l *engine.Loaded) ([]int32, error) {
	src, _ := l.File.String("tokenizer.chat_template")
	if src == "" {
		src = chat.DefaultName
	}
	tmpl, err := chat.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	var msgs []chat.Message
	if c.SystemPrompt != "" {
		msgs = append(msgs, chat.Message{Role: "system", Content: c.SystemPrompt})
	}
	msgs = append(msgs, chat.Message{Role: "user", Content: c.Prompt})
	tok := l.Tokenizer
	bos := tok.Piece(tok.BOS(), true)
	text, err := tmpl.Render(chat.Inputs{Messages: msgs, AddGenerationPrompt: true, BOS: bos, EOS: tok.Piece(tok.EOS(), true)})
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	if tok.AddBOS() && bos != "" {
		text = strings.TrimPrefix(text, bos) // the tokenizer adds it
	}
	ids := tok.Encode(text, true, true)
	if len(ids) == 0 {
		return nil, fmt.Errorf("the prompt tokenized to nothing")
	}
	return ids, nil
}

// config maps the flags onto the decoder's settings, with
// llama-diffusion-cli's block layout.
func (c *diffuseCmd) config(info *engine.DiffusionInfo) (diffusion.Config, error) {
	cfg := diffusion.Defaults(info)
	alg, err := diffusion.ParseAlgorithm(c.Algorithm)
	if err != nil {
		return cfg, err
	}
	cfg.Algorithm, cfg.Steps, cfg.Eps, cfg.BlockLength, cfg.CLIBlocks = alg, c.Steps, c.Eps, c.BlockLength, true
	cfg.TopK, cfg.TopP, cfg.Temp, cfg.Seed, cfg.Greedy = c.TopK, c.TopP, c.Temp, c.Seed, c.Greedy
	cfg.AddGumbelNoise = c.Gumbel != 0
	if c.EntropyBound >= 0 {
		cfg.Bound = c.EntropyBound
	}
	if info.UniformNoise {
		cfg.Algorithm, cfg.Steps = diffusion.EntropyBound, c.Steps
	}
	return cfg, cfg.Validate(info)
}

// progress draws llama-diffusion-cli's progress bar on stderr after each
// step, or with --diffusion-visual the canvas (a mask shows as a space).
func (c *diffuseCmd) progress(l *engine.Loaded, nPrompt, total int) func(*diffusion.Run) {
	return func(r *diffusion.Run) {
		step := r.Stats().Forwards
		bar := min(step*50/max(total, 1), 50)
		line := fmt.Sprintf("\rdiffusion step: %d/%d [%s%s] %d%%", step, total, strings.Repeat("=", bar), strings.Repeat(" ", 50-bar), step*100/max(total, 1))
		if !c.Visual {
			fmt.Fprint(stderr, line)
			return
		}
		var sb strings.Builder
		sb.WriteString("\033[2J\033[H" + line[1:] + "\n ")
		mask := l.Model.(engine.DiffusionModel).Diffusion().MaskToken
		for _, t := range r.Tokens() {
			if t == mask {
				sb.WriteByte(' ')
			} else {
				sb.WriteString(l.Tokenizer.Piece(t, false))
			}
		}
		fmt.Fprintln(stderr, sb.String())
	}
}
