package qwen35

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// run is the part of a batch that belongs to one sequence: its tokens in
// order (their batch indices) and the snapshots the batch leaves behind.
type run struct {
	seq   int
	start int  // the sequence's length before the batch
	n     int  // tokens in the batch
	off   int  // run's batch indices are plan.order[off : off+n]
	first int  // first length to snapshot or tape (start+n: none)
	tape  bool // the run records the replay tape from length first
	// ckptAt is the length inside the run at which checkpoint ckptC is
	// taken (-1: none); ckptEnd saves one after the run (checkpoint.go).
	ckptAt, ckptC int
	ckptEnd       bool
	// tree marks a run holding tree nodes (engine.Batch.Parent): its
	// tokens see the recurrent state of their own path (tree.go).
	tree bool
	// chunked is how many leading tokens go through the chunked delta
	// rule: whole kernels.DeltaChunkSize chunks that end at or before the
	// first snapshot, so every snapshot length sits on a token boundary the
	// per-token path reaches.
	chunked int
}

// batchPlan groups a batch by sequence (the recurrence must see each
// sequence's tokens in order, separately from the others) and assigns the
// snapshot slots or the tape of state.go. Sized once per session.
type batchPlan struct {
	depth  int
	runs   []run
	order  []int // batch indices, grouped by run, in batch order within a run
	rank   []int // batch index → its index within its run
	seqRun []int // sequence → run index, or -1
	slots  []int // per run, depth slot numbers indexed by length-first
	fill   []int // per run: next free index of order while grouping
}

func newBatchPlan(nSeq, nBatch, depth int) batchPlan {
	p := batchPlan{
		depth:  depth,
		runs:   make([]run, 0, min(nSeq, nBatch)),
		order:  make([]int, nBatch),
		rank:   make([]int, nBatch),
		seqRun: make([]int, nSeq),
		slots:  make([]int, min(nSeq, nBatch)*depth),
		fill:   make([]int, min(nSeq, nBatch)),
	}
	for i := range p.seqRun {
		p.seqRun[i] = -1
	}
	return p
}

// deltaChunk is the chunked delta rule's chunk length.
const deltaChunk = kernels.DeltaChunkSize

// build plans a validated batch; cache lengths are those before it, every
// is Options.CheckpointEvery.
func (p *batchPlan) build(b *engine.Batch, c *kvcache.Cache, rs *recurrent, every int) {
	for _, r := range p.runs {
		p.seqRun[r.seq] = -1
	}
	p.runs = p.runs[:0]
	for _, sq := range b.Seq {
		seq := int(sq)
		ri := p.seqRun[seq]
		if ri < 0 {
			ri = len(p.runs)
			p.seqRun[seq] = ri
			p.runs = append(p.runs, run{seq: seq, start: c.Len(seq)})
		}
		p.runs[ri].n++
	}
	off := 0
	for ri := range p.runs {
		p.runs[ri].off, p.fill[ri] = off, off
		off += p.runs[ri].n
	}
	for i, sq := range b.Seq {
		ri := p.seqRun[sq]
		p.rank[i] = p.fill[ri] - p.runs[ri].off
		p.order[p.fill[ri]] = i
		p.fill[ri]++
		if b.IsTree() && b.Parent[i] >= 0 {
			p.runs[ri].tree = true
		}
	}
	for ri := range p.runs {
		p.planSnapshots(ri, rs)
		p.planCheckpoint(ri, rs, every, b)
	}
}

// planSnapshots claims the slots for the lengths run ri keeps, or starts
// its tape (state.go).
func (p *batchPlan) planSnapshots(ri int, rs *recurrent) {
	r := &p.runs[ri]
	end := r.start + r.n
	rs.dropAbove(r.seq, r.start) // stale: the tokens they held were cut
	r.first, r.tape = end, false
	if r.n >= 2 {
		r.first = max(r.start, end-p.depth)
		if rs.taping() {
			r.tape = true
			rs.startTape(r.seq, r.first, end-r.first)
		} else {
			for l := r.first; l < end; l++ {
				p.slots[ri*p.depth+l-r.first] = rs.claim(r.seq, l)
			}
		}
	}
	r.chunked = (r.first - r.start) / kernels.DeltaChunkSize * kernels.DeltaChunkSize
}

// snapshot returns the slot that must receive run ri's state at length l,
// or -1.
func (p *batchPlan) snapshot(ri, l int) int {
	r := &p.runs[ri]
	if r.tape || l < r.first || l >= r.start+r.n {
		return -1
	}
	return p.slots[ri*p.depth+l-r.first]
}

// tokens returns run ri's batch indices.
func (p *batchPlan) tokens(ri int) []int {
	r := &p.runs[ri]
	return p.order[r.off : r.off+r.n]
}
