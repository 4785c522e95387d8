package engine

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/gguf"
)

// DiffusionModel is a network that generates by denoising: every forward
// sees the whole canvas (the positions being generated) at once, with
// bidirectional attention, and predicts a token for each canvas position.
// A decoder (engine/diffusion) turns those predictions into text; it talks
// to the network only through this seam, so a new backbone (a masked
// diffusion LM such as Dream or LLaDA, or a block-diffusion one with a
// cached causal prefix such as DiffusionGemma) plugs in without touching
// the decoder or the server.
//
// NewSession of a DiffusionModel returns ErrDiffusionModel: such a model
// has no token-by-token decode.
type DiffusionModel interface {
	Model
	// Diffusion describes how the model denoises.
	Diffusion() *DiffusionInfo
	// NewDenoiser sizes the buffers of up to o.NSeq canvases.
	NewDenoiser(o DenoiserOptions) (Denoiser, error)
}

// ErrDiffusionModel is returned by NewSession of a diffusion model.
var ErrDiffusionModel = fmt.Errorf("engine: a diffusion model has no autoregressive session; use its Denoiser")

// DiffusionInfo is what a decoder needs to know about a diffusion model.
type DiffusionInfo struct {
	// MaskToken is the token a masked-diffusion model reads as "not yet
	// generated" (tokenizer.ggml.mask_token_id); -1 when the vocabulary
	// has none.
	MaskToken int32
	// UniformNoise says the model was trained to restore uniformly random
	// tokens rather than masks (DiffusionGemma): a decoder starts from a
	// random canvas and renoises rejected positions instead of masking
	// them.
	UniformNoise bool
	// ShiftLogits says the prediction for position p comes from the
	// logits row of position p-1 (Dream keeps its autoregressive
	// parent's alignment). The Denoiser applies the shift; decoders
	// need it only to report it.
	ShiftLogits bool
	// PrefixSeesCanvas says the prefix attends to the canvas (Dream,
	// LLaDA: one bidirectional forward over everything). Caching the
	// prefix keys and values across denoising steps is then an
	// approximation (their rows are those of the canvas of the step that
	// computed them); without it, caching is exact.
	PrefixSeesCanvas bool
	// CanvasLength is the canvas size the model was trained with (0: any).
	CanvasLength int
	// Keys holds the GGUF's diffusion.* settings.
	Keys DiffusionKeys
}

// DiffusionKeys are the decoder settings a GGUF may carry under
// "diffusion.": the logit shift llama.cpp reads (shift_logits), the canvas
// length and the entropy-bounded sampler's settings written by the
// DiffusionGemma converter (eb_*). A nil field is absent from the file;
// decoders fall back to their own defaults for it.
type DiffusionKeys struct {
	ShiftLogits  *bool
	CanvasLength int // 0: absent

	EBMaxSteps     *int     // eb_max_steps: denoising steps per canvas
	EBTMin, EBTMax *float32 // eb_t_min, eb_t_max: temperature schedule ends
	EBEntropyBound *float32 // eb_entropy_bound: acceptance bound
	EBStability    *int     // eb_stability_threshold: steps the argmax must hold
	EBConfidence   *float32 // eb_confidence_threshold: mean-entropy stop
}

// ReadDiffusionKeys reads the diffusion.* keys of f, rejecting values of
// the wrong type or out of range (a corrupt file must not configure a
// decoder into an endless or absurd loop).
func ReadDiffusionKeys(f *gguf.File) (DiffusionKeys, error) {
	var k DiffusionKeys
	if v, ok := f.Get("diffusion.shift_logits"); ok {
		b, isBool := v.AsBool()
		if !isBool { // llama.cpp reads the key as text: "true" or "false"
			s, isStr := v.AsString()
			if !isStr || (s != "true" && s != "false") {
				return k, fmt.Errorf("metadata %q is not a boolean", "diffusion.shift_logits")
			}
			b = s == "true"
		}
		k.ShiftLogits = &b
	}
	r := keyReader{f: f}
	if n := r.uint("diffusion.canvas_length", 1<<16); n != nil {
		k.CanvasLength = *n
	}
	k.EBMaxSteps = r.uint("diffusion.eb_max_steps", 1<<16)
	k.EBStability = r.uint("diffusion.eb_stability_threshold", 1<<16)
	k.EBTMin = r.float("diffusion.eb_t_min", 1e-6, 1e6)
	k.EBTMax = r.float("diffusion.eb_t_max", 1e-6, 1e6)
	k.EBEntropyBound = r.float("diffusion.eb_entropy_bound", 0, 1e9)
	k.EBConfidence = r.float("diffusion.eb_confidence_threshold", 0, 1e9)
	return k, r.err
}

// keyReader reads optional, range-checked keys, keeping the first error.
type keyReader struct {
	f   *gguf.File
	err error
}

func (r *keyReader) uint(name string, hi int) *int {
	v, ok := r.f.Get(name)
	if !ok || r.err != nil {
		return nil
	}
	u, isUint := v.AsUint()
	if !isUint || u > uint64(hi) {
		r.err = fmt.Errorf("metadata %q must be an integer in [0, %d]", name, hi)
		return nil
	}
	n := int(u)
	return &n
}

func (r *keyReader) float(name string, lo, hi float64) *float32 {
	v, ok := r.f.Get(name)
	if !ok || r.err != nil {
		return nil
	}
	x, isNum := v.AsFloat()
	if !isNum || math.IsNaN(x) || x < lo || x > hi {
		r.err = fmt.Errorf("metadata %q must be a number in [%g, %g]", name, lo, hi)
		return nil
	}
	f := float32(x)
	return &f
}

// DenoiserOptions sizes a Denoiser.
type DenoiserOptions struct {
	// NSeq is the number of canvases that may be denoised together in one
	// forward (default 1).
	NSeq int
	// NCtx is the positions of one sequence: prefix plus canvas (default:
	// the model's training context, at most 4096).
	NCtx int
	// Threads is the forward pass's worker threads (0: the process
	// default), as in SessionOptions.
	Threads int
	// FlashAttn selects the online-softmax attention (as SessionOptions).
	FlashAttn bool
	// CachePrefix keeps each sequence's prefix keys and values from the
	// first Denoise after SetPrefix and reuses them in later steps, so a
	// step forwards only the canvas. Exact for a model whose prefix does
	// not see the canvas; an approximation otherwise (see
	// DiffusionInfo.PrefixSeesCanvas).
	CachePrefix bool
}

// Canvas is one sequence's canvas for a Denoise call.
type Canvas struct {
	Seq    int     // the sequence whose prefix precedes the canvas
	Tokens []int32 // the canvas, at positions len(prefix) onwards
	// Need, when not nil, says which canvas positions the caller wants
	// logits for (len(Tokens) entries); the others are skipped in the
	// output head. nil means all.
	Need []bool
	// SelfCondInvTemp asks a model with self-conditioning (DiffusionGemma)
	// to condition this step on the logits it gave this sequence's canvas
	// in the previous Denoise, softmaxed at this inverse temperature; 0
	// means no self-conditioning (the first step of a canvas). Models
	// without it ignore the field.
	SelfCondInvTemp float32
}

// Denoiser runs a diffusion model's forwards over [prefix | canvas] for a
// fixed set of sequences. It owns its buffers; a warm Denoise allocates
// nothing. Its methods are not safe for concurrent use.
type Denoiser interface {
	// SetPrefix fixes the tokens before the canvas of sequence seq (the
	// prompt and any committed blocks), at positions 0..len-1. It drops
	// any cached prefix state of seq. The prefix must not be empty.
	SetPrefix(seq int, tokens []int32) error
	// Denoise runs one forward for every canvas of cs (in one batch) and
	// calls visit(k, i, logits) with the logits row that predicts position
	// i of cs[k].Tokens, for every wanted i in ascending order, canvases
	// in order. logits is valid only during the call. The rows are
	// computed and visited in chunks, so the logits of a whole canvas are
	// never held at once.
	Denoise(cs []Canvas, visit func(k, i int, logits []float32)) error
	// Release forgets sequence seq (its prefix and cached state).
	Release(seq int)
	// Options returns the effective options.
	Options() DenoiserOptions
}
