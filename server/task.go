package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/waggle-llm/waggle/engine/grammar"
	"github.com/waggle-llm/waggle/spec"
)

// task is one choice of one request: a prompt to continue in some slot.
// The handler goroutine creates it; the scheduler fills its mailbox.
type task struct {
	index       int // choice index
	prompt      []int32
	sampling    SamplingParams
	nPredict    int // already bounded by the context
	stops       []string
	cachePrompt bool
	nProbs      int // top logprobs per token; 0 = none
	logprobs    bool
	deadline    time.Time
	thinkBudget int  // -1 unlimited
	inThink     bool // the prompt opened a <think> block
	closeThink  []int32
	nKeep       int // context shift: tokens kept after BOS (-1: the prompt)
	nDiscard    int // context shift: tokens dropped (0: half of the rest)
	smp         Sampler
	// specOn: the task runs through the Speculator with specOpts.
	specOn   bool
	specOpts spec.RequestOptions
	// gram is the task's grammar state (nil: unconstrained); the sampler
	// holds it as its constraint.
	gram *grammar.Matcher
	// preserved are special tokens shown in the output (tool-call markers).
	preserved map[int32]bool
	guard     LoopGuardParams // the reasoning loop guard's settings
	// embed, when set, makes this an embedding task (sched_embed.go).
	embed *embedTask

	// diff is the task's denoising run on a diffusion model (nil on an
	// autoregressive one).
	diff *diffTask

	cancelled atomic.Bool
	out       *mailbox // shared by the tasks of one request
}

// cancel asks the scheduler to stop the task and free its slot.
func (t *task) cancel() { t.cancelled.Store(true) }

// tokenProb is one token with its log-probability.
type tokenProb struct {
	ID      int32
	Text    string
	Logprob float32
}

// event is what a task reports: generated text (safe to show: no partial
// stop word, whole UTF-8 characters), the token behind it, and at the end
// the finish reason and counts.
type event struct {
	index  int // the task's choice index
	text   string
	tokens []int32
	probs  []tokenLogprobs // one per token when logprobs were asked

	done       bool
	finish     string // "stop" or "length"
	stopType   string // eos, word, limit (llama.cpp's stop_type)
	stopDetail string // token_limit or loop_guard when stopType is limit
	stopWord   string
	loop       *loopReport // set when the loop guard fired
	err        error
	slot       int
	promptN    int // prompt tokens evaluated (not from cache)
	cachedN    int
	predictedN int
	promptMS   float64
	genMS      float64
	truncated  bool // the context was shifted (llama.cpp's "truncated")
	reasoningN int  // generated tokens inside <think>…</think>
	// draftN and draftAccepted are the speculative counters (timings'
	// draft_n and draft_n_accepted).
	draftN, draftAccepted int
	// diffusion is a diffusion answer's denoising counts (timings.diffusion).
	diffusion *diffusionTimings
}

// tokenLogprobs is the chosen token and the top alternatives.
type tokenLogprobs struct {
	tokenProb
	Top []tokenProb
}

// mailbox is an unbounded queue of events with a wake-up channel, so the
// scheduler never blocks on a slow client.
type mailbox struct {
	mu     sync.Mutex
	events []event
	wake   chan struct{}
}

func newMailbox() *mailbox { return &mailbox{wake: make(chan struct{}, 1)} }

func (m *mailbox) put(e event) {
	m.mu.Lock()
	m.events = append(m.events, e)
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// send stamps e with the task's index and queues it.
func (t *task) send(e event) {
	e.index = t.index
	t.out.put(e)
}

// take returns the queued events, waiting up to until for at least one.
// It returns nil when the wait times out.
func (m *mailbox) take(until <-chan time.Time) []event {
	for {
		m.mu.Lock()
		ev := m.events
		m.events = nil
		m.mu.Unlock()
		if len(ev) > 0 {
			return ev
		}
		select {
		case <-m.wake:
		case <-until:
			return nil
		}
	}
}
