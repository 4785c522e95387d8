package server

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// testHookStep, set by tests before New, runs before every decode step.
var testHookStep func()

// errShutdown ends tasks still running when the server stops.
var errShutdown = errors.New("the server is shutting down")

// scheduler owns the Session: it assigns queued tasks to slots and runs
// the batched decode steps. Nothing else touches the Session.
type scheduler struct {
	sess   engine.Session
	tok    Tokenizer
	nCtx   int
	nVocab int
	step   int // tokens per Decode
	queue  chan *task
	slots  []*slot
	batch  engine.Batch
	outs   []*slot
	pend   []*slot // promptOrder's result
	// admissions counts tasks assigned to slots; a slot's admitted is the
	// count when its task started (the prompt order).
	admissions uint64
	stopCh     chan struct{}
	stopped    sync.Once
	done       chan struct{}
	metrics    *metrics
	// sp runs the speculative slots (nil: the server does not speculate).
	sp        *spec.Speculator
	specSlots []*spec.Slot
	specEmit  func(*spec.Slot, int32) bool
	// busyView is the slots' state for /slots, replaced after each step.
	busyView atomic.Pointer[[]bool]
	// freePages is the KV pool's free pages, published with busyView.
	freePages atomic.Int64

	// ctl runs slot actions (save, restore, erase) on this goroutine,
	// which owns the session; see Server.control.
	ctl chan func()
	// host is the --cache-ram prompt cache (nil: off); model identifies
	// the weights in the states it holds and in slot files.
	host  *hostCache
	model [32]byte
	// ctxShift is --context-shift.
	ctxShift bool
	// emb is the embedding batch (sched_embed.go).
	emb embedScratch
}

func newScheduler(cfg *Config, sess engine.Session, m *metrics) *scheduler {
	s := &scheduler{
		sess: sess, tok: cfg.Tokenizer, nCtx: min(sess.Options().NCtx, cfg.slotCtxCap()), nVocab: cfg.Tokenizer.NVocab(),
		step:  min(cfg.BatchSize, cfg.UBatchSize, sess.Options().NBatch),
		queue: make(chan *task, cfg.MaxQueue), stopCh: make(chan struct{}), done: make(chan struct{}),
		metrics: m, ctl: make(chan func()), model: cfg.ModelHash, ctxShift: cfg.ContextShift,
	}
	total := sess.Options().NCtx // the -c total: the pool, or NCtx per slot
	if !sess.Options().KVUnified {
		total *= sess.Options().NSeq
	}
	s.host = newPromptCache(cfg, total)
	s.specEmit = s.specEmitFn
	for i := range cfg.Parallel {
		s.slots = append(s.slots, &slot{id: i})
	}
	return s
}

// submit queues t without blocking; false means the queue is full.
func (s *scheduler) submit(t *task) bool {
	select {
	case s.queue <- t:
		return true
	default:
		return false
	}
}

// stop ends the scheduler (once; later calls wait for the first): running
// tasks end as if they hit their limit, queued ones with errShutdown.
func (s *scheduler) stop() {
	s.stopped.Do(func() { close(s.stopCh) })
	<-s.done
}

func (s *scheduler) stopping() bool {
	select {
	case <-s.stopCh:
		return true
	default:
		return false
	}
}

func (s *scheduler) run() {
	defer close(s.done)
	s.publish() // /slots and /props see the idle state before any request
	for {
		s.drainControl()
		// Checked before admit, which returns at once while every slot is
		// busy: a stop must not wait for a slot to free.
		if s.stopping() || !s.admit() {
			s.endAll()
			s.publish()
			return
		}
		s.reap()
		s.publish()
		if s.busy() == 0 {
			continue
		}
		if testHookStep != nil {
			testHookStep()
		}
		s.safeStep()
	}
}

func (s *scheduler) busy() int {
	n := 0
	for _, sl := range s.slots {
		if sl.t != nil {
			n++
		}
	}
	return n
}

// admit moves queued tasks into free slots. When every slot is idle it
// blocks for the next task; it returns false once the server stops.
func (s *scheduler) admit() bool {
	for {
		sl := s.freeSlot()
		if sl == nil {
			return true
		}
		var t *task
		if s.busy() == 0 {
			s.publish() // going idle: /slots and /props must not show the last step's state
			select {
			case t = <-s.queue:
			case f := <-s.ctl:
				f()
				continue
			case <-s.stopCh:
				return false
			}
		} else {
			select {
			case t = <-s.queue:
			case <-s.stopCh:
				return false
			default:
				return true
			}
		}
		if t.cancelled.Load() {
			continue
		}
		s.assign(t)
	}
}

func (s *scheduler) freeSlot() *slot {
	for _, sl := range s.slots {
		if sl.t == nil {
			return sl
		}
	}
	return nil
}

// assign puts t into the free slot whose cached tokens share the longest
// prefix with its prompt (least recently used on a tie), keeps that prefix
// when cache_prompt is on, and drops the rest of the slot's cache.
func (s *scheduler) assign(t *task) {
	var best *slot
	bestN := -1
	for _, sl := range s.slots {
		if sl.t != nil {
			continue
		}
		n := commonPrefix(sl.cached, t.prompt)
		if n > bestN || (n == bestN && sl.lastUsed.Before(best.lastUsed)) {
			best, bestN = sl, n
		}
	}
	bestN = s.reuseHost(best, t, bestN)
	keep := 0
	if t.cachePrompt {
		keep = min(bestN, len(t.prompt)-1) // at least one token makes the logits
	}
	if err := s.sess.Truncate(best.id, keep); err != nil {
		keep = 0
		_ = s.sess.Truncate(best.id, 0)
	}
	best.start(t, keep)
	s.admissions++
	best.admitted = s.admissions
	s.metrics.slotStarted()
}

// drainControl runs the slot actions waiting on ctl.
func (s *scheduler) drainControl() {
	for {
		select {
		case f := <-s.ctl:
			f()
		default:
			return
		}
	}
}

func commonPrefix(a, b []int32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// reap ends tasks whose client went away or whose deadline passed.
func (s *scheduler) reap() {
	now := time.Now()
	for _, sl := range s.slots {
		switch {
		case sl.t == nil:
		case sl.t.cancelled.Load():
			s.dropCache(sl) // a cut-off prompt or reply is not worth its pages
			s.release(sl)
		case now.After(sl.t.deadline):
			sl.t.send(event{done: true, err: errors.New("the request timed out")})
			s.dropCache(sl)
			s.release(sl)
		}
	}
}

func (s *scheduler) release(sl *slot) {
	sl.t = nil
	sl.lastUsed = time.Now()
	s.metrics.slotDone()
}

// endAll ends every task when the server stops: a generating slot
// finishes as if it hit its token limit (finish_reason "length"), so its
// client gets what was generated and a proper end; a slot still reading
// its prompt and every queued task end with errShutdown.
func (s *scheduler) endAll() {
	for _, sl := range s.slots {
		switch {
		case sl.t == nil:
		case sl.generating:
			s.finish(sl, "length", "limit", "", len(sl.text))
		default:
			sl.t.send(event{done: true, err: errShutdown})
			s.release(sl)
		}
	}
	for {
		select {
		case t := <-s.queue:
			t.send(event{done: true, err: errShutdown})
		default:
			return
		}
	}
}

// safeStep runs one step; a panic fails the running tasks and clears the
// slots instead of taking the server down.
func (s *scheduler) safeStep() {
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("internal error in decode step: %v", r)
			for _, sl := range s.slots {
				if sl.t != nil {
					sl.t.send(event{done: true, err: err})
					s.release(sl)
				}
				sl.cached = sl.cached[:0]
				_ = s.sess.Truncate(sl.id, 0)
			}
		}
	}()
	s.cycle()
}

// cycle starts newly assigned speculative slots, decodes the plain slots in
// one batch, then runs one speculative cycle for the speculative ones and
// one embedding batch for the embedding ones.
func (s *scheduler) cycle() {
	if s.sp != nil {
		s.startSpec()
	}
	s.decodeStep()
	if s.sp != nil {
		s.specStep()
	}
	s.embedStep()
}

// decodeStep builds one batch, one token for every generating slot first
// (so streams keep flowing), then prompt chunks up to the step size,
// oldest admission first (a prompt waits only for those admitted before
// it, whatever slot it landed in), and samples every slot that produced an
// output. All waiting prompts that fit share the step, as llama-server
// batches them: slots admitted together read their prompts together and
// then decode in step, so no later prompt step stalls their decoding
// (server/sim_test.go measures the alternatives).
func (s *scheduler) decodeStep() {
	s.batch.Reset()
	s.outs = s.outs[:0]
	for _, sl := range s.slots {
		if sl.t != nil && sl.generating && !sl.specOn {
			s.batch.Add(sl.last, int32(len(sl.cached)), int32(sl.id), true)
			sl.cached = append(sl.cached, sl.last)
			s.outs = append(s.outs, sl)
		}
	}
	budget := s.step - s.batch.Len()
	for _, sl := range s.promptOrder() {
		if budget <= 0 {
			break
		}
		n := min(budget, len(sl.pending))
		for i, tok := range sl.pending[:n] {
			last := i == n-1 && n == len(sl.pending)
			s.batch.Add(tok, int32(len(sl.cached)), int32(sl.id), last)
			sl.cached = append(sl.cached, tok)
		}
		sl.pending = sl.pending[n:]
		budget -= n
		if len(sl.pending) == 0 {
			s.outs = append(s.outs, sl)
		}
	}
	if s.batch.Len() == 0 {
		return
	}
	t0 := time.Now()
	if err := s.sess.Decode(&s.batch); err != nil {
		if errors.Is(err, engine.ErrKVPoolFull) {
			s.undoBatch()
			s.makeRoom()
			return
		}
		s.decodeFailed(err)
		return
	}
	s.metrics.decoded(len(s.outs), time.Since(t0))
	for k, sl := range s.outs {
		s.sampleSlot(sl, s.sess.Logits(k))
	}
}

// decodeFailed ends every task in the failed batch and forgets the slots'
// caches, whose state is now unknown.
// promptOrder lists the slots still reading their prompts (embedding
// tasks have their own batch), oldest admission first.
func (s *scheduler) promptOrder() []*slot {
	s.pend = s.pend[:0]
	for _, sl := range s.slots {
		if sl.t != nil && !sl.generating && !sl.specOn && sl.t.embed == nil {
			s.pend = append(s.pend, sl)
		}
	}
	slices.SortFunc(s.pend, func(a, b *slot) int { return cmp.Compare(a.admitted, b.admitted) })
	return s.pend
}

func (s *scheduler) decodeFailed(err error) {
	for _, sl := range s.slots {
		if sl.t == nil {
			continue
		}
		sl.t.send(event{done: true, err: fmt.Errorf("decode: %w", err)})
		s.release(sl)
		sl.cached = sl.cached[:0]
		_ = s.sess.Truncate(sl.id, 0)
	}
}

// snapshot reports which slots are busy, published after every step.
func (s *scheduler) snapshot() []bool {
	if p := s.busyView.Load(); p != nil {
		return append([]bool(nil), (*p)...)
	}
	return make([]bool, len(s.slots))
}

func (s *scheduler) publish() {
	v := make([]bool, len(s.slots))
	for i, sl := range s.slots {
		v[i] = sl.t != nil
	}
	s.busyView.Store(&v)
	s.freePages.Store(int64(s.sess.Cache().FreePages()))
}
