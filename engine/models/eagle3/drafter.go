package eagle3

import (
	"fmt"
	"slices"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// Drafter is a bound EAGLE-3 drafter: the model, the matrices it borrows,
// its one-layer KV cache and the scratch of a pass over up to NBatch rows.
// Buffers are sized at creation, so a warm Decode allocates nothing.
type Drafter struct {
	m     *Model
	opts  engine.SessionOptions
	pool  *kernels.Pool
	cache *kvcache.Cache
	attn  *engine.AttentionScratch
	shape engine.AttentionShape
	embd  *engine.Matrix // token embeddings: own or the target's
	head  *engine.Matrix // output head: own (draft vocabulary) or the target's

	// Rows of one pass, row i belonging to batch token i.
	xin     []float32 // normed fused input (norm_before_fc, fc_norm), 3·D
	s       []float32 // residual stream, d
	u       []float32 // attention input: normed embedding, normed feature; 2·d
	q       []float32 // rotated queries
	k, v    []float32 // keys and values
	rope    []float32 // cos/sin pairs
	attnOut []float32
	proj    []float32 // projection output, d
	xn      []float32 // normed rows, d
	gate    []float32 // n_ff
	up      []float32 // n_ff
	act     []byte    // activations in a weight's vec-dot format
	nextPos []int
	ropePos []int32 // per batch token: its rotary position (Batch.RopePositions)
	outIdx  []int
	logits  []float32 // NumOutputs × draft vocabulary
	next    []float32 // NumOutputs × d
}

// defaultCtx bounds the context when the options give none.
const defaultCtx = 4096

// NewFeatureDrafter binds the drafter to target (engine.FeatureDrafterModel).
func (m *Model) NewFeatureDrafter(target engine.Model, o engine.SessionOptions) (engine.FeatureDrafter, error) {
	return m.Bind(target, o)
}

// Bind checks that the drafter fits target and sizes its KV cache and
// scratch for o.
func (m *Model) Bind(target engine.Model, o engine.SessionOptions) (*Drafter, error) {
	embd, head, err := m.resolve(target)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	hp := &m.hp
	if o.NCtx <= 0 {
		o.NCtx = min(hp.nCtxTrain, defaultCtx)
	}
	o.NSeq, o.NBatch = max(o.NSeq, 1), max(o.NBatch, 0)
	if o.NBatch == 0 {
		o.NBatch = 512
	}
	if o.Threads < 0 || o.Threads > kernels.MaxThreads {
		return nil, fmt.Errorf("%s: threads %d out of range [0, %d]", arch, o.Threads, kernels.MaxThreads)
	}
	o.NBatch = min(o.NBatch, o.NCtx*o.NSeq)
	if o.KVUnified {
		o.NBatch = min(o.NBatch, o.NCtx)
	}
	o.CaptureLayers = nil
	kvDim := hp.nHeadKV * hp.headDim
	cache, err := kvcache.New(kvcache.Options{NLayer: 1, NKV: kvDim, HeadDim: hp.headDim, NCtx: o.NCtx, NSeq: o.NSeq, TypeK: o.TypeK, TypeV: o.TypeV, Unified: o.KVUnified})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	pool := kernels.SharedPool(o.Threads)
	o.Threads = pool.Threads()
	d, qd, nb := hp.nEmbd, hp.nHead*hp.headDim, o.NBatch
	dr := &Drafter{
		m: m, opts: o, pool: pool, cache: cache, embd: embd, head: head,
		attn:    engine.NewSessionAttentionScratch(o, hp.headDim, hp.nHead/hp.nHeadKV, pool.Threads()),
		shape:   engine.AttentionShape{NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, Scale: invSqrt(hp.headDim)},
		s:       make([]float32, nb*d),
		u:       make([]float32, nb*2*d),
		q:       make([]float32, nb*qd),
		k:       make([]float32, nb*kvDim),
		v:       make([]float32, nb*kvDim),
		rope:    make([]float32, nb*hp.rope.NRot),
		attnOut: make([]float32, nb*qd),
		proj:    make([]float32, nb*d),
		xn:      make([]float32, nb*d),
		gate:    make([]float32, nb*hp.nFF),
		up:      make([]float32, nb*hp.nFF),
		act:     make([]byte, nb*maxActBytes(m, head)),
		nextPos: make([]int, o.NSeq),
		ropePos: make([]int32, 0, nb),
		outIdx:  make([]int, 0, nb),
		logits:  make([]float32, 0, head.Rows),
		next:    make([]float32, 0, d),
	}
	if hp.normBeforeFC || hp.fcNorm {
		dr.xin = make([]float32, nb*nTaps*hp.targetEmbd)
	}
	return dr, nil
}

// maxActBytes is the largest vec-dot activation row any matrix of a pass
// needs.
func maxActBytes(m *Model, head *engine.Matrix) int {
	n := head.ActivationBytes()
	b := &m.blk
	for _, w := range []*engine.Matrix{m.fc, b.wq, b.wk, b.wv, b.wo, b.gate, b.up, b.down} {
		n = max(n, w.ActivationBytes())
	}
	return n
}

// resolve checks the drafter against target and returns the embeddings
// and head it runs with.
func (m *Model) resolve(target engine.Model) (embd, head *engine.Matrix, err error) {
	hp := &m.hp
	ti := target.Info()
	if ti.NEmbd != hp.targetEmbd {
		return nil, nil, fmt.Errorf("the drafter was trained for a target of hidden size %d; %s has %d", hp.targetEmbd, targetName(ti), ti.NEmbd)
	}
	if top := slices.Max(hp.layers[:]); top > ti.NLayer {
		return nil, nil, fmt.Errorf("the drafter fuses target layer %d; %s has %d layers", top, targetName(ti), ti.NLayer)
	}
	if hp.targetVocab > 0 && hp.targetVocab != ti.NVocab {
		return nil, nil, fmt.Errorf("the drafter was trained for a vocabulary of %d tokens; %s has %d", hp.targetVocab, targetName(ti), ti.NVocab)
	}
	embd, head = m.tokEmbd, m.output
	if embd == nil || head == nil {
		hs, ok := target.(engine.HeadSharer)
		if !ok {
			return nil, nil, fmt.Errorf("the drafter borrows the target's token embeddings or output head, which %s does not share", targetName(ti))
		}
		te, to := hs.SharedHead()
		if embd == nil {
			embd = te
		}
		if head == nil {
			head = to
		}
	}
	if embd.Rows != ti.NVocab || embd.Cols != hp.nEmbd {
		return nil, nil, fmt.Errorf("token embeddings of %d×%d do not fit a drafter of width %d for a vocabulary of %d", embd.Rows, embd.Cols, hp.nEmbd, ti.NVocab)
	}
	if head.Cols != hp.nEmbd {
		return nil, nil, fmt.Errorf("the output head's rows have %d values, the drafter's width is %d", head.Cols, hp.nEmbd)
	}
	if m.d2t == nil && head.Rows != ti.NVocab {
		return nil, nil, fmt.Errorf("the drafter's head covers %d tokens without a d2t map; %s has %d", head.Rows, targetName(ti), ti.NVocab)
	}
	for i, t := range m.d2t {
		if int(t) >= ti.NVocab {
			return nil, nil, fmt.Errorf("d2t maps draft id %d to token %d, outside the %d tokens of %s", i, t, ti.NVocab, targetName(ti))
		}
	}
	return embd, head, nil
}

func targetName(ti *engine.Info) string {
	if ti.Name != "" {
		return fmt.Sprintf("the target (%s, %q)", ti.Arch, ti.Name)
	}
	return fmt.Sprintf("the target (%s)", ti.Arch)
}

// Options returns the effective options.
func (dr *Drafter) Options() engine.SessionOptions { return dr.opts }

// Cache exposes the drafter's KV cache.
func (dr *Drafter) Cache() *kvcache.Cache { return dr.cache }

// SeqLen returns the number of positions held for sequence seq.
func (dr *Drafter) SeqLen(seq int) int {
	if seq < 0 || seq >= dr.opts.NSeq {
		return 0
	}
	return dr.cache.Len(seq)
}

// Truncate drops positions >= pos of sequence seq.
func (dr *Drafter) Truncate(seq, pos int) error { return dr.cache.Truncate(seq, pos) }

// NumOutputs is the number of outputs of the last Decode.
func (dr *Drafter) NumOutputs() int { return len(dr.outIdx) }

// Logits returns output k's logits over the draft vocabulary.
func (dr *Drafter) Logits(k int) []float32 {
	nv := dr.head.Rows
	return dr.logits[k*nv : (k+1)*nv]
}

// Next returns output k's state to feed back: the pre-norm output h, or
// with norm_output the normed one.
func (dr *Drafter) Next(k int) []float32 {
	d := dr.m.hp.nEmbd
	return dr.next[k*d : (k+1)*d]
}

// DraftVocab maps draft ids to target ids (nil: the same vocabulary).
func (dr *Drafter) DraftVocab() []int32 { return dr.m.d2t }
