package server

import (
	"errors"
	"time"

	"github.com/waggle-llm/waggle/engine"
)

// Embedding tasks run in ordinary slots, between the generating ones: each
// step, after the plain decode, one engine.Embedder.DecodeEmbeddings call
// evaluates a chunk of every embedding slot's pending input (up to the step
// size in all), asking only for the rows the pooling reads (every row for
// mean and none, the first for cls, the last for last). A task holds one
// or more inputs and evaluates them one after another in its slot, each
// from position 0 (a mean, cls or per-token embedding needs every row, so
// no cached prefix is reused; last pooling reuses one like a completion).
// Unlike llama-server, an input longer than a batch is split over steps
// (the models are causal, so a row does not depend on later tokens); it
// must fit the slot's context.

// embedTask is a task's embedding work. The scheduler fills results; the
// handler reads them after the task's done event.
type embedTask struct {
	inputs    [][]int32
	pooling   engine.Pooling
	normalize int // llama.cpp's embd_normalize, for pooled vectors
	next      int // the input being evaluated
	pooler    *engine.Pooler
	results   [][][]float32 // per input: one vector, or one per token (none)
}

// embedScratch is the scheduler's embedding batch and the slot of each
// of its outputs.
type embedScratch struct {
	batch engine.Batch
	outs  []*slot
}

// newEmbedTask makes the task for inputs (each non-empty). Its first
// input is its prompt, so assign gives it a slot like any task: with the
// cached prefix for last pooling (cachePrompt), from 0 otherwise.
func newEmbedTask(inputs [][]int32, pooling engine.Pooling, normalize int) (*task, error) {
	p, err := engine.NewPooler(pooling)
	if err != nil {
		return nil, err
	}
	e := &embedTask{inputs: inputs, pooling: pooling, normalize: normalize, pooler: p}
	return &task{prompt: inputs[0], cachePrompt: pooling == engine.PoolingLast, embed: e}, nil
}

// startInput points the slot at the task's next input: the slot keeps the
// prefix it may reuse and evaluates the rest.
func (s *scheduler) startInput(sl *slot) {
	t, e := sl.t, sl.t.embed
	t.prompt = e.inputs[e.next]
	e.pooler, _ = engine.NewPooler(e.pooling) // newEmbedTask checked the pooling
	keep := 0
	if e.pooling == engine.PoolingLast {
		keep = min(commonPrefix(sl.cached, t.prompt), len(t.prompt)-1)
	}
	if err := s.sess.Truncate(sl.id, keep); err != nil {
		keep = 0
		_ = s.sess.Truncate(sl.id, 0)
	}
	sl.cached = sl.cached[:keep]
	sl.pending = t.prompt[keep:]
}

// embedStep evaluates a chunk of every embedding slot's pending input and
// pools the rows it gets back.
func (s *scheduler) embedStep() {
	emb, ok := s.sess.(engine.Embedder)
	if !ok { // New refuses --embeddings for such a model; fail rather than hang
		for _, sl := range s.slots {
			if sl.t != nil && sl.t.embed != nil {
				s.failSlot(sl, errors.New("this model cannot compute embeddings"))
			}
		}
		return
	}
	b := &s.emb.batch
	b.Reset()
	s.emb.outs = s.emb.outs[:0]
	budget := s.step
	for _, sl := range s.slots {
		if budget <= 0 {
			break
		}
		if sl.t == nil || sl.t.embed == nil || len(sl.pending) == 0 {
			continue
		}
		n, total := min(budget, len(sl.pending)), len(sl.t.prompt)
		for _, tok := range sl.pending[:n] {
			pos := len(sl.cached)
			out := sl.t.embed.pooling.NeedsRow(pos, total)
			b.Add(tok, int32(pos), int32(sl.id), out)
			sl.cached = append(sl.cached, tok)
			if out {
				s.emb.outs = append(s.emb.outs, sl)
			}
		}
		sl.pending = sl.pending[n:]
		budget -= n
	}
	if b.Len() == 0 {
		return
	}
	t0 := time.Now()
	if err := emb.DecodeEmbeddings(b); err != nil {
		s.embedFailed(err)
		return
	}
	s.metrics.decoded(len(s.emb.outs), time.Since(t0))
	for k, sl := range s.emb.outs {
		sl.t.embed.pooler.Add(emb.Embedding(k))
	}
	for _, sl := range s.slots {
		if sl.t != nil && sl.t.embed != nil && len(sl.pending) == 0 {
			s.inputDone(sl)
		}
	}
}

// inputDone stores the finished input's embedding and starts the next
// input, or ends the task.
func (s *scheduler) inputDone(sl *slot) {
	t, e := sl.t, sl.t.embed
	rows := e.pooler.Rows()
	if e.pooling != engine.PoolingNone {
		for _, r := range rows {
			engine.Normalize(r, r, e.normalize)
		}
	}
	e.results = append(e.results, rows)
	if e.next++; e.next < len(e.inputs) {
		s.startInput(sl)
		return
	}
	n := 0
	for _, in := range e.inputs {
		n += len(in)
	}
	t.send(event{done: true, finish: "stop", slot: sl.id, promptN: n})
	s.release(sl)
}

// embedFailed handles a rejected embedding batch: a full unified KV pool
// takes the batch back and frees room (as decodeStep does); any other
// error ends the embedding tasks in it.
func (s *scheduler) embedFailed(err error) {
	for _, seq := range s.emb.batch.Seq {
		sl := s.slots[seq]
		sl.cached = sl.cached[:len(sl.cached)-1]
	}
	for _, sl := range s.slots {
		if sl.t != nil && sl.t.embed != nil {
			sl.pending = sl.t.prompt[len(sl.cached):]
		}
	}
	if errors.Is(err, engine.ErrKVPoolFull) {
		s.makeRoom()
		return
	}
	seen := map[int32]bool{}
	for _, seq := range s.emb.batch.Seq {
		if sl := s.slots[seq]; !seen[seq] && sl.t != nil {
			seen[seq] = true
			s.failSlot(sl, err)
		}
	}
}
