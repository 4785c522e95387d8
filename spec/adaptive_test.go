package spec_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/spec"
)

// The adaptive controllers are tested on synthetic streams through the real
// Speculator, with a fake target whose Decode advances a fake clock by a
// cost table and whose greedy continuation is a fixed token stream, and a
// fake drafter whose drafts are right for a scripted number of tokens.
// Everything is deterministic: speed is fake milliseconds.

const simVocab = 64

// costTable gives the fake Decode time in ms of a batch of n tokens.
type costTable func(n int) float64

// engineCost is the engine's measured verify cost on the synthetic
// Llama-3.2-1B Q4_0 model at one thread (bench/specbench -verify-cost, end
// of session 2): a batch of n tokens costs x plain steps; linear in
// between.
func engineCost(n int) float64 {
	pts := []struct{ n, x float64 }{{1, 1}, {2, 1.29}, {4, 1.87}, {8, 3.5}, {9, 4.2}, {16, 6.2}, {32, 12.4}, {65, 25}}
	x := float64(n)
	for i := 1; i < len(pts); i++ {
		if x <= pts[i].n {
			a, b := pts[i-1], pts[i]
			return 44 * (a.x + (x-a.n)*(b.x-a.x)/(b.n-a.n))
		}
	}
	return 44 * 27 * x / 65
}

// memoryBoundCost is what a decode kernel reading each weight once for a
// few columns would give: 6% of a step per extra token.
func memoryBoundCost(n int) float64 { return 44 * (1 + 0.06*float64(n-1)) }

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) advance(ms float64) {
	c.t = c.t.Add(time.Duration(ms * float64(time.Millisecond)))
}

// simSession is a one-sequence engine.Session whose greedy next token after
// position p is stream[p+1], whatever the tokens.
type simSession struct {
	stream []int32
	clock  *fakeClock
	cost   costTable
	n      int
	logits [][]float32
	outs   int
	opts   engine.SessionOptions
	// grow makes every batch cost (1 + grow·position) times the table:
	// attention grows with the context.
	grow float64
}

func newSimSession(stream []int32, clock *fakeClock, cost costTable) *simSession {
	return &simSession{stream: stream, clock: clock, cost: cost, opts: engine.SessionOptions{NCtx: len(stream) + 8, NSeq: 1, NBatch: 512}}
}

func (s *simSession) Decode(b *engine.Batch) error {
	s.outs = 0
	for i, p := range b.Pos {
		if int(p) != s.n+i {
			return fmt.Errorf("sim: position %d, want %d", p, s.n+i)
		}
		if !b.Output[i] {
			continue
		}
		for s.outs >= len(s.logits) {
			s.logits = append(s.logits, make([]float32, simVocab))
		}
		l := s.logits[s.outs]
		clear(l)
		if int(p)+1 < len(s.stream) {
			l[s.stream[p+1]] = 1
		}
		s.outs++
	}
	f := 1 + s.grow*float64(s.n)
	s.n += b.Len()
	if b.Len() > 1 && b.Output[0] { // a prompt costs nothing: only generation is timed
		s.clock.advance(f * s.cost(b.Len()))
	} else if b.Len() == 1 {
		s.clock.advance(f * s.cost(1))
	}
	return nil
}

func (s *simSession) Logits(k int) []float32 { return s.logits[k] }
func (s *simSession) NumOutputs() int        { return s.outs }
func (s *simSession) Hidden(int, int) []float32 {
	return nil
}
func (s *simSession) SeqLen(int) int { return s.n }
func (s *simSession) Truncate(_, pos int) error {
	s.n = min(s.n, pos)
	return nil
}
func (s *simSession) Fork(int, int, int) error       { return fmt.Errorf("sim: no fork") }
func (s *simSession) Options() engine.SessionOptions { return s.opts }
func (s *simSession) Cache() *kvcache.Cache          { return nil }

// scripted drafts the stream itself for good(L) tokens after a context of
// length L, then wrong tokens up to NMax: a model-free drafter whose
// accuracy the test decides. perToken is a draft cost in fake ms per
// drafted token (a draft model).
type scripted struct {
	stream   []int32
	good     func(L int) int
	silent   bool // no draft where good is 0 (an n-gram drafter without a match)
	clock    *fakeClock
	perToken float64
}

func (d *scripted) Name() string          { return "scripted" }
func (d *scripted) Begin(int, []int32)    {}
func (d *scripted) Accept(int, int)       {}
func (d *scripted) Observe(*engine.Batch) {}
func (d *scripted) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		L := r.Len()
		g := d.good(L)
		if g == 0 && d.silent {
			continue
		}
		for j := 0; j < r.NMax && L+j < len(d.stream); j++ {
			t := d.stream[L+j]
			if j >= g {
				t = (t + 1) % simVocab
			}
			r.Draft = append(r.Draft, t)
		}
		d.clock.advance(d.perToken * float64(len(r.Draft)))
	}
}

// simStream is a token stream made of segments: a segment of length n and
// kind 'n' (novel) is never predicted; kind 'l' (loop) is predicted from
// its third token to its end, as an n-gram drafter predicts a loop once it
// has seen it start.
type simStream struct {
	toks   []int32
	good   []int // per position: how many tokens from here a drafter gets right
	silent bool  // the drafter drafts nothing where good is 0
}

func makeStream(prompt int, segs ...any) simStream {
	var s simStream
	for i := range prompt {
		s.toks = append(s.toks, int32(i%7))
		s.good = append(s.good, 0)
	}
	for i := 0; i < len(segs); i += 2 {
		kind, n := segs[i].(byte), segs[i+1].(int)
		start := len(s.toks)
		for j := range n {
			s.toks = append(s.toks, int32((start*5+j*(1+int(kind)))%simVocab))
			g := 0
			if kind == 'l' && j >= 2 {
				g = n - j
			}
			s.good = append(s.good, g)
		}
	}
	return s
}

// rejecting is a stream no draft gets right.
func rejecting(n int) simStream { return makeStream(32, byte('n'), n+8) }

// looping is shaped like the synthetic 1B model's greedy output on the
// repeating prompt (runs of 8, 5, 9, 27, 3, 70 identical tokens between a
// few novel ones), repeated to n tokens.
func looping(n int) simStream {
	var segs []any
	for len(segs) < 4*n {
		segs = append(segs, byte('n'), 2, byte('l'), 8, byte('n'), 3, byte('l'), 5, byte('n'), 1, byte('l'), 9,
			byte('l'), 27, byte('l'), 3, byte('l'), 70)
	}
	s := makeStream(32, segs...)
	s.silent = true
	return s
}

type simResult struct {
	ratio           float64 // plain time / speculative time
	drafted, accept int
	shadowAsked     int
}

// simulate generates n tokens after the stream's first 32 (the prompt),
// req times on one slot (continuation requests keep the controller), and
// returns the speed against plain decoding (n×cost(1) per request).
func simulate(t *testing.T, st simStream, n, reqs int, cost costTable, adaptive spec.AdaptiveParams, base int, perToken float64) simResult {
	t.Helper()
	return simulateGrowing(t, st, n, reqs, cost, 0, adaptive, base, perToken)
}

// simulateGrowing is simulate with batch costs growing with the position
// (simSession.grow).
func simulateGrowing(t *testing.T, st simStream, n, reqs int, cost costTable, grow float64, adaptive spec.AdaptiveParams, base int, perToken float64) simResult {
	t.Helper()
	clock := &fakeClock{t: time.Unix(0, 0)}
	sess := newSimSession(st.toks, clock, cost)
	sess.grow = grow
	drafter := &scripted{stream: st.toks, clock: clock, perToken: perToken, silent: st.silent}
	drafter.good = func(L int) int {
		if L < len(st.good) {
			return st.good[L]
		}
		return 0
	}
	cfg := spec.DefaultConfig()
	cfg.NMax, cfg.Adaptive = base, adaptive
	sp := spec.New(sess, spec.NewChainOf(drafter), &cfg)
	spec.SetClock(sp, clock.now)
	smp, err := sample.New(greedyParams(), simVocab)
	if err != nil {
		t.Fatal(err)
	}
	sl := &spec.Slot{Sampler: smp}
	var res simResult
	start := 32
	for range reqs {
		pos := start
		ok := true
		emit := func(tok int32) bool {
			pos++
			if pos < len(st.toks) && tok != st.toks[pos] {
				ok = false
			}
			return true
		}
		t0 := clock.t
		if _, err := sp.Generate(sl, st.toks[:start+1], n, emit); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("output is not the stream (verification or rollback broken)")
		}
		res.drafted += sl.DraftN
		res.accept += sl.DraftAccepted
		took := float64(clock.t.Sub(t0)) / float64(time.Millisecond)
		plainMS := 0.0
		for p := start + 1; p < start+n; p++ {
			plainMS += (1 + grow*float64(p)) * cost(1)
		}
		res.ratio += plainMS / took / float64(reqs)
		start += n
	}
	return res
}

func adaptiveOn(controller string) spec.AdaptiveParams {
	p := spec.DefaultAdaptive()
	p.Controller = controller
	return p
}

// TestAdaptiveRejectingStaysNearPlain: on a stream whose drafts are all
// wrong, adaptive depth keeps speed within 5% of plain over short (96,
// 128 tokens) and long generations, with the current engine's costly
// verification, for both controllers, and for a drafter whose drafts cost
// time (a draft model: shadows are then rationed).
func TestAdaptiveRejectingStaysNearPlain(t *testing.T) {
	for _, ctl := range []string{"profit", "fringe"} {
		for _, n := range []int{96, 128, 512} {
			for _, perToken := range []float64{0, 0.5} {
				r := simulate(t, rejecting(n), n, 1, engineCost, adaptiveOn(ctl), 16, perToken)
				t.Logf("%s n=%d draft %.1f ms/token: %.3fx plain, drafted %d", ctl, n, perToken, r.ratio, r.drafted)
				if r.ratio < 0.95 {
					t.Errorf("%s n=%d draft %.1f ms/token: %.3fx plain, below 0.95x (drafted %d, accepted %d)", ctl, n, perToken, r.ratio, r.drafted, r.accept)
				}
			}
		}
	}
}

// TestAdaptiveRejectingHarnessCanFail is the test of the test: fixed-depth
// speculation on the same rejecting stream must fall well outside the 5%.
func TestAdaptiveRejectingHarnessCanFail(t *testing.T) {
	r := simulate(t, rejecting(96), 96, 1, engineCost, spec.AdaptiveParams{}, 16, 0)
	if r.ratio >= 0.95 {
		t.Fatalf("fixed depth 16 on a rejecting stream ran at %.3fx plain: the harness cannot tell", r.ratio)
	}
}

// TestAdaptiveMostlyRejecting: drafts right for three tokens at every
// tenth position and wrong elsewhere, a stream on which speculating does
// not pay at the engine's cost: stay within 5%.
func TestAdaptiveMostlyRejecting(t *testing.T) {
	n := 128
	st := rejecting(n)
	for i := range st.good {
		if i%10 == 0 {
			st.good[i] = 3
		}
	}
	for _, ctl := range []string{"profit", "fringe"} {
		r := simulate(t, st, n, 1, engineCost, adaptiveOn(ctl), 16, 0)
		t.Logf("%s: %.3fx plain, drafted %d accepted %d", ctl, r.ratio, r.drafted, r.accept)
		if r.ratio < 0.95 {
			t.Errorf("%s: %.3fx plain on a mostly rejecting stream", ctl, r.ratio)
		}
	}
}

// TestAdaptiveLoopingWins: on a looping stream the profit controller must
// get most of what the best fixed depth gets within 96–128 tokens, and
// beat plain decoding by 2x when verification is memory-bound.
func TestAdaptiveLoopingWins(t *testing.T) {
	for _, c := range []struct {
		name     string
		cost     costTable
		min      float64 // adaptive must reach this
		shareMin float64 // and this share of the best fixed depth
	}{
		// Today's verify cost makes even the best fixed depth barely
		// pay on this stream at 96 tokens: adaptive must not lose.
		{"engine", engineCost, 0.95, 0.9},
		{"memory-bound", memoryBoundCost, 2.0, 0.8},
	} {
		for _, n := range []int{96, 128} {
			bestFixed := 0.0
			for _, d := range []int{2, 4, 8, 16, 32} {
				r := simulate(t, looping(n), n, 1, c.cost, spec.AdaptiveParams{}, d, 0)
				bestFixed = max(bestFixed, r.ratio)
			}
			r := simulate(t, looping(n), n, 1, c.cost, adaptiveOn("profit"), 16, 0)
			t.Logf("%s n=%d: adaptive %.3fx plain (drafted %d accepted %d), best fixed depth %.3fx", c.name, n, r.ratio, r.drafted, r.accept, bestFixed)
			if r.ratio < c.min || r.ratio < c.shareMin*bestFixed {
				t.Errorf("%s n=%d: adaptive %.3fx plain, want ≥ %.2fx and ≥ %.0f%% of the best fixed depth (%.3fx)",
					c.name, n, r.ratio, c.min, 100*c.shareMin, bestFixed)
			}
		}
	}
}

// TestAdaptiveStateAcrossRequests: continuation requests on one slot keep
// what the controller learned, so later requests do at least as well as
// the first.
func TestAdaptiveStateAcrossRequests(t *testing.T) {
	n := 96
	one := simulate(t, looping(4*n), n, 1, engineCost, adaptiveOn("profit"), 16, 0)
	four := simulate(t, looping(4*n), n, 4, engineCost, adaptiveOn("profit"), 16, 0)
	t.Logf("first request %.3fx, mean of four %.3fx", one.ratio, four.ratio)
	if four.ratio < one.ratio-0.02 || math.IsNaN(four.ratio) {
		t.Errorf("continuations lost what the first request learned: %.3fx < %.3fx", four.ratio, one.ratio)
	}
}

// TestWarmCycleAllocatesNothing: a warm speculative cycle, with the
// adaptive controller, shadow drafts and verified drafts, allocates
// nothing (the sim target and drafter allocate nothing once warm).
func TestWarmCycleAllocatesNothing(t *testing.T) {
	st := looping(4096)
	clock := &fakeClock{t: time.Unix(0, 0)}
	sess := newSimSession(st.toks, clock, memoryBoundCost)
	drafter := &scripted{stream: st.toks, clock: clock, silent: true, good: func(L int) int { return st.good[L] }}
	cfg := spec.DefaultConfig()
	cfg.NMax, cfg.Adaptive = 16, adaptiveOn("profit")
	sp := spec.New(sess, spec.NewChainOf(drafter), &cfg)
	spec.SetClock(sp, clock.now)
	smp, err := sample.New(greedyParams(), simVocab)
	if err != nil {
		t.Fatal(err)
	}
	sl := &spec.Slot{Sampler: smp, NPredict: -1}
	if _, err := sp.Start(sl, st.toks[:33]); err != nil {
		t.Fatal(err)
	}
	slots := []*spec.Slot{sl}
	emit := func(*spec.Slot, int32) bool { return true }
	step := func() {
		if err := sp.Step(slots, emit); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		step()
	}
	if sl.DraftN == 0 {
		t.Fatal("no drafts verified: the test proves nothing")
	}
	if a := testing.AllocsPerRun(200, step); a != 0 {
		t.Errorf("warm cycle: %v allocations", a)
	}
}

// tinyCost is stories260K's measured verify cost at one thread
// (bench/specbench -verify-cost): nothing there is memory-bound, and a
// batch of n tokens costs about 1.1·n single steps of 0.1 ms, so no
// verified draft can ever pay, however right it is.
func tinyCost(n int) float64 {
	if n == 1 {
		return 0.1
	}
	return 0.1 * 1.1 * float64(n)
}

// TestAdaptiveComputeBoundStaysNearPlain: where verification costs more per
// token than plain steps (a tiny model), the profit controller must stay
// within 5% of plain on every kind of stream, short requests included —
// including streams whose drafts are right, since even those cannot pay —
// and it learns that from its first verified draft. The step growing with
// the context must not make verification measured early look cheap later.
func TestAdaptiveComputeBoundStaysNearPlain(t *testing.T) {
	mostly := rejecting(256)
	for i := range mostly.good {
		if i%10 == 0 {
			mostly.good[i] = 3
		}
	}
	for _, c := range []struct {
		name string
		st   simStream
	}{{"rejecting", rejecting(256)}, {"mostly-rejecting", mostly}, {"looping", looping(256)}} {
		for _, n := range []int{128, 256} {
			// grow 0.01: the step triples over 200 positions, as
			// stories260K's does.
			for _, grow := range []float64{0, 0.01} {
				r := simulateGrowing(t, c.st, n, 1, tinyCost, grow, adaptiveOn("profit"), 16, 0)
				t.Logf("%s n=%d grow %.2f: %.3fx plain, drafted %d accepted %d", c.name, n, grow, r.ratio, r.drafted, r.accept)
				if r.ratio < 0.95 {
					t.Errorf("%s n=%d grow %.2f: %.3fx plain with compute-bound verification (drafted %d, accepted %d)", c.name, n, grow, r.ratio, r.drafted, r.accept)
				}
			}
		}
	}
}
