// Package llama implements the llama family of decoder-only transformers:
// llama (Llama 1/2/3: RMSNorm, rotary positions, grouped-query attention,
// SwiGLU feed-forward, tied or separate output head), qwen2 (the same with
// q/k/v biases and NEOX rotary) and qwen3 (per-head RMSNorm of q and k before
// the rotation, NEOX rotary) and qwen3moe (qwen3 attention with a
// mixture-of-experts feed-forward in every layer, no shared expert; the
// experts are package moe's). They differ only in flags, so they share one
// package instead of four copies of the same forward pass.
//
// Computation follows llama.cpp's CPU backend: activations are converted to
// the weight's vec-dot format (q8_0/q8_1/q8_K/f16/bf16) before every matrix
// product, attention runs without flash attention over an f32 or f16 cache.
package llama

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

func init() {
	engine.Register("llama", func(f *gguf.File) (engine.Model, error) { return load(f, variantLlama) })
	engine.Register("qwen2", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen2) })
	engine.Register("qwen3", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen3) })
	engine.Register("qwen3moe", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen3MoE) })
}

// variant holds what distinguishes the members of the family.
type variant struct {
	arch    string
	neox    bool // NEOX rotary (pairs i, i+n/2) instead of adjacent pairs
	biases  bool // q/k/v projections may carry biases
	qkNorm  bool // per-head RMSNorm of q and k before rotary
	moe     bool // routed-experts feed-forward instead of dense SwiGLU
	defBase float32
}

var (
	variantLlama    = variant{arch: "llama", defBase: 10000}
	variantQwen2    = variant{arch: "qwen2", neox: true, biases: true, defBase: 10000}
	variantQwen3    = variant{arch: "qwen3", neox: true, qkNorm: true, defBase: 10000}
	variantQwen3MoE = variant{arch: "qwen3moe", neox: true, qkNorm: true, moe: true, defBase: 10000}
)

// hparams are the hyper-parameters read from the GGUF metadata.
type hparams struct {
	nVocab, nCtxTrain, nEmbd, nLayer, nHead, nHeadKV, headDim, nFF int
	eps                                                            float32
	rope                                                           kernels.RopeParams
	moe                                                            moe.Shape // qwen3moe only
}

// layer holds one transformer block's weights.
type layer struct {
	attnNorm, ffnNorm []float32
	wq, wk, wv, wo    *engine.Matrix
	bq, bk, bv        []float32      // qwen2 biases (nil when absent)
	qNorm, kNorm      []float32      // qwen3 per-head norms (len headDim)
	gate, up, down    *engine.Matrix // dense FFN (nil with experts)
	experts           *moe.Weights   // qwen3moe FFN (nil when dense)
}

// Model is a loaded llama-family network.
type Model struct {
	v          variant
	hp         hparams
	info       engine.Info
	tokEmbd    *engine.Matrix
	outputNorm []float32
	output     *engine.Matrix
	layers     []layer
}

// Info describes the model.
func (m *Model) Info() *engine.Info { return &m.info }

func load(f *gguf.File, v variant) (*Model, error) {
	hp, err := readHparams(f, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.arch, err)
	}
	m := &Model{v: v, hp: hp}
	if err := m.loadWeights(engine.Weights{F: f}); err != nil {
		return nil, fmt.Errorf("%s: %w", v.arch, err)
	}
	hp = m.hp // loadWeights learned the vocabulary size
	m.info = engine.Info{
		Arch: v.arch, NVocab: hp.nVocab, NCtxTrain: hp.nCtxTrain, NEmbd: hp.nEmbd,
		NLayer: hp.nLayer, NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, NFF: hp.nFF,
	}
	m.info.Name, _ = f.String("general.name")
	m.info.NParams, m.info.WeightSize = engine.TensorTotals(f)
	m.info.FileType = engine.FileTypeSummary(f)
	return m, nil
}

func readHparams(f *gguf.File, v variant) (hparams, error) {
	md := engine.Meta{F: f, Arch: v.arch}
	var hp hparams
	var err error
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&hp.nEmbd, "embedding_length"}, {&hp.nHead, "attention.head_count"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return hp, err
		}
	}
	if hp.nLayer, err = md.BlockCount(); err != nil {
		return hp, err
	}
	if v.moe { // the dense width is informative only
		hp.nFF, err = md.Int("feed_forward_length", 0)
	} else {
		hp.nFF, err = md.RequiredInt("feed_forward_length")
	}
	if err != nil {
		return hp, err
	}
	if v.moe {
		if hp.moe, err = moe.ReadShape(md, hp.nEmbd); err != nil {
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
		return hp, fmt.Errorf("attention.value_length %d differs from key_length %d (unsupported)", vl, hp.headDim)
	}
	if hp.nHeadKV == 0 || hp.nHead%hp.nHeadKV != 0 || hp.headDim == 0 || hp.headDim%2 != 0 {
		return hp, fmt.Errorf("bad attention shape: %d heads, %d kv heads, head dim %d", hp.nHead, hp.nHeadKV, hp.headDim)
	}
	if hp.eps, err = md.Float("attention.layer_norm_rms_epsilon", 1e-5); err != nil {
		return hp, err
	}
	hp.rope, err = readRope(md, hp, v)
	return hp, err
}

// readRope reads rotary parameters: base, rotated dims, and linear or YaRN
// context scaling, with llama.cpp's defaults (YaRN beta_fast 32, beta_slow 1,
// ext_factor 1 only for YaRN scaling).
func readRope(md engine.Meta, hp hparams, v variant) (kernels.RopeParams, error) {
	p := kernels.RopeParams{FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: hp.nCtxTrain}
	var err error
	if p.NRot, err = md.Int("rope.dimension_count", hp.headDim); err != nil {
		return p, err
	}
	if p.NRot > hp.headDim || p.NRot%2 != 0 {
		return p, fmt.Errorf("rope.dimension_count %d does not fit head dim %d", p.NRot, hp.headDim)
	}
	if p.FreqBase, err = md.Float("rope.freq_base", v.defBase); err != nil {
		return p, err
	}
	factor, err := md.Float("rope.scaling.factor", 0)
	if err != nil {
		return p, err
	}
	switch kind := md.String("rope.scaling.type", "none"); kind {
	case "none", "":
	case "linear":
		if factor > 0 {
			p.FreqScale = 1 / factor
		}
	case "yarn":
		if factor > 0 {
			p.FreqScale = 1 / factor
		}
		p.ExtFactor = 1
		if p.NCtxOrig, err = md.Int("rope.scaling.original_context_length", hp.nCtxTrain); err != nil {
			return p, err
		}
	default:
		return p, fmt.Errorf("unsupported rope.scaling.type %q", kind)
	}
	if p.FreqBase <= 0 || math.IsNaN(float64(p.FreqBase)) {
		return p, fmt.Errorf("rope.freq_base %v out of range", p.FreqBase)
	}
	return p, nil
}

// SharedHead returns the token embeddings and the output head
// (engine.HeadSharer), which a DFlash drafter borrows.
func (m *Model) SharedHead() (embeddings, output *engine.Matrix) { return m.tokEmbd, m.output }
