// Package eagle3 implements the eagle3 architecture: EAGLE-3's one-block
// drafter in the GGUF layout mainline llama.cpp writes and loads
// (docs/reference/eagle3.md in the shared fixtures). It runs only bound to
// its target (engine.FeatureDrafterModel):
//
//   - the encoder fuses the target's residual stream at the inputs of three
//     layers, concatenated (3·D values per token), into a feature g of the
//     drafter's width d with one matrix, fc (optionally after an RMSNorm of
//     the whole concatenation, norm_before_fc, or of each D-wide slice,
//     EAGLE 3.1's fc_norm);
//   - the decoder is one Llama-style block whose attention reads the
//     2·d-wide concatenation of the normed token embedding and the normed
//     feature, whose residual stream starts from the feature, and whose KV
//     cache is its own; its pre-norm output h is the feature of the next
//     drafted token (with EAGLE 3.1's norm_output, the normed output is);
//   - the head covers a draft vocabulary mapped to target ids by d2t.
//
// Token embeddings and the output head may be the drafter's own or
// borrowed from the target (a target that shares them implements
// SharedHead).
package eagle3

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

const arch = "eagle3"

func init() { engine.Register(arch, load) }

// nTaps is the number of target layers an EAGLE-3 drafter fuses.
const nTaps = 3

// hparams are the drafter's hyper-parameters.
type hparams struct {
	nEmbd, nFF, nHead, nHeadKV, headDim, nCtxTrain int
	eps                                            float32
	rope                                           kernels.RopeParams
	layers                                         [nTaps]int // target layers whose inputs are fused
	targetEmbd                                     int        // D
	targetVocab                                    int        // eagle3.vocab_size (0: not given)
	normBeforeResidual                             bool       // residual from the normed feature
	normBeforeFC                                   bool       // RMSNorm over the 3·D concatenation
	fcNorm                                         bool       // EAGLE 3.1: RMSNorm per D-wide slice
	normOutput                                     bool       // EAGLE 3.1: feed back the normed output
}

// Model is a loaded EAGLE-3 drafter.
type Model struct {
	hp   hparams
	info engine.Info

	encNorm []float32        // enc.output_norm (norm_before_fc), 3·D
	fcNorm  [nTaps][]float32 // fc_norm.{0,1,2} (EAGLE 3.1), D each
	fc      *engine.Matrix   // 3·D → d
	tokEmbd *engine.Matrix   // own embeddings (nil: the target's)
	blk     block            // the decoder block
	outNorm []float32        // output_norm
	output  *engine.Matrix   // own head over the draft vocabulary (nil: the target's)
	d2t     []int32          // draft id → target id (nil: identity)
}

// block is the decoder block's weights.
type block struct {
	attnNorm, hiddenNorm, ffnNorm []float32
	wq, wk, wv, wo                *engine.Matrix
	gate, up, down                *engine.Matrix
}

// Info describes the drafter. NVocab is its draft vocabulary (the target
// vocabulary when it has no d2t).
func (m *Model) Info() *engine.Info { return &m.info }

// NewSession refuses: the drafter runs bound to its target.
func (m *Model) NewSession(engine.SessionOptions) (engine.Session, error) {
	return nil, fmt.Errorf("%s: an EAGLE-3 drafter runs only with its target model (--spec-type draft-eagle3 --spec-draft-model)", arch)
}

// Features describes what the drafter reads from its target.
func (m *Model) Features() engine.FeatureInfo {
	return engine.FeatureInfo{Layers: m.hp.layers[:], TargetEmbd: m.hp.targetEmbd, NEmbd: m.hp.nEmbd}
}

func load(f *gguf.File) (engine.Model, error) { return Load(f) }

// Load builds a drafter from an opened GGUF file (engine.LoadFile does
// this through the registry); the file stays open while the drafter is
// used.
func Load(f *gguf.File) (*Model, error) {
	md, err := metaFor(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	hp, err := readHparams(md)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	m := &Model{hp: hp}
	if err := m.loadWeights(engine.Weights{F: f}); err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	m.info = engine.Info{
		Arch: arch, NVocab: m.draftVocab(), NCtxTrain: hp.nCtxTrain, NEmbd: hp.nEmbd, NLayer: 1,
		NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, NFF: hp.nFF,
	}
	m.info.Name, _ = f.String("general.name")
	m.info.NParams, m.info.WeightSize = engine.TensorTotals(f)
	m.info.FileType = engine.FileTypeSummary(f)
	return m, nil
}

// draftVocab is the size of the drafter's vocabulary: d2t's length, else
// its own head's rows, else the target vocabulary it declares (0 when
// even that is unknown before binding).
func (m *Model) draftVocab() int {
	switch {
	case m.d2t != nil:
		return len(m.d2t)
	case m.output != nil:
		return m.output.Rows
	}
	return m.hp.targetVocab
}
