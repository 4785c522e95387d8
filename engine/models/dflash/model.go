// Package dflash implements the dflash-draft architecture: DFlash's block
// drafter (a few transformer layers that read the target's hidden states
// and propose a whole block of tokens in one non-causal pass), in the GGUF
// layout BeeLlama writes. It has no token embeddings or output head of its
// own: it borrows the target's (engine.HeadSharer), so it runs only bound
// to a target (engine.BlockDrafterModel), never as a session of its own.
//
// The forward pass follows docs/reference/dflash-ddtree.md §3: the target
// rows of the context window (the taps of each committed token,
// concatenated) are fused by fc and hidden_norm; every layer attends from
// the block's queries over the window's keys and values (projected from
// the fused rows with the layer's own W_k, k_norm and W_v, rotated at
// window positions 0…N-1) followed by the block's own (positions N…),
// with no causal mask inside the block; the block's last hidden states go
// through output_norm and the target's output head.
package dflash

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

const arch = "dflash-draft"

func init() { engine.Register(arch, load) }

// maxTaps is the most target layers a drafter may tap (BeeLlama reads the
// first 8 ids).
const maxTaps = 8

// hparams are the drafter's hyper-parameters.
type hparams struct {
	nEmbd, nLayer, nCtxTrain, nFF   int
	nHead, nHeadKV, headDim, nVocab int
	eps                             float32
	rope                            kernels.RopeParams
	blockSize                       int
	maskToken                       int32
	layerIDs                        []int // tapped target layers, file order
}

// layer is one drafter block's weights.
type layer struct {
	attnNorm, postNorm []float32
	qNorm, kNorm       []float32
	wq, wk, wv, wo     *engine.Matrix
	gate, up, down     *engine.Matrix
}

// Model is a loaded DFlash drafter.
type Model struct {
	hp         hparams
	info       engine.Info
	fc         *engine.Matrix // n_target_features → n_embd
	hiddenNorm []float32
	outputNorm []float32
	layers     []layer
}

// Info describes the drafter (NVocab: the vocabulary it was trained on,
// which must be its target's).
func (m *Model) Info() *engine.Info { return &m.info }

// NewSession refuses: a drafter runs bound to its target.
func (m *Model) NewSession(engine.SessionOptions) (engine.Session, error) {
	return nil, fmt.Errorf("%s: a DFlash drafter runs only with its target model (--spec-type dflash --spec-draft-model)", arch)
}

// Block describes what the drafter needs from its target.
func (m *Model) Block() engine.BlockInfo {
	taps := make([]engine.Tap, len(m.hp.layerIDs))
	for i, id := range m.hp.layerIDs {
		taps[i] = engine.LayerOutput(id)
	}
	return engine.BlockInfo{BlockSize: m.hp.blockSize, MaskToken: m.hp.maskToken, Taps: taps, NEmbd: m.hp.nEmbd}
}

func load(f *gguf.File) (engine.Model, error) {
	hp, err := readHparams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	m := &Model{hp: hp}
	if err := m.loadWeights(engine.Weights{F: f}); err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	m.info = engine.Info{
		Arch: arch, NVocab: hp.nVocab, NCtxTrain: hp.nCtxTrain, NEmbd: hp.nEmbd, NLayer: hp.nLayer,
		NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, NFF: hp.nFF,
	}
	m.info.Name, _ = f.String("general.name")
	m.info.NParams, m.info.WeightSize = engine.TensorTotals(f)
	m.info.FileType = engine.FileTypeSummary(f)
	return m, nil
}

func readHparams(f *gguf.File) (hparams, error) {
	md := engine.Meta{F: f, Arch: arch}
	var hp hparams
	var err error
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&hp.nEmbd, "embedding_length"}, {&hp.nLayer, "block_count"}, {&hp.nCtxTrain, "context_length"},
		{&hp.nFF, "feed_forward_length"}, {&hp.nHead, "attention.head_count"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return hp, err
		}
	}
	if hp.nHeadKV, err = md.Int("attention.head_count_kv", hp.nHead); err != nil {
		return hp, err
	}
	if hp.headDim, err = md.Int("attention.key_length", hp.nEmbd/hp.nHead); err != nil {
		return hp, err
	}
	if vl, err := md.Int("attention.value_length", hp.headDim); err != nil || vl != hp.headDim {
		return hp, fmt.Errorf("attention.value_length differs from key_length %d", hp.headDim)
	}
	if hp.nHeadKV == 0 || hp.nHead%hp.nHeadKV != 0 || hp.headDim == 0 || hp.headDim%2 != 0 || hp.nLayer > 1024 {
		return hp, fmt.Errorf("bad shape: %d layers, %d heads, %d kv heads, head dim %d", hp.nLayer, hp.nHead, hp.nHeadKV, hp.headDim)
	}
	if _, ok := f.Get(md.Arch + ".attention.layer_norm_rms_epsilon"); !ok {
		return hp, fmt.Errorf("missing metadata %q", md.Arch+".attention.layer_norm_rms_epsilon")
	}
	if hp.eps, err = md.Float("attention.layer_norm_rms_epsilon", 0); err != nil {
		return hp, err
	}
	if err := readRope(md, &hp); err != nil {
		return hp, err
	}
	if err := readBlock(f, md, &hp); err != nil {
		return hp, err
	}
	if w, err := md.Int("attention.sliding_window", 0); err != nil || w != 0 {
		return hp, fmt.Errorf("sliding-window drafter layers (attention.sliding_window %d) are not supported", w)
	}
	return hp, nil
}

// readRope reads the NEOX rotary parameters (full head by default, no
// context scaling).
func readRope(md engine.Meta, hp *hparams) error {
	p := kernels.RopeParams{FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: hp.nCtxTrain}
	var err error
	if p.NRot, err = md.Int("rope.dimension_count", hp.headDim); err != nil {
		return err
	}
	if p.NRot <= 0 || p.NRot > hp.headDim || p.NRot%2 != 0 {
		return fmt.Errorf("rope.dimension_count %d does not fit head dim %d", p.NRot, hp.headDim)
	}
	if p.FreqBase, err = md.Float("rope.freq_base", 10000); err != nil {
		return err
	}
	if !(p.FreqBase > 0) {
		return fmt.Errorf("rope.freq_base %v out of range", p.FreqBase)
	}
	if kind := md.String("rope.scaling.type", "none"); kind != "none" && kind != "" {
		return fmt.Errorf("rope.scaling.type %q is not supported for a drafter", kind)
	}
	hp.rope = p
	return nil
}

// readBlock reads the DFlash keys: block size, mask token, tapped layers,
// the fused feature width and the vocabulary size.
func readBlock(f *gguf.File, md engine.Meta, hp *hparams) error {
	var err error
	if hp.blockSize, err = md.Int("dflash.block_size", 16); err != nil {
		return err
	}
	if hp.blockSize < 2 || hp.blockSize > 256 {
		return fmt.Errorf("dflash.block_size %d out of range [2, 256]", hp.blockSize)
	}
	mask, err := md.Int("dflash.mask_token_id", 0)
	if err != nil {
		return err
	}
	hp.maskToken = int32(mask)
	ids, ok := f.Int32s(md.Arch + ".dflash.target_layer_ids")
	if !ok || len(ids) == 0 {
		return fmt.Errorf("missing or non-integer %q: the drafter taps no target layer", md.Arch+".dflash.target_layer_ids")
	}
	ids = ids[:min(len(ids), maxTaps)]
	for _, id := range ids {
		if id < 0 || id > 4096 {
			return fmt.Errorf("dflash.target_layer_ids holds %d", id)
		}
		hp.layerIDs = append(hp.layerIDs, int(id))
	}
	nf, err := md.Int("dflash.n_target_features", 25600)
	if err != nil {
		return err
	}
	if nf != hp.nEmbd*len(ids) {
		return fmt.Errorf("dflash.n_target_features %d is not n_embd %d × %d tapped layers", nf, hp.nEmbd, len(ids))
	}
	if hp.nVocab, err = md.Int("vocab_size", 0); err != nil {
		return err
	}
	if hp.nVocab == 0 {
		toks, _ := f.Strings("tokenizer.ggml.tokens")
		hp.nVocab = len(toks)
	}
	if hp.nVocab > 0 && int(hp.maskToken) >= hp.nVocab {
		return fmt.Errorf("dflash.mask_token_id %d outside the vocabulary of %d", hp.maskToken, hp.nVocab)
	}
	return nil
}

func (m *Model) loadWeights(w engine.Weights) error {
	hp := &m.hp
	e, qd, kvd := hp.nEmbd, hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	var err error
	if m.fc, err = w.Matrix("dflash_fc.weight", e*len(hp.layerIDs), e); err != nil {
		return err
	}
	if m.hiddenNorm, err = w.Vector("dflash_hidden_norm.weight", e); err != nil {
		return err
	}
	if m.outputNorm, err = w.Vector("output_norm.weight", e); err != nil {
		return err
	}
	m.layers = make([]layer, hp.nLayer)
	for i := range m.layers {
		l := &m.layers[i]
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", i, s) }
		for _, v := range []struct {
			dst *[]float32
			n   string
			len int
		}{{&l.attnNorm, "attn_norm", e}, {&l.postNorm, "post_attention_norm", e}, {&l.qNorm, "attn_q_norm", hp.headDim}, {&l.kNorm, "attn_k_norm", hp.headDim}} {
			if *v.dst, err = w.Vector(name(v.n), v.len); err != nil {
				return err
			}
		}
		for _, x := range []struct {
			dst        **engine.Matrix
			n          string
			cols, rows int
		}{
			{&l.wq, "attn_q", e, qd}, {&l.wk, "attn_k", e, kvd}, {&l.wv, "attn_v", e, kvd}, {&l.wo, "attn_output", qd, e},
			{&l.gate, "ffn_gate", e, hp.nFF}, {&l.up, "ffn_up", e, hp.nFF}, {&l.down, "ffn_down", hp.nFF, e},
		} {
			if *x.dst, err = w.Matrix(name(x.n), x.cols, x.rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// matrices lists the drafter's own matrices (for scratch sizing).
func (m *Model) matrices() []*engine.Matrix {
	ms := []*engine.Matrix{m.fc}
	for i := range m.layers {
		l := &m.layers[i]
		ms = append(ms, l.wq, l.wk, l.wv, l.wo, l.gate, l.up, l.down)
	}
	return ms
}
