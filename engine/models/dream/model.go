// Package dream implements the masked-diffusion language models llama.cpp
// runs through llama-diffusion-cli: dream (Dream: the Qwen2 layout with
// q/k/v biases and NEOX rotary, predictions shifted by one position),
// llada (LLaDA: the LLaMA layout with adjacent-pair rotary) and llada-moe
// (LLaDA-MoE: per-head q/k RMSNorm before NEOX rotary and a softmax-routed
// mixture of SwiGLU experts whose top-k weights are not renormalised).
//
// They are ordinary decoder-only transformers run with bidirectional
// attention: one forward over [prefix | canvas] lets every position,
// prefix included, attend to every other, and gives a prediction for every
// canvas position. The models implement engine.DiffusionModel; the
// denoising loop is engine/diffusion's. The forward uses the building
// blocks of the causal models (engine.Matrix products with activations
// quantized as llama.cpp does, kernels for norms and rotary, the exact
// attention over an f32 cache, package moe's experts), so it computes what
// llama.cpp's encode path computes.
package dream

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

func init() {
	engine.Register("dream", func(f *gguf.File) (engine.Model, error) { return load(f, variantDream) })
	engine.Register("llada", func(f *gguf.File) (engine.Model, error) { return load(f, variantLLaDA) })
	engine.Register("llada-moe", func(f *gguf.File) (engine.Model, error) { return load(f, variantLLaDAMoE) })
}

// variant holds what distinguishes the three architectures.
type variant struct {
	arch   string
	neox   bool // NEOX rotary (pairs i, i+n/2) instead of adjacent pairs
	qkNorm bool // per-head RMSNorm of q and k before rotary
	moe    bool // routed experts instead of a dense SwiGLU
}

var (
	variantDream    = variant{arch: "dream", neox: true}
	variantLLaDA    = variant{arch: "llada"}
	variantLLaDAMoE = variant{arch: "llada-moe", neox: true, qkNorm: true, moe: true}
)

// hparams are the hyper-parameters read from the GGUF metadata.
type hparams struct {
	nVocab, nCtxTrain, nEmbd, nLayer, nHead, nHeadKV, headDim, nFF int
	eps                                                            float32
	rope                                                           kernels.RopeParams
	moe                                                            moe.Shape
}

// layer holds one transformer block's weights.
type layer struct {
	attnNorm, ffnNorm []float32
	wq, wk, wv, wo    *engine.Matrix
	bq, bk, bv        []float32 // projection biases (nil when absent)
	qNorm, kNorm      []float32 // llada-moe per-head norms (len headDim)
	gate, up, down    *engine.Matrix
	experts           *moe.Weights
}

// Model is a loaded dream, llada or llada-moe network.
type Model struct {
	v          variant
	hp         hparams
	info       engine.Info
	diff       engine.DiffusionInfo
	tokEmbd    *engine.Matrix
	outputNorm []float32
	output     *engine.Matrix
	layers     []layer
}

// Info describes the model.
func (m *Model) Info() *engine.Info { return &m.info }

// Diffusion describes how the model denoises: masked diffusion, the
// vocabulary's mask token, the logit shift (diffusion.shift_logits; true
// when the key is absent, as llama-diffusion-cli assumes), and a prefix
// that attends to the canvas.
func (m *Model) Diffusion() *engine.DiffusionInfo { return &m.diff }

// NewSession refuses: these models have no causal decode.
func (m *Model) NewSession(engine.SessionOptions) (engine.Session, error) {
	return nil, fmt.Errorf("%s: %w", m.v.arch, engine.ErrDiffusionModel)
}

func load(f *gguf.File, v variant) (*Model, error) {
	hp, err := readHparams(f, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.arch, err)
	}
	m := &Model{v: v, hp: hp}
	if err := m.loadWeights(engine.Weights{F: f}); err != nil {
		return nil, fmt.Errorf("%s: %w", v.arch, err)
	}
	if m.diff, err = readDiffusion(f, m.hp.nVocab); err != nil {
		return nil, fmt.Errorf("%s: %w", v.arch, err)
	}
	hp = m.hp
	m.info = engine.Info{
		Arch: v.arch, NVocab: hp.nVocab, NCtxTrain: hp.nCtxTrain, NEmbd: hp.nEmbd,
		NLayer: hp.nLayer, NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, NFF: hp.nFF,
	}
	m.info.Name, _ = f.String("general.name")
	m.info.NParams, m.info.WeightSize = engine.TensorTotals(f)
	m.info.FileType = engine.FileTypeSummary(f)
	return m, nil
}

// readDiffusion reads the mask token and the diffusion.* keys.
func readDiffusion(f *gguf.File, nVocab int) (engine.DiffusionInfo, error) {
	d := engine.DiffusionInfo{MaskToken: -1, PrefixSeesCanvas: true, ShiftLogits: true}
	if v, ok := f.Get("tokenizer.ggml.mask_token_id"); ok {
		id, isUint := v.AsUint()
		if !isUint || id >= uint64(nVocab) {
			return d, fmt.Errorf("tokenizer.ggml.mask_token_id must be a token id below %d", nVocab)
		}
		d.MaskToken = int32(id)
	}
	var err error
	if d.Keys, err = engine.ReadDiffusionKeys(f); err != nil {
		return d, err
	}
	if d.Keys.ShiftLogits != nil {
		d.ShiftLogits = *d.Keys.ShiftLogits
	}
	d.CanvasLength = d.Keys.CanvasLength
	return d, nil
}

func readHparams(f *gguf.File, v variant) (hparams, error) {
	md := engine.Meta{F: f, Arch: v.arch}
	var hp hparams
	var err error
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&hp.nEmbd, "embedding_length"}, {&hp.nLayer, "block_count"}, {&hp.nHead, "attention.head_count"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return hp, err
		}
	}
	if hp.nFF, err = md.Int("feed_forward_length", 0); err != nil {
		return hp, err
	}
	if !v.moe && hp.nFF == 0 {
		return hp, fmt.Errorf("missing metadata %q", md.Arch+".feed_forward_length")
	}
	if v.moe {
		if hp.moe, err = readMoE(md, hp); err != nil {
			return hp, err
		}
	}
	if hp.nCtxTrain, err = md.Int("context_length", 2048); err != nil {
		return hp, err
	}
	if hp.nHeadKV, err = md.Int("attention.head_count_kv", hp.nHead); err != nil {
		return hp, err
	}
	if hp.headDim, err = md.Int("attention.key_length", hp.nEmbd/hp.nHead); err != nil {
		return hp, err
	}
	if vl, err := md.Int("attention.value_length", hp.headDim); err != nil || vl != hp.headDim {
		return hp, fmt.Errorf("attention.value_length differs from key_length %d (unsupported)", hp.headDim)
	}
	if hp.nHeadKV == 0 || hp.nHead%hp.nHeadKV != 0 || hp.headDim == 0 || hp.headDim%2 != 0 || hp.headDim > 1024 {
		return hp, fmt.Errorf("bad attention shape: %d heads, %d kv heads, head dim %d", hp.nHead, hp.nHeadKV, hp.headDim)
	}
	if hp.eps, err = md.Float("attention.layer_norm_rms_epsilon", 1e-5); err != nil {
		return hp, err
	}
	if !(hp.eps > 0 && hp.eps < 1) {
		return hp, fmt.Errorf("attention.layer_norm_rms_epsilon %v out of range", hp.eps)
	}
	hp.rope, err = readRope(md, hp)
	return hp, err
}

// readMoE reads the expert shape; n_ff_exp defaults to n_ff/n_used as in
// llama.cpp's llada-moe loader, and the top-k weights stay unnormalised.
func readMoE(md engine.Meta, hp hparams) (moe.Shape, error) {
	sh := moe.Shape{NEmbd: hp.nEmbd, Unnormalised: true}
	var err error
	if sh.NExpert, err = md.RequiredInt("expert_count"); err != nil {
		return sh, err
	}
	if sh.NUsed, err = md.RequiredInt("expert_used_count"); err != nil {
		return sh, err
	}
	if sh.NUsed > sh.NExpert || sh.NExpert > 4096 {
		return sh, fmt.Errorf("%d experts used of %d", sh.NUsed, sh.NExpert)
	}
	if sh.NFFExp, err = md.Int("expert_feed_forward_length", hp.nFF/sh.NUsed); err != nil {
		return sh, err
	}
	if sh.NFFExp < 1 {
		return sh, fmt.Errorf("expert feed-forward length %d", sh.NFFExp)
	}
	if sh.WeightsScale, err = md.Float("expert_weights_scale", 0); err != nil {
		return sh, err
	}
	return sh, nil
}

// readRope reads the rotary base; the whole head rotates (llama.cpp
// asserts rope.dimension_count == head_dim for these architectures) and
// no context scaling is defined for them.
func readRope(md engine.Meta, hp hparams) (kernels.RopeParams, error) {
	p := kernels.RopeParams{FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: hp.nCtxTrain}
	var err error
	if p.NRot, err = md.Int("rope.dimension_count", hp.headDim); err != nil {
		return p, err
	}
	if p.NRot != hp.headDim {
		return p, fmt.Errorf("rope.dimension_count %d differs from the head dim %d", p.NRot, hp.headDim)
	}
	if p.FreqBase, err = md.Float("rope.freq_base", 10000); err != nil {
		return p, err
	}
	if !(p.FreqBase > 0) || math.IsInf(float64(p.FreqBase), 0) {
		return p, fmt.Errorf("rope.freq_base %v out of range", p.FreqBase)
	}
	if kind := md.String("rope.scaling.type", "none"); kind != "none" && kind != "" {
		return p, fmt.Errorf("rope.scaling.type %q is not supported for %s", kind, md.Arch)
	}
	return p, nil
}
