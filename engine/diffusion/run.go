package diffusion

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// Run is one sequence's denoising: a prompt, a canvas after it split into
// blocks, and the decoder's state. A block is denoised step by step and
// then committed (it joins the prefix and never changes again); the run
// ends after its last block, or early at an end-of-generation token when
// Options.IsEOG is set.
//
// A Run does not call the model. A driver (Generate, or Batch for several
// runs in one forward) asks it what to evaluate (Prepare, Prefix, Canvas),
// runs the Denoiser, hands it the logits (Observe) and lets it apply the
// step (Finish). Everything it needs is sized at NewRun; a warm step
// allocates nothing.
type Run struct {
	cfg    Config
	info   *engine.DiffusionInfo
	nVocab int
	isEOG  func(int32) bool

	prompt  []int32
	canvas  []int32 // positions len(prompt) … of the sequence
	argmax  []int32 // uniform noise: the last step's argmax canvas
	prev    []int32 // uniform noise: the argmax canvas before it
	blocks  []span
	b       int // current block
	step    int // step within the current block
	steps   int // steps of a block
	begun   bool
	settled bool // uniform noise: the block met its stop rule
	done    bool
	eog     bool // ended at an end-of-generation token

	prefix      []int32 // prompt + committed blocks
	prefixDirty bool
	committed   int // canvas positions committed
	taken       int // committed positions already returned by TakeCommitted

	gen   mt19937 // the generator's RNG (llama-diffusion-cli's rng)
	chain *chain  // the per-position sampler (nil when Greedy)
	st    stepState
	rec   StepRecord

	stats Stats
}

// span is a block: canvas positions [lo, hi).
type span struct{ lo, hi int }

// stepState is one step's scratch, sized for the whole canvas.
type stepState struct {
	masked   []int     // canvas positions in scope (masked ones), ascending
	slot     []int     // canvas position → index in masked (-1: none)
	need     []bool    // per position of the forward's canvas
	chosen   []int32   // per masked: the candidate token
	score    []float64 // per masked: confidence (or entropy, EB)
	order    []int     // indices into masked, sorted for the transfer
	flip     []bool    // Origin: the position transfers this step
	n        int       // transfer count
	transfer []int     // block schedule: per step of the block
	u        []float32 // uniform noise: pre-drawn uniforms
	renoise  []int32   // uniform noise: pre-drawn replacement tokens
	invT     float32   // uniform noise: this step's 1/T
	prevInvT float32   // uniform noise: the last step's 1/T (0: first step)
	held     int       // uniform noise: steps the argmax canvas has held
	meanH    float64
}

// StepRecord is what the last step did, in the goldens' terms: the block,
// the step within it, the masks in scope before it, the schedule's
// transfer count, and the (absolute position, token) pairs written in the
// order written.
type StepRecord struct {
	Block, Step, Masked, Transfer int
	Wrote                         [][2]int32
}

// Stats count a run's work.
type Stats struct {
	Forwards   int   // denoising forwards
	BlockSteps []int // forwards of each committed block
	CanvasN    int   // canvas positions (answer plus rounding)
}

// Options configure a run.
type Options struct {
	// Canvas is the number of positions to generate (a uniform-noise
	// model generates whole canvases of its CanvasLength: this is rounded
	// up to them).
	Canvas int
	// IsEOG, when set, ends the run at the first end-of-generation token
	// of a committed block (the block is cut there). Without it every
	// block is denoised, as llama-diffusion-cli does.
	IsEOG func(int32) bool
}

// NewRun prepares the denoising of prompt with cfg on a model described
// by info, whose vocabulary has nVocab tokens.
func NewRun(info *engine.DiffusionInfo, nVocab int, cfg Config, prompt []int32, o Options) (*Run, error) {
	if err := cfg.Validate(info); err != nil {
		return nil, err
	}
	if len(prompt) == 0 {
		return nil, fmt.Errorf("diffusion: the prompt is empty")
	}
	if o.Canvas < 1 {
		return nil, fmt.Errorf("diffusion: canvas of %d positions", o.Canvas)
	}
	r := &Run{cfg: cfg, info: info, nVocab: nVocab, isEOG: o.IsEOG}
	if err := r.layout(len(prompt), o.Canvas); err != nil {
		return nil, err
	}
	n := r.blocks[len(r.blocks)-1].hi
	r.prompt = append([]int32(nil), prompt...)
	r.canvas = make([]int32, n)
	r.prefix = make([]int32, 0, len(prompt)+n)
	r.prefix = append(r.prefix, prompt...)
	r.prefixDirty = true
	for i := range r.canvas {
		r.canvas[i] = info.MaskToken
	}
	r.gen.seed(cfg.Seed)
	if !cfg.Greedy && !info.UniformNoise {
		seed := cfg.Seed
		if seed == RandomSeed {
			seed = randomSeed()
		}
		skip := int32(-1)
		if cfg.ExcludeMask || cfg.Algorithm == EntropyBound {
			skip = info.MaskToken
		}
		r.chain = newChain(cfg.TopK, cfg.TopP, cfg.Temp, seed, nVocab, skip)
	}
	r.allocStep(n)
	r.stats.CanvasN = n
	r.stats.BlockSteps = make([]int, 0, len(r.blocks))
	return r, nil
}

func (r *Run) allocStep(n int) {
	s := &r.st
	s.masked, s.order = make([]int, 0, n), make([]int, 0, n)
	s.slot, s.need, s.flip = make([]int, n), make([]bool, n), make([]bool, n)
	s.chosen, s.score = make([]int32, n), make([]float64, n)
	s.transfer = make([]int, r.steps)
	if r.info.UniformNoise {
		s.u, s.renoise = make([]float32, n), make([]int32, n)
		r.argmax, r.prev = make([]int32, n), make([]int32, n)
	}
	r.rec.Wrote = make([][2]int32, 0, n)
}

// layout splits the canvas into blocks and fixes the steps per block.
func (r *Run) layout(nPrompt, canvas int) error {
	c := &r.cfg
	switch {
	case r.info.UniformNoise:
		l := r.info.CanvasLength
		if l <= 0 {
			l = canvas
		}
		r.tile((canvas+l-1)/l*l, l)
		r.steps = c.Steps
	case c.Algorithm != EntropyBound && c.Eps > 0:
		r.blocks, r.steps = []span{{0, canvas}}, c.Steps
	case c.CLIBlocks && c.BlockLength > 0:
		total := nPrompt + canvas
		if total%c.BlockLength != 0 {
			return fmt.Errorf("diffusion: the sequence of %d positions is not a multiple of the block length %d", total, c.BlockLength)
		}
		num := total / c.BlockLength
		if c.Steps%num != 0 {
			return fmt.Errorf("diffusion: %d steps do not divide evenly among %d blocks", c.Steps, num)
		}
		for b := range num {
			lo := min(b*c.BlockLength, canvas)
			r.blocks = append(r.blocks, span{lo, min((b+1)*c.BlockLength, canvas)})
		}
		r.steps = c.Steps / num
	default:
		l := c.BlockLength
		if l == 0 {
			l = canvas
		}
		r.tile(canvas, l)
		r.steps = max(1, (c.Steps+len(r.blocks)-1)/len(r.blocks))
	}
	if c.Algorithm == EntropyBound && !r.info.UniformNoise {
		r.steps = max(r.steps, r.blocks[0].hi) // a masked block ends when no mask is left
	}
	return nil
}

// tile splits n positions into blocks of l.
func (r *Run) tile(n, l int) {
	for lo := 0; lo < n; lo += l {
		r.blocks = append(r.blocks, span{lo, min(lo+l, n)})
	}
}

// Done reports whether the run has finished.
func (r *Run) Done() bool { return r.done }

// StoppedAtEOG reports whether the run ended at an end-of-generation
// token (finish reason "stop").
func (r *Run) StoppedAtEOG() bool { return r.eog }

// Tokens returns the canvas (positions after the prompt) as it stands.
func (r *Run) Tokens() []int32 { return r.canvas }

// Committed returns the committed tokens (cut at an end-of-generation
// token when the run stopped there).
func (r *Run) Committed() []int32 { return r.canvas[:r.committed] }

// TakeCommitted returns the tokens committed since the last call.
func (r *Run) TakeCommitted() []int32 {
	out := r.canvas[r.taken:r.committed]
	r.taken = r.committed
	return out
}

// Record returns what the last step did; valid until the next Finish.
func (r *Run) Record() *StepRecord { return &r.rec }

// Stats returns the run's counters.
func (r *Run) Stats() *Stats { return &r.stats }

// Stop ends the run after the committed blocks (a cancelled request).
func (r *Run) Stop() { r.done = true }

// Prefix returns the tokens before the forward's canvas (the prompt and
// the committed blocks) and whether they changed since the last call.
func (r *Run) Prefix() ([]int32, bool) {
	changed := r.prefixDirty
	r.prefixDirty = false
	return r.prefix, changed
}

// Canvas returns the forward's canvas for sequence seq: the current
// block and, for a masked model, the masked blocks after it (they are
// part of the input, as in llama-diffusion-cli and the LLaDA reference),
// with the positions whose logits the step needs.
func (r *Run) Canvas(seq int) engine.Canvas {
	lo, hi := r.window()
	c := engine.Canvas{Seq: seq, Tokens: r.canvas[lo:hi], Need: r.st.need[lo:hi]}
	if r.info.UniformNoise {
		c.SelfCondInvTemp = r.st.prevInvT
	}
	return c
}

// window is the canvas range of the next forward.
func (r *Run) window() (lo, hi int) {
	blk := r.blocks[r.b]
	if r.info.UniformNoise {
		return blk.lo, blk.hi
	}
	return blk.lo, len(r.canvas)
}

func randomSeed() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}
