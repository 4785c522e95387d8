package qwen35

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// session is the KV cache of the full-attention layers and of the DeltaNet
// layers' live recurrent state, what rolls that state back (state.go) and
// the scratch of a forward pass over up to NBatch tokens. Buffers are sized at creation (logits grow to the
// largest output count seen), so a warm decode step allocates nothing.
type session struct {
	m     *Model
	opts  engine.SessionOptions
	pool  *kernels.Pool
	cache *kvcache.Cache
	rs    *recurrent
	attn  *engine.AttentionScratch
	shape engine.AttentionShape
	buf   buffers
	plan  batchPlan
	delta deltaTask
	moe   moeScratch
	hyb   Options

	replayT replayTask
	// hist holds NSeq × NCtx tokens by position (checkpoints only). It is
	// read only from a checkpoint's length up (fromCheckpoint), and every
	// checkpoint was taken by this session's own forward pass, which
	// wrote the tokens from that length on; see adopt for restored
	// sequences.
	hist []int32
	// gen is the cache's Generation of each sequence when this session
	// last looked (adopt).
	gen  []uint64
	redo engine.Batch // re-decoding from a checkpoint

	nextPos []int
	ropePos []int32 // per batch token: its rotary position (Batch.RopePositions)
	parent  []int32 // the batch's Parent during a forward pass (tree.go)
	outIdx  []int
	logits  []float32
	hidden  map[int][]float32
	taps    *engine.TapBuffer // SessionOptions.Taps, every token
	// embedOnly makes the output head stop after the final norm (rows
	// 0..NumOutputs of buf.xn): DecodeEmbeddings sets it for one batch.
	embedOnly bool
}

// defaultCtx bounds the default context when the caller gives none.
const defaultCtx = 4096

// Options are the hybrid-model settings of a session that
// engine.SessionOptions does not carry.
type Options struct {
	// Rollback chooses how truncation into a multi-token Decode is served
	// (state.go): RollbackReplay (default) or RollbackSnapshots.
	Rollback Rollback
	// Depth is how many trailing tokens of a multi-token Decode stay
	// reachable by Truncate (0: DefaultDepth). A verify batch longer than
	// Depth can only be kept whole or dropped to its last Depth tokens.
	Depth int
	// CtxCheckpoints is llama-server's --ctx-checkpoints: whole-state
	// checkpoints kept per sequence for prompt-prefix reuse (0: none;
	// checkpoint.go).
	CtxCheckpoints int
	// CheckpointEvery is --checkpoint-every-n-tokens: also checkpoint every
	// that many tokens inside multi-token Decodes (≤ 0: only at prompt
	// ends).
	CheckpointEvery int
}

// With returns m as an engine.Model whose NewSession uses o, for callers
// that only see engine.Model (cmd/waggle wires the server's checkpoint
// flags this way).
func (m *Model) With(o Options) engine.Model { return withOptions{m, o} }

type withOptions struct {
	*Model
	o Options
}

func (w withOptions) NewSession(so engine.SessionOptions) (engine.Session, error) {
	return w.Model.NewSessionWith(so, w.o)
}

// NewSession sizes the caches and scratch for the options, with the
// default hybrid Options.
func (m *Model) NewSession(o engine.SessionOptions) (engine.Session, error) {
	return m.NewSessionWith(o, Options{})
}

// NewSessionWith is NewSession with explicit hybrid-model options.
func (m *Model) NewSessionWith(o engine.SessionOptions, h Options) (engine.Session, error) {
	hp := &m.hp
	if err := engine.RefuseOffload("qwen35", o); err != nil {
		return nil, err
	}
	if err := m.defaults(&o); err != nil {
		return nil, err
	}
	if h.Depth == 0 {
		h.Depth = DefaultDepth
	}
	if h.Depth < 1 || h.Depth > 4096 {
		return nil, fmt.Errorf("qwen35: rollback depth %d out of range [1, 4096]", h.Depth)
	}
	if h.Rollback < RollbackReplay || h.Rollback > RollbackFaultNoRestore {
		return nil, fmt.Errorf("qwen35: unknown rollback strategy %d", int(h.Rollback))
	}
	if h.CtxCheckpoints < 0 || h.CtxCheckpoints > 1024 {
		return nil, fmt.Errorf("qwen35: %d context checkpoints out of range [0, 1024]", h.CtxCheckpoints)
	}
	taps, err := engine.NewTapBuffer(o.Taps, hp.nLayer, hp.nEmbd, o.NBatch)
	if err != nil {
		return nil, err
	}
	kvDim := hp.nHeadKV * hp.headDim
	cache, err := kvcache.New(kvcache.Options{NLayer: m.nAttn, NKV: kvDim, HeadDim: hp.headDim, NCtx: o.NCtx, NSeq: o.NSeq,
		TypeK: o.TypeK, TypeV: o.TypeV, Unified: o.KVUnified, Recurrent: recurrentSize(hp, m.nDelta)})
	if err != nil {
		return nil, err
	}
	pool := kernels.SharedPool(o.Threads)
	o.Threads = pool.Threads()
	s := &session{
		m: m, opts: o, cache: cache, pool: pool,
		hyb:     h,
		rs:      newRecurrent(hp, m.nDelta, o.NSeq, h.Depth, h.Rollback, h.CtxCheckpoints, cache),
		attn:    engine.NewSessionAttentionScratch(o, hp.headDim, hp.nHead/hp.nHeadKV, pool.Threads()),
		shape:   engine.AttentionShape{NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim, Scale: hp.attnScale},
		buf:     newBuffers(m, o.NBatch),
		plan:    newBatchPlan(o.NSeq, o.NBatch, h.Depth),
		nextPos: make([]int, o.NSeq),
		ropePos: make([]int32, 0, o.NBatch),
		gen:     make([]uint64, o.NSeq),
		outIdx:  make([]int, 0, o.NBatch),
		hidden:  map[int][]float32{},
		taps:    taps,
	}
	s.delta.init(s, pool.Threads())
	s.replayT.s = s
	if h.CtxCheckpoints > 0 {
		s.hist = make([]int32, o.NSeq*o.NCtx)
		s.redo = engine.Batch{Tokens: make([]int32, 0, o.NBatch), Pos: make([]int32, 0, o.NBatch),
			Seq: make([]int32, 0, o.NBatch), Output: make([]bool, 0, o.NBatch)}
	}
	if m.v.moe {
		s.moe = newMoEScratch(hp, o.NBatch)
	}
	return s, nil
}

// defaults fills in and checks the session options.
func (m *Model) defaults(o *engine.SessionOptions) error {
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
	if o.Threads < 0 || o.Threads > kernels.MaxThreads {
		return fmt.Errorf("threads %d out of range [0, %d]", o.Threads, kernels.MaxThreads)
	}
	o.NBatch = min(o.NBatch, o.NCtx*o.NSeq)
	if o.KVUnified {
		o.NBatch = min(o.NBatch, o.NCtx)
	}
	for _, l := range o.CaptureLayers {
		if l < -1 || l >= hp.nLayer {
			return fmt.Errorf("capture layer %d out of range [-1, %d)", l, hp.nLayer)
		}
	}
	return nil
}

func (s *session) Options() engine.SessionOptions { return s.opts }
func (s *session) Cache() *kvcache.Cache          { return s.cache }
func (s *session) NumOutputs() int                { return len(s.outIdx) }

func (s *session) SeqLen(seq int) int {
	if seq < 0 || seq >= s.opts.NSeq {
		return 0
	}
	return s.cache.Len(seq)
}

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

func (s *session) checkSeq(seq int) error {
	if seq < 0 || seq >= s.opts.NSeq {
		return fmt.Errorf("qwen35: sequence %d out of range [0, %d)", seq, s.opts.NSeq)
	}
	return nil
}

// Truncate drops positions >= pos of seq: the attention cells are cut and
// the recurrent state is restored from the snapshot at pos or replayed from
// the tape (state.go), else rebuilt from a checkpoint by re-decoding
// (checkpoint.go); when none of them can, it returns ErrNoSnapshot and
// changes nothing.
func (s *session) Truncate(seq, pos int) error {
	if err := s.checkSeq(seq); err != nil {
		return err
	}
	if pos < 0 {
		return fmt.Errorf("qwen35: truncate sequence %d to negative position %d", seq, pos)
	}
	s.adopt(seq)
	if pos == 0 {
		s.rs.dropAbove(seq, -1)
		return s.cache.Truncate(seq, 0) // zeroes the recurrent state
	}
	if cur := s.cache.Len(seq); pos < cur {
		if err := s.truncateState(seq, pos, cur); err != nil {
			return s.truncateFallback(seq, pos, err)
		}
	}
	return s.cache.Truncate(seq, pos)
}

// adopt takes over a sequence that the cache replaced behind the session's
// back: kvcache.Cache.RestoreState (slot restore, the server's --cache-ram)
// loads the attention rows and the recurrent state together, so the
// sequence is consistent, and advances the sequence's Generation. What
// the session keeps about the old tokens — snapshots, the tape,
// checkpoints — is dropped. Its token history (hist) below the restored
// length stays stale but is never read: re-decoding starts at a
// checkpoint, and the checkpoints taken from now on lie above that
// length, where this session's forward passes write hist. So a restored
// sequence is truncatable within what it decodes next, and below its
// restored length only to 0 (ErrNoSnapshot otherwise), until then. It
// returns nil (it is engine.PlanBatch's per-sequence check).
func (s *session) adopt(seq int) error {
	if g := s.cache.Generation(seq); g != s.gen[seq] {
		s.rs.dropAbove(seq, -1)
		s.gen[seq] = g
	}
	return nil
}

// Fork makes dst a copy of the first n positions of src, recurrent state
// included (from src's live state, its snapshot at n or its tape;
// ErrNoSnapshot otherwise, with nothing changed).
func (s *session) Fork(src, dst, n int) error {
	if err := s.checkSeq(src); err != nil {
		return err
	}
	if err := s.checkSeq(dst); err != nil {
		return err
	}
	if src == dst {
		return s.Truncate(dst, n)
	}
	s.adopt(src)
	s.adopt(dst)
	cur := s.cache.Len(src)
	if n < 0 || n > cur {
		return fmt.Errorf("qwen35: fork %d positions of sequence %d, which holds %d", n, src, cur)
	}
	if !s.rs.available(src, n, cur) {
		return fmt.Errorf("%w: fork of sequence %d at %d (length %d, kept: %s)", ErrNoSnapshot, src, n, cur, s.rs.kept(src))
	}
	if err := s.cache.Fork(src, dst, n); err != nil {
		s.rs.dropAbove(dst, -1) // the cache left dst empty, its state zero
		return err
	}
	if n != cur {
		s.restore(src, dst, n, cur) // the cache copied only a whole state
	}
	s.rs.dropAbove(dst, -1)
	if s.hist != nil {
		copy(s.hist[dst*s.opts.NCtx:dst*s.opts.NCtx+n], s.hist[src*s.opts.NCtx:])
	}
	return nil
}

// validate checks the batch and reserves its cache room (engine.PlanBatch);
// a sequence restored into the cache is adopted.
func (s *session) validate(b *engine.Batch) error {
	return engine.PlanBatch("qwen35", b, s.cache, s.opts, s.m.hp.nVocab, s.nextPos, s.adopt)
}

// Decode runs the batch through the network.
func (s *session) Decode(b *engine.Batch) error { return s.decode(b, false) }

// DecodeEmbeddings runs the batch like Decode but skips the output head:
// the outputs are the final normalised hidden states (engine.Embedder).
func (s *session) DecodeEmbeddings(b *engine.Batch) error { return s.decode(b, true) }

// Embedding returns the k-th output's final normalised hidden state after
// DecodeEmbeddings: row k of buf.xn, where the output head left it.
func (s *session) Embedding(k int) []float32 {
	if !s.embedOnly || k < 0 || k >= len(s.outIdx) {
		return nil
	}
	return row(s.buf.xn, k, s.m.hp.nEmbd)
}

func (s *session) decode(b *engine.Batch, embedOnly bool) error {
	if err := s.checkTree(b); err != nil {
		return err
	}
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
	s.plan.build(b, s.cache, s.rs, s.hyb.CheckpointEvery)
	if s.hist != nil {
		for i, tok := range b.Tokens {
			s.hist[int(b.Seq[i])*s.opts.NCtx+int(b.Pos[i])] = tok
		}
	}
	s.parent = b.Parent
	s.forward(b)
	s.parent = nil
	s.saveEndCheckpoints()
	for seq, n := range s.nextPos {
		s.cache.SetLen(seq, n)
	}
	return nil
}
