package server

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

func guardFor(p LoopGuardParams) *loopGuard {
	if _, err := p.Validate(); err != nil {
		panic(err)
	}
	return newLoopGuard(p)
}

// smallGuard is a guard scaled down for short token streams.
func smallGuard() LoopGuardParams {
	return LoopGuardParams{Mode: LoopGuardForceClose, MinTokens: 48, Window: 96, MaxPeriod: 16,
		MinCoverage: 48, CheckInterval: 8, Interventions: 1}
}

// feed pushes toks into region r and returns the first finding.
func feed(g *loopGuard, r loopRegion, toks []int32) (loopFinding, int, bool) {
	for i, t := range toks {
		if g.accept(t, r) {
			if f, ok := g.check(r); ok {
				return f, i + 1, true
			}
		}
	}
	return loopFinding{}, len(toks), false
}

func randomTokens(r *rand.Rand, n, vocab int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.IntN(vocab))
	}
	return out
}

func TestPeriodicTail(t *testing.T) {
	cycle := func(n int, period ...int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = period[i%len(period)]
		}
		return out
	}
	p := DefaultLoopGuard()
	g := guardFor(p)
	toks := cycle(900, 7, 8, 9, 7, 8, 9) // period 3, also 6
	if f, ok := g.periodicTail(toks); !ok || f.kind != "periodic_tail" || f.period != 3 || f.coverage != 897 || f.score != 1 {
		t.Fatalf("period 3: %+v %v", f, ok)
	}
	// 897 compared positions allow floor(0.005*897) = 4 mismatches at p <= 8;
	// one wrong token makes up to two.
	toks[500], toks[700] = 1, 2
	if f, ok := g.periodicTail(toks); !ok || f.period != 3 || f.score >= 1 {
		t.Fatalf("two glitches: %+v %v", f, ok)
	}
	toks[100], toks[300], toks[800] = 1, 2, 3
	if f, ok := g.periodicTail(toks); !ok || f.period <= 64 {
		t.Fatalf("five glitches: %+v %v (only the 2%% tolerance of periods > 64 takes them)", f, ok)
	}
	p.MaxPeriod = 64
	if f, ok := guardFor(p).periodicTail(toks); ok {
		t.Fatalf("five glitches still a loop of period <= 64: %+v", f)
	}
	// Three glitches make six mismatches at periods 3 and 6, over the 0.5%
	// of periods up to 8 but within the 1% of period 9.
	toks = cycle(900, 7, 8, 9)
	toks[200], toks[400], toks[600] = 1, 2, 3
	if f, ok := g.periodicTail(toks); !ok || f.period != 9 {
		t.Fatalf("three glitches: %+v %v, want period 9", f, ok)
	}
	if _, ok := g.periodicTail(cycle(700, 1, 2)); ok {
		t.Fatal("699 compared positions cannot reach min coverage 768")
	}
}

// ngramRef is BeeLlama's n-gram dominance as written there: hash buckets of
// starts, intervals of repeated n-grams, sorted and merged.
func ngramRef(toks []int32, size int) int {
	buckets := map[uint64][]int{}
	var iv [][2]int
	for start := 0; start+size <= len(toks); start++ {
		h := ngramHash(toks[start : start+size])
		for _, prev := range buckets[h] {
			eq := true
			for i := range size {
				eq = eq && toks[prev+i] == toks[start+i]
			}
			if eq {
				iv = append(iv, [2]int{prev, prev + size}, [2]int{start, start + size})
				break
			}
		}
		buckets[h] = append(buckets[h], start)
	}
	if len(iv) == 0 {
		return 0
	}
	sort.Slice(iv, func(a, b int) bool { return iv[a][0] < iv[b][0] || iv[a][0] == iv[b][0] && iv[a][1] < iv[b][1] })
	cov, b, e := 0, iv[0][0], iv[0][1]
	for _, x := range iv[1:] {
		if x[0] <= e {
			e = max(e, x[1])
		} else {
			cov, b, e = cov+e-b, x[0], x[1]
		}
	}
	return cov + e - b
}

func TestNgramCoverageMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := guardFor(DefaultLoopGuard())
	for trial := range 200 {
		n := 64 + r.IntN(1900)
		var toks []int32
		for len(toks) < n { // stretches of copied text among fresh tokens
			if len(toks) > 40 && r.IntN(3) == 0 {
				at := r.IntN(len(toks) - 20)
				toks = append(toks, toks[at:at+8+r.IntN(12)]...)
			} else {
				toks = append(toks, randomTokens(r, 1+r.IntN(30), 3+trial%50)...)
			}
		}
		toks = toks[:n]
		for _, size := range []int{8, 16, 32} {
			if got, want := g.repeatedNgrams(toks, size), ngramRef(toks, size); got != want {
				t.Fatalf("trial %d size %d: coverage %d, reference %d", trial, size, got, want)
			}
		}
	}
}

func TestNgramDominanceAndLowEntropy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := guardFor(DefaultLoopGuard())
	a := randomTokens(r, 700, 5000)
	toks := append(append(append([]int32{}, a...), randomTokens(r, 300, 5000)...), a...) // A X A: no period fits
	if _, ok := g.periodicTail(toks); ok {
		t.Fatal("A X A is not periodic within the tail's third")
	}
	f, ok := g.ngramDominance(toks)
	if !ok || f.kind != "ngram_dominance" || f.period != 8 || f.coverage != 1400 {
		t.Fatalf("A X A: %+v %v", f, ok)
	}
	if _, ok := g.ngramDominance(randomTokens(r, 1700, 5000)); ok {
		t.Fatal("fresh text dominated by repeats")
	}
	few := randomTokens(r, 1100, 6) // 6 distinct ids, no period
	if f, ok := g.lowEntropy(few); !ok || f.kind != "low_entropy" || f.coverage != 1024 {
		t.Fatalf("six tokens: %+v %v", f, ok)
	}
	if _, ok := g.lowEntropy(randomTokens(r, 1100, 40)); ok {
		t.Fatal("40 distinct tokens are not low entropy")
	}
	if _, ok := g.lowEntropy(few[:1000]); ok {
		t.Fatal("low entropy needs 1024 tokens")
	}
	// 8 frequent ids cover 97% of the last 1024 tokens; the rest are
	// singletons: 32 distinct ids fire, 33 do not.
	for _, singles := range []int{24, 25} {
		tail := randomTokens(r, 1024-singles, 8)
		for i := range singles {
			tail = append(tail, int32(100+i))
		}
		if _, ok := g.lowEntropy(tail); ok != (singles == 24) {
			t.Fatalf("%d distinct ids: fired %v", 8+singles, ok)
		}
	}
}

// The reasoning region waits for MinTokens and runs all three tests; the
// visible region checks from the first interval and skips n-gram
// dominance; checks come every CheckInterval tokens of a region.
func TestGuardRegions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := smallGuard()
	loop := make([]int32, 200)
	for i := range loop {
		loop[i] = int32(10 + i%4)
	}
	g := guardFor(p)
	// At 48 reasoning tokens no period has 48 compared positions yet, but
	// every 8-gram repeats.
	f, at, ok := feed(g, regionReasoning, loop)
	if !ok || f.kind != "ngram_dominance" || f.coverage != 48 || at != 48 {
		t.Fatalf("reasoning loop: %+v at %d %v", f, at, ok)
	}
	// The visible region has no n-gram test: period 4 fires at 56 tokens
	// (52 compared positions).
	// MinTokens holds back the reasoning checks only.
	late := p
	late.MinTokens = 150
	g = guardFor(late)
	if f, at, ok := feed(g, regionVisible, loop); !ok || f.kind != "periodic_tail" || f.period != 4 || at != 56 {
		t.Fatalf("visible loop: %+v at %d %v", f, at, ok)
	}
	g = guardFor(late)
	if _, at, ok := feed(g, regionReasoning, loop); !ok || at != 152 {
		t.Fatalf("reasoning loop with 150 min tokens: at %d %v", at, ok)
	}
	// A X A in the visible region: n-gram dominance does not apply there.
	a := randomTokens(r, 40, 1000)
	axa := append(append(append([]int32{}, a...), randomTokens(r, 16, 1000)...), a...)
	g = guardFor(p)
	if f, _, ok := feed(g, regionVisible, axa); ok {
		t.Fatalf("visible A X A triggered %+v", f)
	}
	g = guardFor(p)
	if f, _, ok := feed(g, regionReasoning, axa); !ok || f.kind != "ngram_dominance" {
		t.Fatalf("reasoning A X A: %+v %v", f, ok)
	}
	// The regions keep separate tails and counters.
	g = guardFor(p)
	for i := range 40 {
		g.accept(loop[i], regionReasoning)
		g.accept(int32(500+i), regionVisible)
	}
	if g.seen != [2]int{40, 40} || g.tails[regionVisible].size != 40 {
		t.Fatalf("regions mixed: seen %v", g.seen)
	}
}

func TestGuardChecksAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := guardFor(DefaultLoopGuard())
	toks := randomTokens(r, 4096, 20)
	i := 0
	if n := testing.AllocsPerRun(50, func() {
		for range 64 {
			if g.accept(toks[i%len(toks)], loopRegion(i%2)) {
				g.check(loopRegion(i % 2))
			}
			i++
		}
	}); n != 0 {
		t.Fatalf("accept/check allocate %v times", n)
	}
}

func TestLoopGuardParamsValidate(t *testing.T) {
	ok := DefaultLoopGuard()
	if f, err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %s %v", f, err)
	}
	bad := map[string]func(*LoopGuardParams){
		"reasoning_loop_guard":          func(p *LoopGuardParams) { p.Mode = "sometimes" },
		"reasoning_loop_min_tokens":     func(p *LoopGuardParams) { p.MinTokens = 700 }, // < min coverage
		"reasoning_loop_max_period":     func(p *LoopGuardParams) { p.MaxPeriod = 700 }, // > window/3
		"reasoning_loop_check_interval": func(p *LoopGuardParams) { p.CheckInterval = 0 },
		"reasoning_loop_interventions":  func(p *LoopGuardParams) { p.Interventions = -1 },
		"reasoning_loop_min_coverage":   func(p *LoopGuardParams) { p.MinCoverage = 0 },
	}
	for want, f := range bad {
		p := DefaultLoopGuard()
		f(&p)
		if field, err := p.Validate(); err == nil || field != want {
			t.Errorf("%s: got field %q, %v", want, field, err)
		}
	}
	p := DefaultLoopGuard()
	p.Window = 768 // = coverage, so max period 512 > 256
	if field, err := p.Validate(); err == nil || field != "reasoning_loop_max_period" {
		t.Errorf("window 768: %s %v", field, err)
	}
}

// loopModel wraps a model so that the next token is a function of the
// previous one: one word after another around a cycle, a scripted loop.
type loopModel struct {
	engine.Model
	cycle []int32
}

func (m *loopModel) next(prev int32) int32 {
	i := slices.Index(m.cycle, prev)
	return m.cycle[(i+1)%len(m.cycle)] // not in the cycle: its first word
}

func (m *loopModel) NewSession(o engine.SessionOptions) (engine.Session, error) {
	s, err := m.Model.NewSession(o)
	if err != nil {
		return nil, err
	}
	return &loopSession{Session: s, m: m, row: make([]float32, m.Info().NVocab)}, nil
}

type loopSession struct {
	engine.Session
	m   *loopModel
	in  []int32 // the input token of each output of the last Decode
	row []float32
}

func (s *loopSession) Decode(b *engine.Batch) error {
	if err := s.Session.Decode(b); err != nil {
		return err
	}
	s.in = s.in[:0]
	for i, out := range b.Output {
		if out {
			s.in = append(s.in, b.Tokens[i])
		}
	}
	return nil
}

func (s *loopSession) Logits(k int) []float32 {
	clear(s.row)
	s.row[s.m.next(s.in[k])] = 30
	return s.row
}

// loopServer serves the looping model with a chat template that opens
// <think> at the start of the reply.
func loopServer(t *testing.T) (*testServer, *loopModel) {
	var lm *loopModel
	ts := newSamplingServer(t, func(c *Config) {
		var cycle []int32 // four distinct tokens, so that each has one successor
		for _, tok := range c.Tokenizer.Encode("one two three four", false, false) {
			if !slices.Contains(cycle, tok) && len(cycle) < 4 {
				cycle = append(cycle, tok)
			}
		}
		lm = &loopModel{Model: c.Model, cycle: cycle}
		c.Model = lm
		c.CtxSize, c.Parallel, c.ReasoningBudget = 1024, 1, -1
		c.ChatTemplate = "{% for m in messages %}{{ m['content'] }}{% endfor %}{% if add_generation_prompt %}<think>\n{% endif %}"
	})
	return ts, lm
}

// smallGuardFields are smallGuard's settings as request fields.
const smallGuardFields = `"reasoning_loop_min_tokens": 48, "reasoning_loop_window": 96, "reasoning_loop_max_period": 16,
	"reasoning_loop_min_coverage": 48, "reasoning_loop_check_interval": 8`

type chatResult struct {
	finish, content, reasoning string
	tokens                     int
}

func loopChat(t *testing.T, ts *testServer, fields string) chatResult {
	t.Helper()
	code, m := ts.post(t, "/v1/chat/completions", `{"messages": [{"role": "user", "content": "go"}], "temperature": 0, `+fields+`}`)
	if code != 200 {
		t.Fatalf("%s: status %d %v", fields, code, m)
	}
	ch := m["choices"].([]any)[0].(map[string]any)
	msg := ch["message"].(map[string]any)
	r, _ := msg["reasoning_content"].(string)
	return chatResult{ch["finish_reason"].(string), msg["content"].(string), r,
		int(m["usage"].(map[string]any)["completion_tokens"].(float64))}
}

// cycleText is the text of one turn of the loop.
func cycleText(ts *testServer, lm *loopModel) string {
	var b strings.Builder
	for _, tok := range lm.cycle {
		b.WriteString(ts.cfg.Tokenizer.Piece(tok, false))
	}
	return b.String()
}

func TestLoopGuardForceClose(t *testing.T) {
	ts, lm := loopServer(t)
	closing := len(ts.closeThink())
	turn := cycleText(ts, lm)
	// force-close: the reasoning loop is caught at 48 tokens and its tag
	// forced; the answer then loops too and is stopped after 56 tokens.
	r := loopChat(t, ts, `"max_tokens": 400, "reasoning_loop_guard": "force-close", `+smallGuardFields)
	if r.finish != "length" || r.tokens != 48+closing+56 || !strings.Contains(r.reasoning, turn+turn) ||
		!strings.Contains(r.content, turn+turn) {
		t.Fatalf("force-close: %+v (closing tag %d tokens)", r, closing)
	}
	// A looping answer is stopped even with interventions left.
	if again := loopChat(t, ts, `"max_tokens": 400, "reasoning_loop_interventions": 3, `+smallGuardFields); again != r {
		t.Fatalf("3 interventions: %+v, want %+v", again, r)
	}
	// stop, and force-close without interventions left, end at the first loop.
	for _, f := range []string{`"reasoning_loop_guard": "stop"`, `"reasoning_loop_interventions": 0`} {
		r = loopChat(t, ts, `"max_tokens": 400, `+f+`, `+smallGuardFields)
		if r.finish != "length" || r.tokens != 48 || r.content != "" || r.reasoning == "" {
			t.Fatalf("%s: %+v", f, r)
		}
	}
	// Too few tokens left for the closing tag: force-close falls back to stop.
	r = loopChat(t, ts, jsonf(`"max_tokens": %d, `, 48+closing-1)+smallGuardFields)
	if r.finish != "length" || r.tokens != 48 || r.content != "" {
		t.Fatalf("no room for the tag: %+v", r)
	}
	// off: the loop runs to the token limit.
	r = loopChat(t, ts, `"max_tokens": 200, "reasoning_loop_guard": "off", `+smallGuardFields)
	if r.finish != "length" || r.tokens != 200 || r.content != "" {
		t.Fatalf("off: %+v", r)
	}
	// The server's defaults (checks from 1024 reasoning tokens) leave a
	// short loop alone.
	r = loopChat(t, ts, `"max_tokens": 300`)
	if r.tokens != 300 {
		t.Fatalf("defaults: %+v", r)
	}
}

// /completion has no reasoning block to close: a looping answer is stopped
// and reported.
func TestLoopGuardCompletionReport(t *testing.T) {
	ts, lm := loopServer(t)
	code, m := ts.post(t, "/completion", `{"prompt": "go", "n_predict": 400, "temperature": 0, `+smallGuardFields+`}`)
	if code != 200 {
		t.Fatalf("status %d %v", code, m)
	}
	lg, _ := m["loop_guard"].(map[string]any)
	if m["stop_type"] != "limit" || m["stop_detail"] != "loop_guard" || m["tokens_predicted"] != 56.0 || lg == nil ||
		lg["action"] != "stop" || lg["reason"] != "periodic_tail" || lg["region"] != "visible" || lg["period"] != float64(len(lm.cycle)) {
		t.Fatalf("completion: %v", m)
	}
	_, m = ts.post(t, "/completion", `{"prompt": "go", "n_predict": 100, "temperature": 0, "reasoning_loop_guard": "off"}`)
	if m["stop_detail"] != "token_limit" || m["loop_guard"] != nil || m["tokens_predicted"] != 100.0 {
		t.Fatalf("off: %v", m)
	}
}
