package qwen35

import (
	"math"
	"sync/atomic"

	"github.com/waggle-llm/waggle/kernels"
)

// deltaTask runs the gated delta rule of one layer for every (run, value
// head) pair of the batch on the session's pool. Pairs are independent
// (each owns one head's state of one sequence), so workers claim them
// through an atomic counter; the result does not depend on the thread
// count. It lives in the session, so dispatching it allocates nothing.
type deltaTask struct {
	s       *session
	li      int
	items   int
	next    atomic.Int64
	workers []deltaWorker
}

// deltaWorker is one worker's scratch for the chunked path: one head's
// rows of a chunk gathered contiguously (the kernels.GatedDeltaChunk
// layout) plus the kernel's own scratch.
type deltaWorker struct {
	q, k, v, out, g, beta, scratch []float32
	path                           []int // a tree node's path (tree.go)
}

func (t *deltaTask) init(s *session, threads int) {
	hp := &s.m.hp
	c := kernels.DeltaChunkSize
	t.s = s
	t.workers = make([]deltaWorker, max(threads, 1))
	for i := range t.workers {
		t.workers[i] = deltaWorker{
			q: make([]float32, c*hp.dk), k: make([]float32, c*hp.dk),
			v: make([]float32, c*hp.dv), out: make([]float32, c*hp.dv),
			g: make([]float32, c), beta: make([]float32, c),
			scratch: make([]float32, kernels.DeltaChunkScratchLen(hp.dv)),
			path:    make([]int, 0, s.opts.NBatch),
		}
	}
}

// deltaMinWork is the state work (tokens × heads × dk × dv) below which the
// layer runs on the caller: waking workers costs more than it saves.
const deltaMinWork = 64 << 10

// run processes DeltaNet layer li (its index among DeltaNet layers).
func (t *deltaTask) run(li int) {
	hp := &t.s.m.hp
	t.li, t.items = li, len(t.s.plan.runs)*hp.hv
	t.next.Store(0)
	work := 0
	for _, r := range t.s.plan.runs {
		work += r.n * hp.hv * hp.dk * hp.dv
	}
	if work < deltaMinWork && !kernels.Forced() || t.s.pool.Threads() == 1 {
		t.Run(0, 1)
		return
	}
	t.s.pool.Do(t)
}

// Run claims (run, head) items until none is left.
func (t *deltaTask) Run(worker, _ int) {
	hv := t.s.m.hp.hv
	w := &t.workers[worker]
	for it := int(t.next.Add(1)) - 1; it < t.items; it = int(t.next.Add(1)) - 1 {
		t.head(w, it/hv, it%hv)
	}
}

// kHead returns the key head value head h reads: tiled (h mod H_k) for
// qwen35 files, grouped (h div (H_v/H_k)) for qwen3next.
func (s *session) kHead(h int) int {
	hp := &s.m.hp
	if s.m.v.groupedHeads {
		return h / (hp.hv / hp.hk)
	}
	return h % hp.hk
}

// head runs value head h of run ri over the run's tokens: whole chunks
// through the chunked kernel first (run.chunked tokens), then token by
// token, saving the head's state at the planned snapshot lengths.
func (t *deltaTask) head(w *deltaWorker, ri, h int) {
	s := t.s
	hp := &s.m.hp
	r := &s.plan.runs[ri]
	state := s.rs.ssm(r.seq, -1, t.li)[h*hp.dv*hp.dk : (h+1)*hp.dv*hp.dk]
	toks := s.plan.tokens(ri)
	kh := s.kHead(h)
	qOff, kOff, vOff := kh*hp.dk, hp.hk*hp.dk+kh*hp.dk, 2*hp.hk*hp.dk+h*hp.dv
	t.snapHead(ri, h, r.start, state)
	for c0 := 0; c0 < r.chunked; c0 += kernels.DeltaChunkSize {
		t.chunk(w, toks[c0:c0+kernels.DeltaChunkSize], h, state, qOff, kOff, vOff)
		t.snapHead(ri, h, r.start+c0+kernels.DeltaChunkSize, state)
	}
	for j, i := range toks[r.chunked:] {
		if r.tree && s.parent[i] >= 0 && (j == 0 || int(s.parent[i]) != toks[r.chunked+j-1]) {
			t.treeState(w, ri, h, i, state)
		}
		c := row(s.buf.conv, i, hp.convDim)
		kernels.GatedDeltaStep(state, c[qOff:qOff+hp.dk], c[kOff:kOff+hp.dk], c[vOff:vOff+hp.dv],
			row(s.buf.o, i, hp.innerDim)[h*hp.dv:(h+1)*hp.dv],
			float32(math.Exp(float64(s.buf.g[i*hp.hv+h]))), s.buf.beta[i*hp.hv+h])
		t.snapHead(ri, h, r.start+r.chunked+j+1, state)
	}
}

// chunk gathers one head's rows of DeltaChunkSize tokens, runs the chunked
// kernel and scatters the outputs back.
func (t *deltaTask) chunk(w *deltaWorker, toks []int, h int, state []float32, qOff, kOff, vOff int) {
	s := t.s
	hp := &s.m.hp
	dk, dv := hp.dk, hp.dv
	for j, i := range toks {
		c := row(s.buf.conv, i, hp.convDim)
		copy(w.q[j*dk:(j+1)*dk], c[qOff:qOff+dk])
		copy(w.k[j*dk:(j+1)*dk], c[kOff:kOff+dk])
		copy(w.v[j*dv:(j+1)*dv], c[vOff:vOff+dv])
		w.g[j], w.beta[j] = s.buf.g[i*hp.hv+h], s.buf.beta[i*hp.hv+h]
	}
	n := len(toks)
	kernels.GatedDeltaChunk(state, w.q[:n*dk], w.k[:n*dk], w.v[:n*dv], w.out[:n*dv], w.g, w.beta, n, w.scratch)
	for j, i := range toks {
		copy(row(s.buf.o, i, hp.innerDim)[h*dv:(h+1)*dv], w.out[j*dv:(j+1)*dv])
	}
}

// snapHead copies head h's state into run ri's snapshot at length l, if
// one is planned there, into the tape's base at the run's first taped
// length and into the run's checkpoint at its length.
func (t *deltaTask) snapHead(ri, h, l int, state []float32) {
	s := t.s
	r := &s.plan.runs[ri]
	if r.tape && l == r.first {
		sz := len(state)
		copy(s.rs.ssm(r.seq, baseSlot, t.li)[h*sz:(h+1)*sz], state)
	}
	if l == r.ckptAt {
		sz := len(state)
		copy(s.rs.ssm(r.seq, ckptSlot(r.ckptC), t.li)[h*sz:(h+1)*sz], state)
	}
	if slot := s.plan.snapshot(ri, l); slot >= 0 {
		sz := len(state)
		copy(s.rs.ssm(s.plan.runs[ri].seq, slot, t.li)[h*sz:(h+1)*sz], state)
	}
}
