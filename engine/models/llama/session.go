package llama

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// session is one KV cache plus the scratch buffers of a forward pass over
// up to NBatch tokens. All buffers are sized at creation (logits grow to the
// largest output count seen), so a warm decode step allocates nothing.
type session struct {
	m     *Model
	opts  engine.SessionOptions
	pool  *kernels.Pool // shared with every session of the same thread count
	cache *kvcache.Cache
	attn  *engine.AttentionScratch
	shape engine.AttentionShape

	// Batch buffers, row i belonging to batch token i.
	x       []float32   // NBatch × nEmbd residual stream
	q       []float32   // NBatch × nHead·headDim rotated queries
	rope    []float32   // NBatch × nRot cos/sin pairs
	xn      []float32   // NBatch × nEmbd normalised input of a projection
	k, v    []float32   // NBatch × nHeadKV·headDim keys and values
	attnOut []float32   // NBatch × nHead·headDim
	proj    []float32   // NBatch × nEmbd projection output
	gate    []float32   // NBatch × nFF
	up      []float32   // NBatch × nFF
	act     []byte      // NBatch rows of activations in a weight's vec-dot format
	experts moe.Scratch // qwen3moe routing and expert buffers

	// GPU offload (offload.go): layers [nCPU, nLayer) run on gpu.
	nCPU int
	gpu  engine.Offload
	step engine.OffloadStep

	nextPos []int     // per sequence: expected position of the next token
	ropePos []int32   // per batch token: its rotary position (Batch.RopePositions)
	outIdx  []int     // batch indices with Output set
	logits  []float32 // NumOutputs × nVocab
	hidden  map[int][]float32
	taps    *engine.TapBuffer // SessionOptions.Taps, every token
	// embedOnly makes the output head stop after the final norm (rows
	// 0..NumOutputs of xn): DecodeEmbeddings sets it for one batch.
	embedOnly bool
}

// defaultCtx bounds the default context when the caller gives none.
const defaultCtx = 4096

// NewSession sizes a KV cache and scratch for the options.
func (m *Model) NewSession(o engine.SessionOptions) (engine.Session, error) {
	hp := &m.hp
	if o.NCtx <= 0 {
		o.NCtx = min(hp.nCtxTrain, defaultCtx)
	}
	if o.NSeq <= 0 {
		o.NSeq = 1
	}
	if o.NBatch <= 0 {
		o.NBatch = 512
	}
	if o.GPULayers < 0 {
		return nil, fmt.Errorf("GPU layers %d must be >= 0", o.GPULayers)
	}
	if o.Threads < 0 || o.Threads > kernels.MaxThreads {
		return nil, fmt.Errorf("threads %d out of range [0, %d]", o.Threads, kernels.MaxThreads)
	}
	o.NBatch = min(o.NBatch, o.NCtx*o.NSeq)
	if o.KVUnified {
		o.NBatch = min(o.NBatch, o.NCtx) // the pool holds NCtx cells in all
	}
	for _, l := range o.CaptureLayers {
		if l < -1 || l >= hp.nLayer {
			return nil, fmt.Errorf("capture layer %d out of range [-1, %d)", l, hp.nLayer)
		}
	}
	taps, err := engine.NewTapBuffer(o.Taps, hp.nLayer, hp.nEmbd, o.NBatch)
	if err != nil {
		return nil, err
	}
	kvDim := hp.nHeadKV * hp.headDim
	cache, err := kvcache.New(kvcache.Options{NLayer: hp.nLayer, NKV: kvDim, HeadDim: hp.headDim, NCtx: o.NCtx, NSeq: o.NSeq, TypeK: o.TypeK, TypeV: o.TypeV, Unified: o.KVUnified})
	if err != nil {
		return nil, err
	}
	qDim, nb := hp.nHead*hp.headDim, o.NBatch
	denseFF := hp.nFF // the dense FFN's width, pinned by its tensors
	if m.v.moe {
		denseFF = 0 // feed_forward_length is informative only: nothing checked it
	}
	pool := kernels.SharedPool(o.Threads)
	o.Threads = pool.Threads()
	s := &session{
		m: m, opts: o, cache: cache, pool: pool,
		attn:    engine.NewSessionAttentionScratch(o, hp.headDim, hp.nHead/hp.nHeadKV, pool.Threads()),
		shape:   engine.AttentionShape{NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, Scale: invSqrt(hp.headDim)},
		x:       make([]float32, nb*hp.nEmbd),
		q:       make([]float32, nb*qDim),
		rope:    make([]float32, nb*hp.rope.NRot),
		xn:      make([]float32, nb*hp.nEmbd),
		k:       make([]float32, nb*kvDim),
		v:       make([]float32, nb*kvDim),
		attnOut: make([]float32, nb*qDim),
		proj:    make([]float32, nb*hp.nEmbd),
		gate:    make([]float32, nb*denseFF),
		up:      make([]float32, nb*denseFF),
		act:     make([]byte, nb*m.maxActivationBytes()),
		nextPos: make([]int, o.NSeq),
		ropePos: make([]int32, 0, o.NBatch),
		outIdx:  make([]int, 0, o.NBatch),
		hidden:  map[int][]float32{},
		taps:    taps,
	}
	if m.v.moe {
		s.experts = moe.NewScratch(hp.moe, nb)
	}
	s.nCPU = hp.nLayer
	if o.GPULayers > 0 {
		if err := s.startOffload(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// maxActivationBytes is the largest vec-dot activation any matrix needs.
func (m *Model) maxActivationBytes() int {
	n := max(m.output.ActivationBytes(), m.tokEmbd.ActivationBytes())
	for i := range m.layers {
		l := &m.layers[i]
		ms := []*engine.Matrix{l.wq, l.wk, l.wv, l.wo, l.gate, l.up, l.down}
		if l.experts != nil {
			ms = append(ms[:4], l.experts.Matrices()...)
		}
		for _, w := range ms {
			n = max(n, w.ActivationBytes())
		}
	}
	return n
}

func (s *session) Options() engine.SessionOptions { return s.opts }
func (s *session) Cache() *kvcache.Cache          { return s.cache }
func (s *session) SeqLen(seq int) int {
	if seq < 0 || seq >= s.opts.NSeq {
		return 0
	}
	return s.cache.Len(seq)
}
func (s *session) Truncate(seq, pos int) error { return s.cache.Truncate(seq, pos) }
func (s *session) Fork(src, dst, n int) error {
	if err := s.cache.Fork(src, dst, n); err != nil {
		return err
	}
	if s.gpu != nil && src != dst {
		s.gpu.Invalidate(dst) // its copied last page may reuse a page the device holds other rows in
	}
	return nil
}
func (s *session) NumOutputs() int { return len(s.outIdx) }

// Logits returns nil after DecodeEmbeddings, which computes none.
func (s *session) Logits(k int) []float32 {
	if s.embedOnly {
		return nil
	}
	nv := s.m.hp.nVocab
	return s.logits[k*nv : (k+1)*nv]
}

// Tapped returns batch token i's captured taps (engine.Tapper).
func (s *session) Tapped(i int) []float32 { return s.taps.Row(i) }

func (s *session) Hidden(layer, k int) []float32 {
	h, ok := s.hidden[layer]
	if !ok || k < 0 || (k+1)*s.m.hp.nEmbd > len(h) {
		return nil
	}
	return h[k*s.m.hp.nEmbd : (k+1)*s.m.hp.nEmbd]
}

// validate checks the batch and reserves its cache room (engine.PlanBatch).
func (s *session) validate(b *engine.Batch) error {
	return engine.PlanBatch("llama", b, s.cache, s.opts, s.m.hp.nVocab, s.nextPos, nil)
}

// Decode runs the batch through the network.
func (s *session) Decode(b *engine.Batch) error { return s.decode(b, false) }

// DecodeEmbeddings runs the batch like Decode but skips the output head:
// the outputs are the final normalised hidden states (engine.Embedder).
func (s *session) DecodeEmbeddings(b *engine.Batch) error { return s.decode(b, true) }

// Embedding returns the k-th output's final normalised hidden state after
// DecodeEmbeddings: row k of xn, where the output head left it.
func (s *session) Embedding(k int) []float32 {
	if !s.embedOnly || k < 0 || k >= len(s.outIdx) {
		return nil
	}
	return s.row(s.xn, k, s.m.hp.nEmbd)
}

func (s *session) decode(b *engine.Batch, embedOnly bool) error {
	if err := s.validate(b); err != nil {
		return err
	}
	s.embedOnly = embedOnly
	s.outIdx = s.outIdx[:0]
	for i, o := range b.Output {
		if o {
			s.outIdx = append(s.outIdx, i)
		}
	}
	if err := s.forward(b); err != nil {
		return err
	}
	for seq, n := range s.nextPos {
		s.cache.SetLen(seq, n)
	}
	return nil
}
