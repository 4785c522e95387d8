package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/valyala/fasthttp"
)

// job is one generation request: its tasks (prompts × n) and how to answer.
type job struct {
	id       string
	created  int64
	model    string
	tasks    []*task
	prompts  [][]int32
	box      *mailbox
	stream   bool
	usage    bool // stream_options.include_usage
	logprobs bool
	deadline time.Time
	// onStreamError, when set, writes an error that ends a stream in the
	// route's own shape (see streamError).
	onStreamError func(*sse, *apiError)
	// returnTokens fills /completion's "tokens" (llama-server's
	// return_tokens); req is the request, for generation_settings.
	returnTokens bool
	req          *rawRequest
}

// choice accumulates one task's results.
type choice struct {
	text   []byte
	tokens []int32
	probs  []tokenLogprobs
	last   event // the done event
	done   bool
}

// newJob validates the generation fields of r and queues one task per
// prompt and choice. The sampler of each task is built here, off the
// scheduler goroutine.
func (s *Server) newJob(r *rawRequest, prompts [][]int32, prefix string, chatMode bool) (*job, *apiError) {
	if s.diff != nil {
		return s.newDiffusionJob(r, prompts, prefix)
	}
	if e := r.unsupported(); e != nil {
		return nil, e
	}
	smp, e := r.sampling(s.cfg.Sampling)
	if e == nil {
		e = s.applySampling(&r.samplingRequest, &smp)
	}
	if e != nil {
		return nil, e
	}
	smp.NCtx = s.NCtx()
	guard, e := r.loopGuard(s.cfg.LoopGuard)
	if e != nil {
		return nil, e
	}
	nPredict, e := r.maxTokens(s.cfg.NPredict)
	if e != nil {
		return nil, e
	}
	stops, e := r.stops()
	if e != nil {
		return nil, e
	}
	n, e := r.choices()
	if e != nil {
		return nil, e
	}
	want, nProbs, e := r.logprobs(chatMode)
	if e != nil {
		return nil, e
	}
	specOpts, e := s.specOptions(&r.specRequest)
	if e != nil {
		return nil, e
	}
	if len(prompts)*n > maxChoices {
		return nil, badRequest("n", "prompts × n must be at most %d", maxChoices)
	}
	j := &job{id: prefix + randomID(), created: time.Now().Unix(), model: s.ModelID(), prompts: prompts,
		box: newMailbox(), stream: r.Stream, logprobs: want, deadline: time.Now().Add(s.cfg.Timeout)}
	j.usage = r.StreamOptions != nil && r.StreamOptions.IncludeUsage
	j.returnTokens, j.req = r.ReturnTokens, r
	for _, p := range prompts {
		if err := s.checkPrompt(p); err != nil {
			return nil, err
		}
		for c := range n {
			t, err := s.newTask(r, p, smp, nPredict, c)
			if err != nil {
				return nil, err
			}
			t.specOpts, t.guard = specOpts, guard
			t.specOn = s.wantsSpec(specOpts, want, t.smp)
			if !t.specOn {
				for _, tok := range p {
					t.smp.AcceptPrompt(tok) // the penalty history (the Speculator does this itself)
				}
			}
			t.index, t.stops, t.logprobs, t.nProbs = len(j.tasks), stops, want, nProbs
			t.out, t.deadline = j.box, j.deadline
			j.tasks = append(j.tasks, t)
		}
	}
	return j, nil
}

func (s *Server) checkPrompt(p []int32) *apiError {
	if len(p) == 0 {
		return badRequest("prompt", "the prompt is empty")
	}
	if len(p) >= s.NCtx() {
		return contextError(len(p), s.NCtx())
	}
	nv := int32(s.cfg.Tokenizer.NVocab())
	for _, id := range p {
		if id < 0 || id >= nv {
			return badRequest("prompt", "token id %d is outside the vocabulary [0, %d)", id, nv)
		}
	}
	return nil
}

// newTask builds choice c of prompt p. With a fixed seed, choice c uses
// seed+c, so n > 1 gives different samples that are still reproducible.
func (s *Server) newTask(r *rawRequest, p []int32, smp SamplingParams, nPredict, c int) (*task, *apiError) {
	if smp.Seed != 0xFFFFFFFF {
		smp.Seed += uint32(c)
	}
	room := s.NCtx() - len(p)
	if nPredict < 0 || (nPredict > room && !s.cfg.ContextShift) {
		// With --context-shift an explicit n_predict may run past the
		// context; an unlimited one still stops there, as llama-server
		// guards against endless generation.
		nPredict = room
	}
	sampler, err := s.cfg.NewSampler(smp, s.cfg.Tokenizer.NVocab())
	if err != nil {
		return nil, samplerError(err)
	}
	t := &task{prompt: p, sampling: smp, nPredict: nPredict, smp: sampler, thinkBudget: s.cfg.ReasoningBudget}
	if e := s.attachConstraint(r, t); e != nil {
		return nil, e
	}
	t.cachePrompt = r.CachePrompt == nil || *r.CachePrompt
	var e *apiError
	if t.nKeep, t.nDiscard, e = r.shiftParams(); e != nil {
		return nil, e
	}
	return t, nil
}

// submit queues every task; if the queue cannot take them all, the ones
// already queued are cancelled and the client gets 503.
func (s *Server) submit(j *job) *apiError {
	if s.stopping.Load() {
		return newError(503, "unavailable_error", "the server is shutting down")
	}
	s.metrics.request()
	for i, t := range j.tasks {
		if !s.queueTask(t) {
			for _, u := range j.tasks[:i] {
				u.cancel()
			}
			return newError(503, "unavailable_error", "all %d slots are busy and the queue is full; retry later", s.NumSlots())
		}
	}
	return nil
}

func (j *job) cancel() {
	for _, t := range j.tasks {
		t.cancel()
	}
}

// collect waits for every task to finish (or the deadline) and returns
// their results in order; a task error ends the wait with that error.
func (j *job) collect() ([]*choice, *apiError) {
	out := make([]*choice, len(j.tasks))
	for i := range out {
		out[i] = &choice{}
	}
	timer := time.NewTimer(time.Until(j.deadline) + time.Second)
	defer timer.Stop()
	left := len(j.tasks)
	for left > 0 {
		evs := j.box.take(timer.C)
		if evs == nil {
			j.cancel()
			return nil, newError(fasthttp.StatusGatewayTimeout, "server_error", "the request timed out")
		}
		for _, ev := range evs {
			if errors.Is(ev.err, errShutdown) {
				j.cancel()
				return nil, newError(fasthttp.StatusServiceUnavailable, "unavailable_error", "the server shut down before this request could finish; retry")
			}
			if ev.err != nil {
				j.cancel()
				return nil, newError(500, "server_error", "%v", ev.err)
			}
			c := out[ev.index]
			c.add(ev)
			if ev.done {
				c.last, c.done = ev, true
				left--
			}
		}
	}
	return out, nil
}

func (c *choice) add(ev event) {
	c.text = append(c.text, ev.text...)
	c.tokens = append(c.tokens, ev.tokens...)
	c.probs = append(c.probs, ev.probs...)
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// queueTask hands t to the scheduler of the model (causal or diffusion)
// without blocking; false means its queue is full.
func (s *Server) queueTask(t *task) bool {
	if s.diff != nil {
		return s.diff.submit(t)
	}
	return s.sched.submit(t)
}
