package qwen35

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// readHparams reads and checks the metadata (architectures.md §1.2).
func readHparams(f *gguf.File, v variant) (hparams, error) {
	md := engine.Meta{F: f, Arch: v.arch}
	var hp hparams
	var err error
	req := []struct {
		dst *int
		key string
	}{
		{&hp.nEmbd, "embedding_length"}, {&hp.nHead, "attention.head_count"},
		{&hp.convK, "ssm.conv_kernel"}, {&hp.dk, "ssm.state_size"},
		{&hp.hk, "ssm.group_count"}, {&hp.hv, "ssm.time_step_rank"}, {&hp.innerDim, "ssm.inner_size"},
	}
	for _, p := range req {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return hp, err
		}
	}
	if hp.nLayer, err = md.BlockCount(); err != nil {
		return hp, err
	}
	if err := readOptional(md, &hp); err != nil {
		return hp, err
	}
	if err := hp.check(); err != nil {
		return hp, err
	}
	if err := readMoE(md, &hp, v); err != nil {
		return hp, err
	}
	hp.rope, err = readRope(md, &hp)
	return hp, err
}

func readOptional(md engine.Meta, hp *hparams) error {
	var err error
	opt := []struct {
		dst *int
		key string
		def int
	}{
		{&hp.nCtxTrain, "context_length", 4096},
		{&hp.nHeadKV, "attention.head_count_kv", hp.nHead},
		{&hp.headDim, "attention.key_length", 256},
		{&hp.interval, "full_attention_interval", 4},
		{&hp.nFF, "feed_forward_length", 0},
	}
	for _, p := range opt {
		if *p.dst, err = md.Int(p.key, p.def); err != nil {
			return err
		}
	}
	if vl, err := md.Int("attention.value_length", hp.headDim); err != nil || vl != hp.headDim {
		return fmt.Errorf("attention.value_length %d differs from key_length %d (unsupported)", vl, hp.headDim)
	}
	if hp.eps, err = md.Float("attention.layer_norm_rms_epsilon", 1e-6); err != nil {
		return err
	}
	if hp.attnScale, err = md.Float("attention.scale", 0); err != nil {
		return err
	}
	if hp.attnScale == 0 {
		hp.attnScale = float32(1 / math.Sqrt(float64(hp.headDim)))
	}
	return nil
}

// check validates the shapes the forward pass relies on.
func (hp *hparams) check() error {
	if hp.nHeadKV == 0 || hp.nHead%hp.nHeadKV != 0 || hp.headDim == 0 || hp.headDim%2 != 0 {
		return fmt.Errorf("bad attention shape: %d heads, %d kv heads, head dim %d", hp.nHead, hp.nHeadKV, hp.headDim)
	}
	if hp.interval < 1 || hp.interval > hp.nLayer {
		return fmt.Errorf("full_attention_interval %d out of range [1, %d]", hp.interval, hp.nLayer)
	}
	if hp.hv%hp.hk != 0 || hp.innerDim%hp.hv != 0 {
		return fmt.Errorf("ssm heads: %d value heads are not a multiple of %d key heads, or inner size %d of them", hp.hv, hp.hk, hp.innerDim)
	}
	hp.dv = hp.innerDim / hp.hv
	if hp.dv != hp.dk {
		// llama.cpp sizes the state as d_v × d_v from state_size; keep to
		// the files it can run.
		return fmt.Errorf("ssm value head dim %d differs from state_size %d (unsupported)", hp.dv, hp.dk)
	}
	if hp.convK < 1 || hp.convK > 16 {
		return fmt.Errorf("ssm.conv_kernel %d out of range [1, 16]", hp.convK)
	}
	hp.convDim = 2*hp.hk*hp.dk + hp.innerDim
	return nil
}

func readMoE(md engine.Meta, hp *hparams, v variant) error {
	if !v.moe {
		if hp.nFF == 0 {
			return fmt.Errorf("missing feed_forward_length")
		}
		return nil
	}
	var err error
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&hp.nExpert, "expert_count"}, {&hp.nExpertUsed, "expert_used_count"},
		{&hp.nFFExp, "expert_feed_forward_length"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return err
		}
	}
	if hp.nFFShared, err = md.Int("expert_shared_feed_forward_length", hp.nFFExp); err != nil {
		return err
	}
	if hp.expertWeightsScale, err = md.Float("expert_weights_scale", 0); err != nil {
		return err
	}
	if hp.nExpertUsed > hp.nExpert || hp.nExpert > 4096 {
		return fmt.Errorf("%d experts used of %d", hp.nExpertUsed, hp.nExpert)
	}
	return nil
}

// readRope reads the partial rotary of the full-attention layers. qwen35's
// IMROPE with rope.dimension_sections gives every section the same
// position for text, which is NEOX rotation of the first n_rot dims with
// θ_i = pos·base^(-2i/n_rot) (architectures.md §1.4), so both arches use
// kernels.RopeCache/RopeApply with NRot = n_rot and neox pairing.
func readRope(md engine.Meta, hp *hparams) (kernels.RopeParams, error) {
	p := kernels.RopeParams{FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: hp.nCtxTrain}
	var err error
	if p.NRot, err = md.Int("rope.dimension_count", hp.headDim/4); err != nil {
		return p, err
	}
	if p.NRot <= 0 || p.NRot > hp.headDim || p.NRot%2 != 0 {
		return p, fmt.Errorf("rope.dimension_count %d does not fit head dim %d", p.NRot, hp.headDim)
	}
	if p.FreqBase, err = md.Float("rope.freq_base", 10000); err != nil {
		return p, err
	}
	if !(p.FreqBase > 0) || math.IsInf(float64(p.FreqBase), 0) {
		return p, fmt.Errorf("rope.freq_base %v out of range", p.FreqBase)
	}
	if kind := md.String("rope.scaling.type", "none"); kind != "none" && kind != "" {
		return p, fmt.Errorf("rope.scaling.type %q is not supported for %s yet", kind, md.Arch)
	}
	return p, nil
}
