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
}

// attnWorker is one worker's scratch for one (token, head) at a time.
type attnWorker struct {
	scores []float32      // one score per cached position
	qconv  []byte         // one query head in the key cache's vec-dot format
	probs  []byte         // probabilities in the value cache's format
	spans  []kvcache.Span // the sequence's runs of consecutive cells
	rows   []float32      // attnChunk+1 value rows of one head, as float32 (see continueValues)
	raw    []byte         // attnChunk value rows of one head, gathered as stored
	pc     []float32      // the weights of rows
	group  groupScratch   // grouped attention (attention_types.go)
}

// NewAttentionScratch sizes scratch for nCtx positions of heads of headDim,
// for a pool of up to workers threads (at least 1).
//
// group is the number of query heads per KV head (NHead/NHeadKV): the
// bf16, block-quantized and turbo types attend a KV head's query heads
// together (attention_types.go).
func NewAttentionScratch(nCtx, headDim, group int, typeK, typeV kvcache.Type, workers int) *AttentionScratch {
	s := &AttentionScratch{workers: make([]attnWorker, max(workers, 1))}
	vHead, _ := typeV.HeadBytes(headDim)
	for i := range s.workers {
		w := attnWorker{
			scores: make([]float32, nCtx),
			qconv:  make([]byte, typeK.DType().VecDotType().RowBytes(headDim)),
			rows:   make([]float32, (attnChunk+1)*headDim),
			raw:    make([]byte, attnChunk*vHead),
			pc:     make([]float32, attnChunk+1),
		}
		if vt := typeV.DType(); vt == kernels.F16 || vt == kernels.BF16 {
			w.probs = make([]byte, vt.RowBytes(nCtx)) // the probabilities rounded to the value type
		}
		if groupedTypes(typeK, typeV) {
			w.group = newGroupScratch(nCtx, headDim, group, typeK, typeV)
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
func Attend(out, q []float32, c *kvcache.Cache, layer, seq, n int, sh AttentionShape, s *AttentionScratch) {
	a := attendTask{c: c, layer: layer, sh: sh}
	a.bind()
	for u := range a.units {
		a.unit(&s.workers[0], out, q, seq, n, u)
	}
}

// AttendBatch runs Attend for every token i of a batch: the query row
// q[i*D:(i+1)*D] (D = NHead*HeadDim) of sequence seq[i] attends to the
// first pos[i]+1 cached positions and writes out[i*D:(i+1)*D]. The keys
// and values of every token must already be stored. The (token, head)
// pairs are claimed one at a time by the pool's workers through an atomic
// counter (later tokens of a prompt attend to more positions, so a static
// split would be unbalanced); a decode step splits its heads. Each pair is
// computed exactly as Attend computes it, so the thread count does not
// change the result. Work below attnMinWork multiply-adds runs on the
// caller. p may be nil; s must have been sized for p.Threads() workers.
func AttendBatch(p *kernels.Pool, out, q []float32, seq, pos []int32, c *kvcache.Cache, layer int, sh AttentionShape, s *AttentionScratch) {
	if p.Threads() > len(s.workers) {
		panic(fmt.Sprintf("engine: AttendBatch on %d threads with scratch for %d", p.Threads(), len(s.workers)))
	}
	if len(seq) != len(pos) {
		panic("engine: AttendBatch: seq and pos differ in length")
	}
	a := &s.task
	*a = attendTask{out: out, q: q, seq: seq, pos: pos, c: c, layer: layer, sh: sh, owner: s}
	a.bind()
	a.items = len(seq) * a.units
	work := 0
	for _, ps := range pos {
		work += (int(ps) + 1) * sh.NHead * sh.HeadDim
	}
	nw := p.Threads()
	if work < attnMinWork && !kernels.Forced() {
		nw = 1
	}
	a.next.Store(0)
	if nw == 1 {
		a.Run(0, 1)
	} else {
		p.Do(a)
	}
	a.out, a.q, a.seq, a.pos, a.c = nil, nil, nil, nil, nil
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
	c              *kvcache.Cache
	layer          int
	sh             AttentionShape
	items          int
	owner          *AttentionScratch
	kt, vt         kernels.DType
	kType, vType   kvcache.Type
	kRow, vRow     int // bytes per cached position
	kHead, vHead   int // bytes per head within a position
	next           atomic.Int64
	group, headDim int
	grouped        bool // one unit per KV head (attention_types.go), else per query head
	units          int  // units of work per token
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
	a.grouped = groupedTypes(o.TypeK, o.TypeV)
	a.units = a.sh.NHead
	if a.grouped {
		a.units = a.sh.NHeadKV
	}
}

// unit attends unit u of one token: query head u, or KV head u with its
// query heads when grouped.
func (a *attendTask) unit(w *attnWorker, out, q []float32, seq, n, u int) {
	if a.grouped {
		a.kvGroup(w, out, q, seq, n, u)
	} else {
		a.head(w, out, q, seq, n, u)
	}
}

// Run claims items until none is left (none is bound to a worker, so a
// descheduled worker does not hold one back).
func (a *attendTask) Run(worker, _ int) {
	w := &a.owner.workers[worker]
	d := a.sh.NHead * a.headDim
	for it := int(a.next.Add(1)) - 1; it < a.items; it = int(a.next.Add(1)) - 1 {
		i, u := it/a.units, it%a.units
		a.unit(w, a.out[i*d:(i+1)*d], a.q[i*d:(i+1)*d], int(a.seq[i]), int(a.pos[i])+1, u)
	}
}

// head attends query head h of one token (q, out: all heads of it) over
// the first n positions of seq, walking the sequence's spans (runs of
// consecutive cells; one span unless the pages are scattered). The scores
// have the bits of one kernels.VecDot per key and the weighted sum adds the
// value rows in position order per output element (kernels.AttnValues), so
// a token's output depends neither on the batch it was computed in nor on
// where the cache put its pages.
func (a *attendTask) head(w *attnWorker, out, q []float32, seq, n, h int) {
	hd, g := a.headDim, h/a.group
	w.spans = a.c.Spans(seq, n, w.spans)
	scores := w.scores[:n]
	kernels.QuantizeRow(a.kt.VecDotType(), w.qconv, q[h*hd:(h+1)*hd])
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		kernels.AttnScores(a.kt, scores[sp.Pos:sp.Pos+sp.N], keys[g*a.kHead:], a.kRow, w.qconv, hd)
	}
	kernels.Scale(scores, a.sh.Scale)
	kernels.SoftMax(scores)
	a.weightedValues(w, out[h*hd:(h+1)*hd], scores, g)
}

// weightedValues sets dst = Σ_j p_j·V_j over the value rows of KV head g
// of w.spans. Each product is rounded to float32 and added in position
// order; an f16 cache fuses the multiply-add in the AVX2 kernel, which
// gives the same bits because p is first rounded to f16 (see
// kernels.AttnValues). The first span runs the kernel on the cache in
// place; later spans continue the same sum (continueValues).
func (a *attendTask) weightedValues(w *attnWorker, dst, p []float32, g int) {
	if a.vt != kernels.F32 {
		// Round the probabilities to the value format first, as ggml's
		// mul_mat converts its f32 operand to the f16 vec-dot type.
		pq := w.probs[:a.vt.RowBytes(len(p))]
		kernels.QuantizeRow(a.vt, pq, p)
		kernels.DequantizeRow(a.vt, p, pq)
	}
	first := w.spans[0]
	values := a.c.ValueCells(a.layer, first.Cell, first.N)
	kernels.AttnValues(a.vt, dst, p[:first.N], values[g*a.vHead:], a.vRow)
	for _, sp := range w.spans[1:] {
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			a.continueValues(w, dst, p[sp.Pos+off:sp.Pos+off+m], sp.Cell+off, g)
		}
	}
}
