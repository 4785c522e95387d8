package engine

import (
	"fmt"
	"sync/atomic"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// AttentionScratch holds the per-session buffers of Attend and AttendBatch,
// one set per pool worker, sized once for the session's context so the
// decode loop never allocates.
type AttentionScratch struct {
	workers []attnWorker
	task    attendTask
	flash   bool // the online-softmax path (attention_flash.go)
}

// attnWorker is one worker's scratch for one (token, KV head) at a time.
type attnWorker struct {
	probs []byte         // probabilities in the value cache's format (f16, bf16)
	spans []kvcache.Span // the sequence's runs of consecutive cells
	group groupScratch   // see attention_types.go
	flash flashState     // see attention_flash.go
}

// NewAttentionScratch sizes scratch for nCtx positions of heads of headDim,
// for a pool of up to workers threads (at least 1).
//
// group is the number of query heads per KV head (NHead/NHeadKV): a KV
// head's query heads are attended together (attention_types.go).
func NewAttentionScratch(nCtx, headDim, group int, typeK, typeV kvcache.Type, workers int) *AttentionScratch {
	s := &AttentionScratch{workers: make([]attnWorker, max(workers, 1))}
	for i := range s.workers {
		w := attnWorker{group: newGroupScratch(nCtx, headDim, group, typeK, typeV)}
		if vt := typeV.DType(); vt == kernels.F16 || vt == kernels.BF16 {
			w.probs = make([]byte, vt.RowBytes(nCtx)) // the probabilities rounded to the value type
		}
		s.workers[i] = w
	}
	return s
}

// AttentionShape describes the heads of one attention layer.
type AttentionShape struct {
	NHead, NHeadKV, HeadDim int
	Scale                   float32 // usually 1/sqrt(HeadDim)
}

// Attend computes causal softmax attention of one query position over the
// first n cached positions of (layer, seq), the way llama.cpp does without
// flash attention: scores = K·q (q converted to the key type's vec-dot
// format, so an f16 cache rounds q to f16), softmax(scale·scores), then
// out = Σ p_j·V_j with p rounded to the value type (f16 for an f16 cache).
// q and out hold NHead*HeadDim values; query head h reads KV head
// h/(NHead/NHeadKV) (grouped-query attention). It runs on the caller.
// A scratch from NewFlashAttentionScratch runs the online-softmax path
// instead (attention_flash.go).
func Attend(out, q []float32, c *kvcache.Cache, layer, seq, n int, sh AttentionShape, s *AttentionScratch) {
	a := attendTask{c: c, layer: layer, sh: sh, flash: s.flash}
	a.bind()
	w := &s.workers[0]
	w.spans = c.Spans(seq, n, w.spans)
	for g0 := 0; g0 < sh.NHeadKV; g0 += attnBlock {
		a.kvGroups(w, out, q, n, g0, min(g0+attnBlock, sh.NHeadKV))
	}
}

// AttendBatch runs Attend for every token i of a batch: the query row
// q[i*D:(i+1)*D] (D = NHead*HeadDim) of sequence seq[i] attends to the
// first pos[i]+1 cached positions and writes out[i*D:(i+1)*D]. The keys
// and values of every token must already be stored. The (token, block of
// KV heads) pairs are claimed one at a time by the pool's workers through
// an atomic counter (later tokens of a prompt attend to more positions, so
// a static split would be unbalanced); a decode step splits its KV heads
// into one block per worker. Each head is computed exactly as Attend
// computes it, so neither the thread count nor the blocking changes the
// result. Work below attnMinWork multiply-adds runs on the
// caller. p may be nil; s must have been sized for p.Threads() workers.
func AttendBatch(p *kernels.Pool, out, q []float32, seq, pos []int32, c *kvcache.Cache, layer int, sh AttentionShape, s *AttentionScratch) {
	AttendTree(p, out, q, seq, pos, nil, c, layer, sh, s)
}

// AttendTree is AttendBatch for a batch that may be a tree (Batch.Parent;
// nil or empty: none): a tree node attends to the positions of its
// sequence up to its root and to its ancestors and itself, renumbered as
// consecutive positions (visibleSpans), so its result has exactly the bits
// of the same token decoded as an ordinary token after its root and
// ancestors, at its rotary position. Ordinary tokens attend as in
// AttendBatch.
func AttendTree(p *kernels.Pool, out, q []float32, seq, pos, parent []int32, c *kvcache.Cache, layer int, sh AttentionShape, s *AttentionScratch) {
	if p.Threads() > len(s.workers) {
		panic(fmt.Sprintf("engine: AttendBatch on %d threads with scratch for %d", p.Threads(), len(s.workers)))
	}
	if len(seq) != len(pos) {
		panic("engine: AttendBatch: seq and pos differ in length")
	}
	a := &s.task
	if len(parent) == 0 {
		parent = nil
	}
	*a = attendTask{out: out, q: q, seq: seq, pos: pos, parent: parent, c: c, layer: layer, sh: sh, owner: s, flash: s.flash}
	a.bind()
	work := 0
	for _, ps := range pos {
		work += (int(ps) + 1) * sh.NHead * sh.HeadDim
	}
	nw := p.Threads()
	if work < attnMinWork && !kernels.Forced() {
		nw = 1
	}
	// Each token's KV heads go in blocks of at most attnBlock, and in as
	// many blocks as there are workers per token when that is more (a
	// decode step splits its heads between the workers).
	a.blocks = max((sh.NHeadKV+attnBlock-1)/attnBlock, min(sh.NHeadKV, (nw+len(seq)-1)/len(seq)))
	a.items = len(seq) * a.blocks
	a.next.Store(0)
	if nw == 1 {
		a.Run(0, 1)
	} else {
		p.Do(a)
	}
	a.out, a.q, a.seq, a.pos, a.parent, a.c = nil, nil, nil, nil, nil, nil
}

// attnMinWork is the attention size (cached positions × heads × head dim,
// summed over the batch) below which waking the workers costs more than it
// saves.
const attnMinWork = 32 << 10

// attendTask is one AttendBatch call; it lives in the session's scratch so
// that dispatching it allocates nothing.
type attendTask struct {
	out, q         []float32
	seq, pos       []int32
	parent         []int32 // tree batches: per token, its parent (-1: ordinary); nil otherwise
	c              *kvcache.Cache
	layer          int
	sh             AttentionShape
	items, blocks  int
	owner          *AttentionScratch
	kt, vt         kernels.DType
	kType, vType   kvcache.Type
	kRow, vRow     int // bytes per cached position
	kHead, vHead   int // bytes per head within a position
	next           atomic.Int64
	group, headDim int
	flash          bool
}

// bind derives the cache layout fields from c and sh.
func (a *attendTask) bind() {
	o := a.c.Options()
	a.kType, a.vType = o.TypeK, o.TypeV
	a.kt, a.vt = o.TypeK.DType(), o.TypeV.DType()
	a.headDim = a.sh.HeadDim
	a.group = a.sh.NHead / a.sh.NHeadKV
	if (a.kType.IsTurbo() || a.vType.IsTurbo()) && o.HeadDim != a.headDim {
		// A turbo row pads each head on its own, so the cache must know
		// the heads (the block types pack any whole-block split alike).
		panic(fmt.Sprintf("engine: attention over heads of %d in a turbo cache of heads of %d", a.headDim, o.HeadDim))
	}
	a.kRow, a.vRow = a.c.RowBytes()
	a.kHead, _ = o.TypeK.HeadBytes(a.headDim)
	a.vHead, _ = o.TypeV.HeadBytes(a.headDim)
}

// Run claims items until none is left (none is bound to a worker, so a
// descheduled worker does not hold one back).
func (a *attendTask) Run(worker, _ int) {
	w := &a.owner.workers[worker]
	d := a.sh.NHead * a.headDim
	for it := int(a.next.Add(1)) - 1; it < a.items; it = int(a.next.Add(1)) - 1 {
		i, b := it/a.blocks, it%a.blocks
		g0, g1 := b*a.sh.NHeadKV/a.blocks, (b+1)*a.sh.NHeadKV/a.blocks
		n := a.visibleSpans(w, i)
		a.kvGroups(w, a.out[i*d:(i+1)*d], a.q[i*d:(i+1)*d], n, g0, g1)
	}
}

// visibleSpans lays out in w.spans the cells token i attends to and
// returns their number n: the first pos+1 positions of its sequence for an
// ordinary token; for a tree node, the positions up to its root's followed
// by its ancestors' cells and its own, numbered on from there (position
// root+d for depth d), adjacent cells merged into one span. Nodes on a
// tree's first chain (stored right after the root) thus attend over one
// span, as the same tokens decoded in order would.
func (a *attendTask) visibleSpans(w *attnWorker, i int) int {
	seq := int(a.seq[i])
	if a.parent == nil || a.parent[i] < 0 {
		n := int(a.pos[i]) + 1
		w.spans = a.c.Spans(seq, n, w.spans)
		return n
	}
	depth, root := 0, i
	for a.parent[root] >= 0 {
		root = int(a.parent[root])
		depth++
	}
	n0 := int(a.pos[root]) + 1
	w.spans = a.c.Spans(seq, n0, w.spans)
	base := len(w.spans)
	for range depth {
		w.spans = append(w.spans, kvcache.Span{})
	}
	for k, j := depth-1, i; k >= 0; k, j = k-1, int(a.parent[j]) {
		w.spans[base+k] = kvcache.Span{Pos: n0 + k, Cell: a.c.Cell(seq, int(a.pos[j])), N: 1}
	}
	out := base
	for k := base; k < len(w.spans); k++ {
		sp := w.spans[k]
		if out > 0 {
			if last := &w.spans[out-1]; last.Cell+last.N == sp.Cell {
				last.N++
				continue
			}
		}
		w.spans[out] = sp
		out++
	}
	w.spans = w.spans[:out]
	return n0 + depth
}
