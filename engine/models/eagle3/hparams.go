package eagle3

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// maxTargetLayer bounds the target layer ids a file may name.
const maxTargetLayer = 4096

// metaFor returns the metadata reader of f. Mainline writes "eagle3.<key>";
// some converters doubled the prefix ("eagle3.eagle3.<key>"), which carries
// the same information and is read as well. Files from the converters
// that preceded mainline's EAGLE-3 support name the fused layers
// "extract_layers"; they are refused with the key mainline reads.
func metaFor(f *gguf.File) (engine.Meta, error) {
	md := engine.Meta{F: f, Arch: arch}
	if !has(f, arch+".embedding_length") && has(f, arch+"."+arch+".embedding_length") {
		md.Arch = arch + "." + arch
	}
	if !has(f, md.Arch+".target_layers") && has(f, md.Arch+".extract_layers") {
		return md, fmt.Errorf("%q is the key of EAGLE-3 converters that preceded llama.cpp's merged support; this loader reads mainline's layout (%q, tensor blk.0.attn_norm_2.weight): reconvert the drafter with a current convert_hf_to_gguf.py", md.Arch+".extract_layers", arch+".target_layers")
	}
	return md, nil
}

func has(f *gguf.File, key string) bool {
	_, ok := f.Get(key)
	return ok
}

func readHparams(md engine.Meta) (hparams, error) {
	var hp hparams
	var err error
	nLayer := 0
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&hp.nEmbd, "embedding_length"}, {&nLayer, "block_count"}, {&hp.nFF, "feed_forward_length"},
		{&hp.nHead, "attention.head_count"}, {&hp.nCtxTrain, "context_length"}, {&hp.targetEmbd, "target_hidden_size"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return hp, err
		}
	}
	if nLayer != 1 {
		return hp, fmt.Errorf("block_count %d: an EAGLE-3 drafter has exactly one decoder block", nLayer)
	}
	if err := readAttention(md, &hp); err != nil {
		return hp, err
	}
	if err := readLayers(md, &hp); err != nil {
		return hp, err
	}
	if hp.targetVocab, err = md.Int("vocab_size", 0); err != nil {
		return hp, err
	}
	for _, b := range []struct {
		dst *bool
		key string
	}{
		{&hp.normBeforeResidual, "norm_before_residual"}, {&hp.normBeforeFC, "norm_before_fc"},
		{&hp.fcNorm, "fc_norm"}, {&hp.normOutput, "norm_output"},
	} {
		if *b.dst, err = flag(md, b.key); err != nil {
			return hp, err
		}
	}
	if hp.normBeforeFC && hp.fcNorm {
		return hp, fmt.Errorf("norm_before_fc and fc_norm are both set: a drafter norms the fused input one way")
	}
	hp.rope, err = readRope(md, hp)
	return hp, err
}

// readAttention reads the head shape and the norm epsilon.
func readAttention(md engine.Meta, hp *hparams) error {
	var err error
	if hp.nHeadKV, err = md.Int("attention.head_count_kv", hp.nHead); err != nil {
		return err
	}
	if hp.headDim, err = md.Int("attention.key_length", hp.nEmbd/hp.nHead); err != nil {
		return err
	}
	if vl, err := md.Int("attention.value_length", hp.headDim); err != nil || vl != hp.headDim {
		return fmt.Errorf("attention.value_length differs from key_length %d (unsupported)", hp.headDim)
	}
	if hp.nHeadKV == 0 || hp.nHead%hp.nHeadKV != 0 || hp.headDim == 0 || hp.headDim%2 != 0 || hp.nHead*hp.headDim > 1<<20 {
		return fmt.Errorf("bad attention shape: %d heads, %d kv heads, head dim %d", hp.nHead, hp.nHeadKV, hp.headDim)
	}
	if !has(md.F, md.Arch+".attention.layer_norm_rms_epsilon") {
		return fmt.Errorf("missing metadata %q", md.Arch+".attention.layer_norm_rms_epsilon")
	}
	if hp.eps, err = md.Float("attention.layer_norm_rms_epsilon", 0); err != nil {
		return err
	}
	if !(hp.eps >= 0) || hp.eps > 1 {
		return fmt.Errorf("attention.layer_norm_rms_epsilon %v out of range", hp.eps)
	}
	return nil
}

// readLayers reads target_layers: exactly three ids, in concatenation
// order.
func readLayers(md engine.Meta, hp *hparams) error {
	key := md.Arch + ".target_layers"
	ids, ok := md.F.Int32s(key)
	if !ok {
		return fmt.Errorf("missing or non-integer %q (the target layers the drafter fuses)", key)
	}
	if len(ids) != nTaps {
		return fmt.Errorf("%q has %d entries; EAGLE-3 fuses exactly %d target layers", key, len(ids), nTaps)
	}
	for i, id := range ids {
		if id < 0 || id > maxTargetLayer {
			return fmt.Errorf("%q holds layer %d", key, id)
		}
		hp.layers[i] = int(id)
	}
	return nil
}

// flag reads an optional boolean key (false when absent).
func flag(md engine.Meta, suffix string) (bool, error) {
	key := md.Arch + "." + suffix
	v, present := md.F.Get(key)
	if !present {
		return false, nil
	}
	b, ok := v.AsBool()
	if !ok {
		return false, fmt.Errorf("metadata %q is not a boolean", key)
	}
	return b, nil
}

// readRope reads the rotary parameters: Llama's adjacent-pair rotation,
// with linear or YaRN context scaling when the drafter's config had it
// (llama3-style scaling comes as a rope_freqs tensor).
func readRope(md engine.Meta, hp hparams) (kernels.RopeParams, error) {
	p := kernels.RopeParams{FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: hp.nCtxTrain}
	var err error
	if p.NRot, err = md.Int("rope.dimension_count", hp.headDim); err != nil {
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
	factor, err := md.Float("rope.scaling.factor", 0)
	if err != nil {
		return p, err
	}
	switch kind := md.String("rope.scaling.type", "none"); kind {
	case "none", "":
	case "linear", "yarn":
		if factor > 0 {
			p.FreqScale = 1 / factor
		}
		if kind == "yarn" {
			p.ExtFactor = 1
			if p.NCtxOrig, err = md.Int("rope.scaling.original_context_length", hp.nCtxTrain); err != nil {
				return p, err
			}
		}
	default:
		return p, fmt.Errorf("unsupported rope.scaling.type %q", kind)
	}
	return p, nil
}
