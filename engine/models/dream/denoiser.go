package dream

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// denoiser runs bidirectional forwards over [prefix | canvas] for up to
// NSeq sequences at once. Keys and values live in an f32 cache (the
// precision of llama.cpp's cache-less encode path); every buffer is sized
// at creation for NSeq·NCtx rows, so a warm Denoise allocates nothing.
type denoiser struct {
	m     *Model
	opts  engine.DenoiserOptions
	pool  *kernels.Pool
	cache *kvcache.Cache
	attn  *engine.AttentionScratch
	shape engine.AttentionShape

	prefix  [][]int32 // per sequence
	warm    []bool    // per sequence: its cached prefix rows are valid
	inBatch []bool    // per sequence: in the current Denoise

	rows rowSet // the rows of the current forward

	// Row buffers, row r belonging to rows entry r.
	x, xn, proj []float32 // nEmbd wide
	q, attnOut  []float32 // nHead·headDim
	k, v        []float32 // nHeadKV·headDim
	rope        []float32 // nRot
	gate, up    []float32 // nFF
	act         []byte
	experts     moe.Scratch

	outChunk int       // rows per output-head product
	logits   []float32 // outChunk × nVocab
	outRows  []int     // rows entries whose logits are wanted, in visit order
	outCanv  []int     // canvas index k of each
	outPos   []int     // canvas position i of each
}

// rowSet is one forward's batch: token, position, sequence and the last
// position it may attend to (its sequence's last, which is what makes the
// attention bidirectional) of every row.
type rowSet struct {
	tokens, pos, seq, last []int32
	first                  []int // per canvas k: its first row in the set
	start                  []int // per canvas k: the position of that row
}

func (r *rowSet) reset() {
	r.tokens, r.pos, r.seq, r.last = r.tokens[:0], r.pos[:0], r.seq[:0], r.last[:0]
	r.first, r.start = r.first[:0], r.start[:0]
}

// defaultCtx bounds the default context when the caller gives none.
const defaultCtx = 4096

// NewDenoiser sizes the cache and buffers for o.NSeq sequences of o.NCtx
// positions.
func (m *Model) NewDenoiser(o engine.DenoiserOptions) (engine.Denoiser, error) {
	hp := &m.hp
	if o.NCtx <= 0 {
		o.NCtx = min(hp.nCtxTrain, defaultCtx)
	}
	if o.NSeq <= 0 {
		o.NSeq = 1
	}
	if o.Threads < 0 || o.Threads > kernels.MaxThreads {
		return nil, fmt.Errorf("threads %d out of range [0, %d]", o.Threads, kernels.MaxThreads)
	}
	if o.NSeq > 1<<12 || o.NCtx > 1<<20 || o.NSeq*o.NCtx > 1<<22 {
		return nil, fmt.Errorf("%d sequences of %d positions is more than a denoiser holds", o.NSeq, o.NCtx)
	}
	kvDim := hp.nHeadKV * hp.headDim
	cache, err := kvcache.New(kvcache.Options{NLayer: hp.nLayer, NKV: kvDim, HeadDim: hp.headDim, NCtx: o.NCtx, NSeq: o.NSeq, TypeK: kvcache.F32, TypeV: kvcache.F32})
	if err != nil {
		return nil, err
	}
	pool := kernels.SharedPool(o.Threads)
	o.Threads = pool.Threads()
	nb, qDim := o.NSeq*o.NCtx, hp.nHead*hp.headDim
	sess := engine.SessionOptions{NCtx: o.NCtx, FlashAttn: o.FlashAttn, TypeK: kvcache.F32, TypeV: kvcache.F32}
	f := func(n int) []float32 { return make([]float32, n) }
	d := &denoiser{
		m: m, opts: o, pool: pool, cache: cache,
		attn:   engine.NewSessionAttentionScratch(sess, hp.headDim, hp.nHead/hp.nHeadKV, pool.Threads()),
		shape:  engine.AttentionShape{NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, Scale: invSqrt(hp.headDim)},
		prefix: make([][]int32, o.NSeq), warm: make([]bool, o.NSeq), inBatch: make([]bool, o.NSeq),
		x: f(nb * hp.nEmbd), xn: f(nb * hp.nEmbd), proj: f(nb * hp.nEmbd),
		q: f(nb * qDim), attnOut: f(nb * qDim), k: f(nb * kvDim), v: f(nb * kvDim),
		rope: f(nb * hp.rope.NRot), gate: f(nb * hp.nFF), up: f(nb * hp.nFF),
		act: make([]byte, nb*m.maxActivationBytes()),
	}
	if m.v.moe {
		d.experts = moe.NewScratch(hp.moe, nb)
	}
	for i := range d.prefix {
		d.prefix[i] = make([]int32, 0, o.NCtx)
	}
	// The output head runs over chunks of at most 16 Mi logits (64 MiB),
	// so a large vocabulary never holds a whole canvas of logits.
	d.outChunk = max(1, min(nb, (16<<20)/hp.nVocab))
	d.logits = f(d.outChunk * hp.nVocab)
	d.outRows, d.outCanv, d.outPos = make([]int, 0, nb), make([]int, 0, nb), make([]int, 0, nb)
	r := &d.rows
	r.tokens, r.pos, r.seq, r.last = make([]int32, 0, nb), make([]int32, 0, nb), make([]int32, 0, nb), make([]int32, 0, nb)
	r.first, r.start = make([]int, 0, o.NSeq), make([]int, 0, o.NSeq)
	return d, nil
}

func invSqrt(n int) float32 { return float32(1 / math.Sqrt(float64(n))) }

// maxActivationBytes is the largest vec-dot activation any matrix needs.
func (m *Model) maxActivationBytes() int {
	n := max(m.output.ActivationBytes(), m.tokEmbd.ActivationBytes())
	for i := range m.layers {
		l := &m.layers[i]
		ms := []*engine.Matrix{l.wq, l.wk, l.wv, l.wo}
		if l.experts != nil {
			ms = append(ms, l.experts.Matrices()...)
		} else {
			ms = append(ms, l.gate, l.up, l.down)
		}
		for _, w := range ms {
			n = max(n, w.ActivationBytes())
		}
	}
	return n
}

func (d *denoiser) Options() engine.DenoiserOptions { return d.opts }

func (d *denoiser) SetPrefix(seq int, tokens []int32) error {
	if seq < 0 || seq >= d.opts.NSeq {
		return fmt.Errorf("%s: sequence %d out of range [0, %d)", d.m.v.arch, seq, d.opts.NSeq)
	}
	if len(tokens) == 0 {
		return fmt.Errorf("%s: the prefix is empty", d.m.v.arch)
	}
	if len(tokens) >= d.opts.NCtx {
		return fmt.Errorf("%w: a prefix of %d tokens leaves no canvas in %d positions", engine.ErrContextFull, len(tokens), d.opts.NCtx)
	}
	if err := d.checkTokens(tokens); err != nil {
		return err
	}
	d.prefix[seq] = append(d.prefix[seq][:0], tokens...)
	d.warm[seq] = false
	return nil
}

func (d *denoiser) Release(seq int) {
	if seq < 0 || seq >= d.opts.NSeq {
		return
	}
	d.prefix[seq] = d.prefix[seq][:0]
	d.warm[seq] = false
	_ = d.cache.Truncate(seq, 0)
}

func (d *denoiser) checkTokens(tokens []int32) error {
	for i, t := range tokens {
		if t < 0 || int(t) >= d.m.hp.nVocab {
			return fmt.Errorf("%s: token %d at index %d outside the vocabulary [0, %d)", d.m.v.arch, t, i, d.m.hp.nVocab)
		}
	}
	return nil
}

// Denoise runs one forward over every canvas and visits the wanted rows.
func (d *denoiser) Denoise(cs []engine.Canvas, visit func(k, i int, logits []float32)) error {
	if err := d.plan(cs); err != nil {
		return err
	}
	d.forward()
	for _, c := range cs {
		if d.opts.CachePrefix {
			d.warm[c.Seq] = true
		}
	}
	d.outputHead(cs, visit)
	return nil
}

// plan checks the canvases, reserves their cache room and lays out the
// rows of the forward: a sequence whose prefix is cached contributes only
// its canvas (and, with shifted logits, the last prefix row, which
// predicts the first canvas position); any other all of [prefix | canvas].
func (d *denoiser) plan(cs []engine.Canvas) error {
	if len(cs) == 0 {
		return fmt.Errorf("%s: no canvas to denoise", d.m.v.arch)
	}
	r := &d.rows
	r.reset()
	clear(d.inBatch)
	for k, c := range cs {
		if err := d.checkCanvas(c, k); err != nil {
			return err
		}
		p := d.prefix[c.Seq]
		n := len(p) + len(c.Tokens)
		start := 0
		if d.opts.CachePrefix && d.warm[c.Seq] {
			start = len(p)
			if d.m.diff.ShiftLogits {
				start--
			}
		}
		r.first, r.start = append(r.first, len(r.tokens)), append(r.start, start)
		for pos := start; pos < n; pos++ {
			tok := int32(0)
			if pos < len(p) {
				tok = p[pos]
			} else {
				tok = c.Tokens[pos-len(p)]
			}
			r.tokens, r.pos = append(r.tokens, tok), append(r.pos, int32(pos))
			r.seq, r.last = append(r.seq, int32(c.Seq)), append(r.last, int32(n-1))
		}
	}
	for _, c := range cs {
		n := len(d.prefix[c.Seq]) + len(c.Tokens)
		if d.cache.Len(c.Seq) > n {
			_ = d.cache.Truncate(c.Seq, n)
		}
		if err := d.cache.Reserve(c.Seq, n); err != nil {
			return fmt.Errorf("%s: %w", d.m.v.arch, err)
		}
		d.cache.SetLen(c.Seq, n)
	}
	return nil
}

// checkCanvas validates canvas k and marks its sequence (a sequence may
// appear once per forward).
func (d *denoiser) checkCanvas(c engine.Canvas, k int) error {
	arch := d.m.v.arch
	if c.Seq < 0 || c.Seq >= d.opts.NSeq {
		return fmt.Errorf("%s: canvas %d: sequence %d out of range [0, %d)", arch, k, c.Seq, d.opts.NSeq)
	}
	if len(d.prefix[c.Seq]) == 0 {
		return fmt.Errorf("%s: canvas %d: sequence %d has no prefix (SetPrefix first)", arch, k, c.Seq)
	}
	if len(c.Tokens) == 0 {
		return fmt.Errorf("%s: canvas %d is empty", arch, k)
	}
	if c.Need != nil && len(c.Need) != len(c.Tokens) {
		return fmt.Errorf("%s: canvas %d: Need has %d entries for %d tokens", arch, k, len(c.Need), len(c.Tokens))
	}
	if n := len(d.prefix[c.Seq]) + len(c.Tokens); n > d.opts.NCtx {
		return fmt.Errorf("%w: sequence %d needs %d positions, the denoiser holds %d", engine.ErrContextFull, c.Seq, n, d.opts.NCtx)
	}
	if d.inBatch[c.Seq] {
		return fmt.Errorf("%s: sequence %d appears twice in one Denoise", arch, c.Seq)
	}
	d.inBatch[c.Seq] = true
	return d.checkTokens(c.Tokens)
}
