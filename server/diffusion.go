package server

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/chat"
	"github.com/waggle-llm/waggle/engine/diffusion"
)

// diffScheduler serves a diffusion model: it owns the Denoiser, puts
// queued tasks into free slots at step boundaries, and advances every
// busy slot by one denoising step per forward, all slots' canvases in one
// batch (engine/diffusion.Batch). A committed block is reported as one
// event, so a stream gets one chunk per block. Nothing else touches the
// Denoiser.
type diffScheduler struct {
	cfg     *Config
	opts    DiffusionOptions
	info    *engine.DiffusionInfo
	base    diffusion.Config
	d       engine.Denoiser
	batch   *diffusion.Batch
	tok     Tokenizer
	nVocab  int
	nCtx    int
	queue   chan *task
	slots   []*diffSlot
	runs    []*diffusion.Run
	seqs    []int
	metrics *metrics
	stopCh  chan struct{}
	stopped sync.Once
	done    chan struct{}
	// busyView is the slots' state for /slots, replaced after each step.
	busyView atomic.Pointer[[]bool]
}

// diffSlot is one Denoiser sequence and the task running in it.
type diffSlot struct {
	id       int
	t        *task
	text     []byte // answer text so far
	sent     int    // bytes of text already reported
	nGen     int    // answer tokens so far
	t0       time.Time
	lastUsed time.Time
}

// newDiffusionServer is New for a diffusion model: the same HTTP front
// end, with the diffusion scheduler in place of the causal one.
func newDiffusionServer(cfg Config, s *Server, dm engine.DiffusionModel) (*Server, error) {
	info := dm.Diffusion()
	if cfg.Grammar != "" {
		return nil, fmt.Errorf("server: --grammar needs token-by-token decoding; a diffusion model writes whole blocks")
	}
	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	total := cfg.CtxSize
	if total <= 0 {
		total = min(max(dm.Info().NCtxTrain, 1), defaultCtx)
	}
	nCtx := total / parallel
	if nCtx < 2 {
		return nil, fmt.Errorf("server: --ctx-size %d leaves %d positions for each of %d slots", total, nCtx, parallel)
	}
	opts := cfg.Diffusion
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = defaultDiffusionTokens
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{
		NSeq: parallel, NCtx: nCtx, Threads: cfg.Session.Threads, FlashAttn: cfg.Session.FlashAttn,
		CachePrefix: opts.CachePrefix || !info.PrefixSeesCanvas,
	})
	if err != nil {
		return nil, fmt.Errorf("server: denoiser: %w", err)
	}
	ds := &diffScheduler{
		cfg: &s.cfg, opts: opts, info: info, base: baseConfig(info, opts), d: d, batch: diffusion.NewBatch(d),
		tok: cfg.Tokenizer, nVocab: dm.Info().NVocab, nCtx: nCtx, queue: make(chan *task, cfg.MaxQueue),
		metrics: s.metrics, stopCh: make(chan struct{}), done: make(chan struct{}),
	}
	probe := ds.base
	probe.Steps = max(probe.Steps, 1)
	if err := probe.Validate(info); err != nil {
		return nil, fmt.Errorf("server: diffusion settings: %w", err)
	}
	for i := range parallel {
		ds.slots = append(ds.slots, &diffSlot{id: i})
	}
	s.diff = ds
	go ds.run()
	return s, nil
}

func (d *diffScheduler) submit(t *task) bool {
	select {
	case d.queue <- t:
		return true
	default:
		return false
	}
}

// stop ends the scheduler's loop and waits for it; calling it again is a
// no-op.
func (d *diffScheduler) stop() {
	d.stopped.Do(func() { close(d.stopCh) })
	<-d.done
}

func (d *diffScheduler) run() {
	defer close(d.done)
	d.publish()
	for {
		if !d.admit() {
			d.failAll(errShutdown)
			return
		}
		d.reap()
		d.publish()
		if d.busy() == 0 {
			continue
		}
		d.safeStep()
	}
}

func (d *diffScheduler) busy() int {
	n := 0
	for _, sl := range d.slots {
		if sl.t != nil {
			n++
		}
	}
	return n
}

// admit moves queued tasks into free slots; when every slot is idle it
// blocks for the next task. It returns false once the server stops.
func (d *diffScheduler) admit() bool {
	for {
		sl := d.freeSlot()
		if sl == nil {
			return true
		}
		var t *task
		if d.busy() == 0 {
			select {
			case t = <-d.queue:
			case <-d.stopCh:
				return false
			}
		} else {
			select {
			case t = <-d.queue:
			case <-d.stopCh:
				return false
			default:
				return true
			}
		}
		if t.cancelled.Load() {
			continue
		}
		sl.t, sl.text, sl.sent, sl.nGen, sl.t0 = t, sl.text[:0], 0, 0, time.Now()
		d.metrics.slotStarted()
		if t.diff.limit == 0 {
			d.finish(sl, "length", "limit", "", 0)
		}
	}
}

func (d *diffScheduler) freeSlot() *diffSlot {
	var best *diffSlot
	for _, sl := range d.slots {
		if sl.t == nil && (best == nil || sl.lastUsed.Before(best.lastUsed)) {
			best = sl
		}
	}
	return best
}

// reap ends tasks whose client went away (a cancelled stream frees its
// canvas here, before the next step) or whose deadline passed.
func (d *diffScheduler) reap() {
	now := time.Now()
	for _, sl := range d.slots {
		switch {
		case sl.t == nil:
		case sl.t.cancelled.Load():
			d.release(sl)
		case now.After(sl.t.deadline):
			sl.t.send(event{done: true, err: errors.New("the request timed out")})
			d.release(sl)
		}
	}
}

func (d *diffScheduler) release(sl *diffSlot) {
	sl.t.diff.run.Stop()
	sl.t = nil
	sl.lastUsed = time.Now()
	d.d.Release(sl.id)
	d.metrics.slotDone()
}

func (d *diffScheduler) failAll(err error) {
	for _, sl := range d.slots {
		if sl.t != nil {
			sl.t.send(event{done: true, err: err})
			d.release(sl)
		}
	}
	for {
		select {
		case t := <-d.queue:
			t.send(event{done: true, err: err})
		default:
			return
		}
	}
}

// safeStep runs one step; a panic or an error fails the running tasks
// instead of taking the server down.
func (d *diffScheduler) safeStep() {
	defer func() {
		if r := recover(); r != nil {
			d.failRunning(fmt.Errorf("internal error in denoising step: %v", r))
		}
	}()
	d.runs, d.seqs = d.runs[:0], d.seqs[:0]
	for _, sl := range d.slots {
		if sl.t != nil {
			d.runs, d.seqs = append(d.runs, sl.t.diff.run), append(d.seqs, sl.id)
		}
	}
	t0 := time.Now()
	n, err := d.batch.Step(d.runs, d.seqs)
	if err != nil {
		d.failRunning(fmt.Errorf("denoise: %w", err))
		return
	}
	d.metrics.decoded(n, time.Since(t0))
	for _, sl := range d.slots {
		if sl.t != nil {
			d.report(sl)
		}
	}
}

func (d *diffScheduler) failRunning(err error) {
	for _, sl := range d.slots {
		if sl.t != nil {
			sl.t.send(event{done: true, err: err})
			d.release(sl)
		}
	}
}

// report sends what the slot's run committed since the last step, cut to
// the token budget and at a stop string, and ends the task when the run is
// over, the budget is spent or a stop string matched.
func (d *diffScheduler) report(sl *diffSlot) {
	t, dt := sl.t, sl.t.diff
	block := dt.run.TakeCommitted()
	block = block[:min(len(block), dt.limit-sl.nGen)]
	before := len(sl.text)
	for _, tok := range block {
		sl.text = append(sl.text, d.tok.Piece(tok, false)...)
	}
	sl.nGen += len(block)
	if cut, word := findStop(sl.text, before, t.stops); cut >= 0 {
		d.finish(sl, "stop", "word", word, cut)
		return
	}
	switch {
	case dt.run.StoppedAtEOG():
		d.finish(sl, "stop", "eos", "", len(sl.text))
		return
	case sl.nGen >= dt.limit || dt.run.Done():
		d.finish(sl, "length", "limit", "", len(sl.text))
		return
	}
	safe := len(sl.text) - max(chat.PartialSuffix(string(sl.text[sl.sent:]), t.stops), incompleteTail(sl.text))
	if safe > sl.sent {
		t.send(event{text: string(sl.text[sl.sent:safe]), tokens: append([]int32(nil), block...)})
		sl.sent = safe
	}
}

// finish reports the rest of the text up to end, with the counts and the
// denoising timings, and frees the slot.
func (d *diffScheduler) finish(sl *diffSlot, reason, stopType, word string, end int) {
	t, st := sl.t, sl.t.diff.run.Stats()
	end = max(end, sl.sent)
	genMS := msBetween(sl.t0, time.Now())
	d.metrics.generated(sl.nGen, genMS)
	t.send(event{
		text: string(sl.text[sl.sent:end]), done: true, finish: reason, stopType: stopType, stopWord: word,
		slot: sl.id, promptN: len(t.prompt), predictedN: sl.nGen, genMS: genMS,
		diffusion: &diffusionTimings{Steps: st.Forwards, StepsPerBlock: append([]int(nil), st.BlockSteps...), Canvas: st.CanvasN},
	})
	d.release(sl)
}

func (d *diffScheduler) snapshot() []bool {
	if p := d.busyView.Load(); p != nil {
		return append([]bool(nil), (*p)...)
	}
	return make([]bool, len(d.slots))
}

func (d *diffScheduler) publish() {
	v := make([]bool, len(d.slots))
	for i, sl := range d.slots {
		v[i] = sl.t != nil
	}
	d.busyView.Store(&v)
}

// diffusionTimings is a diffusion answer's part of the timings object
// (Waggle's extension, "diffusion" in timings): denoising forwards, the
// forwards of each committed block, and the canvas length.
type diffusionTimings struct {
	Steps         int     `json:"steps"`
	StepsPerBlock []int   `json:"steps_per_block"`
	Canvas        int     `json:"canvas"`
	TokensPerStep float64 `json:"tokens_per_step"`
}

// mergeDiffusion adds one choice's diffusion timings to a job's.
func mergeDiffusion(sum, e *diffusionTimings, predicted int) *diffusionTimings {
	if e == nil {
		return sum
	}
	if sum == nil {
		sum = &diffusionTimings{}
	}
	sum.Steps += e.Steps
	sum.StepsPerBlock = append(sum.StepsPerBlock, e.StepsPerBlock...)
	sum.Canvas += e.Canvas
	sum.TokensPerStep = 0
	if sum.Steps > 0 {
		sum.TokensPerStep = float64(predicted) / float64(sum.Steps)
	}
	return sum
}

// describe is the denoiser's line for the start-up log.
func (d *diffScheduler) describe() string {
	o := d.d.Options()
	cache := "recomputed every step"
	if o.CachePrefix {
		cache = "cached per block"
	}
	return fmt.Sprintf("diffusion model: %d slots × %d positions, canvases batched per step, prefix keys/values %s, %s by default",
		o.NSeq, o.NCtx, cache, d.base.Algorithm)
}
