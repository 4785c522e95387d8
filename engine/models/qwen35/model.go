// Package qwen35 implements the Qwen3.5 / Qwen3-Next hybrid networks:
// architectures qwen35 (dense SwiGLU feed-forward), qwen35moe and qwen3next
// (mixture-of-experts feed-forward with a gated shared expert). Every
// full_attention_interval-th layer is gated full attention (q and a sigmoid
// output gate from one projection, per-head q/k RMSNorm, rotary on the first
// rope.dimension_count dims); the others are Gated DeltaNet linear attention
// (short causal conv, L2-normalised q/k, the gated delta rule, a gated
// RMSNorm). The math and the GGUF layout follow
// docs/reference/architectures.md §1; the kernels are kernels.GatedDelta*.
//
// Two traps of these files are handled here: every norm weight except
// ssm_norm already carries Qwen's +1 (the converter added it), so all norms
// multiply by the stored weight; and the V head → K head pairing of the
// recurrence is tiled (h mod H_k) for qwen35/qwen35moe but grouped
// (h div (H_v/H_k)) for qwen3next, whose GGUFs keep HF's head order.
//
// Matrix products follow llama.cpp's CPU backend as the llama package does
// (activations converted to each weight's vec-dot format), so quantized
// files can be compared with the goldens end to end.
package qwen35

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

func init() {
	engine.Register("qwen35", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen35) })
	engine.Register("qwen35moe", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen35MoE) })
	engine.Register("qwen3next", func(f *gguf.File) (engine.Model, error) { return load(f, variantQwen3Next) })
}

// variant holds what distinguishes the three architectures.
type variant struct {
	arch string
	moe  bool // MoE feed-forward with a shared expert instead of dense SwiGLU
	// groupedHeads pairs V head h with K head h/(H_v/H_k) (qwen3next, HF
	// order); false pairs it with h mod H_k (qwen35 files, reordered by the
	// converter so a tiled broadcast is right).
	groupedHeads bool
	fusedBA      bool // beta and alpha come from one ssm_ba projection
}

var (
	variantQwen35    = variant{arch: "qwen35"}
	variantQwen35MoE = variant{arch: "qwen35moe", moe: true}
	variantQwen3Next = variant{arch: "qwen3next", moe: true, groupedHeads: true, fusedBA: true}
)

// hparams are the hyper-parameters read from the GGUF metadata.
type hparams struct {
	nVocab, nCtxTrain, nEmbd, nLayer, nFF int
	nHead, nHeadKV, headDim               int // full-attention layers
	eps                                   float32
	attnScale                             float32
	rope                                  kernels.RopeParams
	interval                              int // every interval-th layer is full attention

	// Gated DeltaNet layers.
	convK    int // short-conv taps
	dk, dv   int // key and value head widths (ssm.state_size, inner_size/H_v)
	hk, hv   int // key heads (ssm.group_count) and value heads (ssm.time_step_rank)
	convDim  int // 2·hk·dk + hv·dv channels of the conv (q | k | v)
	innerDim int // hv·dv

	// MoE feed-forward.
	nExpert, nExpertUsed, nFFExp, nFFShared int
	expertWeightsScale                      float32
}

// isRecurrent reports whether layer il is a Gated DeltaNet layer.
func (hp *hparams) isRecurrent(il int) bool { return (il+1)%hp.interval != 0 }

// Model is a loaded hybrid network.
type Model struct {
	v          variant
	hp         hparams
	info       engine.Info
	tokEmbd    *engine.Matrix
	outputNorm []float32
	output     *engine.Matrix
	layers     []layer
	nAttn      int // full-attention layers (the KV cache's layer count)
	nDelta     int // DeltaNet layers (recurrent state per sequence)
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

// SharedHead returns the token embeddings and the output head
// (engine.HeadSharer), which a DFlash drafter borrows.
func (m *Model) SharedHead() (embeddings, output *engine.Matrix) { return m.tokEmbd, m.output }
