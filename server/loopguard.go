package server

import (
	"fmt"
	"math"
	"slices"
)

// LoopGuardMode is what the reasoning loop guard does when generation loops.
type LoopGuardMode string

// The guard's modes, as BeeLlama names them.
const (
	// LoopGuardForceClose ends a looping reasoning block by forcing its
	// closing tag (then stops if it loops again past the intervention
	// budget); a looping answer, or a task where the tag cannot be forced,
	// is stopped.
	LoopGuardForceClose LoopGuardMode = "force-close"
	// LoopGuardStop ends the generation with finish_reason "length".
	LoopGuardStop LoopGuardMode = "stop"
	// LoopGuardOff never checks.
	LoopGuardOff LoopGuardMode = "off"
)

// LoopGuardParams configure the reasoning loop guard (BeeLlama's
// --reasoning-loop-* flags; a request may override each).
type LoopGuardParams struct {
	Mode          LoopGuardMode
	MinTokens     int // reasoning tokens before the first check
	Window        int // tokens kept per region
	MaxPeriod     int // longest period the periodic test tries
	MinCoverage   int // repeated tokens needed to trigger
	CheckInterval int // check every this many tokens of a region
	Interventions int // force-closes before the guard stops instead
}

// DefaultLoopGuard returns BeeLlama's defaults: force-close, checks from
// 1024 reasoning tokens on, every 32 tokens, over the last 2048, periods
// up to 512, 768 repeated tokens to trigger, one intervention.
func DefaultLoopGuard() LoopGuardParams {
	return LoopGuardParams{Mode: LoopGuardForceClose, MinTokens: 1024, Window: 2048, MaxPeriod: 512,
		MinCoverage: 768, CheckInterval: 32, Interventions: 1}
}

// maxLoopWindow bounds reasoning_loop_window (the guard keeps two tails of
// that many tokens and scratch space for the tests).
const maxLoopWindow = 1 << 16

// ParseLoopGuardMode reads a mode name.
func ParseLoopGuardMode(s string) (LoopGuardMode, error) {
	switch m := LoopGuardMode(s); m {
	case LoopGuardForceClose, LoopGuardStop, LoopGuardOff:
		return m, nil
	}
	return "", fmt.Errorf("reasoning_loop_guard must be one of: off, force-close, stop (got %q)", s)
}

// Validate applies BeeLlama's consistency rules and returns the name of the
// offending request field with the message.
func (p LoopGuardParams) Validate() (field string, err error) {
	checks := []struct {
		bad   bool
		field string
		msg   string
	}{
		{p.MinTokens < 0, "reasoning_loop_min_tokens", "must be >= 0"},
		{p.Window <= 0 || p.Window > maxLoopWindow, "reasoning_loop_window", fmt.Sprintf("must be in [1, %d]", maxLoopWindow)},
		{p.MaxPeriod <= 0, "reasoning_loop_max_period", "must be > 0"},
		{p.MinCoverage <= 0, "reasoning_loop_min_coverage", "must be > 0"},
		{p.CheckInterval <= 0, "reasoning_loop_check_interval", "must be > 0"},
		{p.Interventions < 0, "reasoning_loop_interventions", "must be >= 0"},
		{p.Window < p.MinCoverage, "reasoning_loop_window", "must be >= reasoning_loop_min_coverage"},
		{p.MaxPeriod > p.Window/3, "reasoning_loop_max_period", "must be <= reasoning_loop_window / 3"},
		{p.MinTokens < p.MinCoverage, "reasoning_loop_min_tokens", "must be >= reasoning_loop_min_coverage"},
	}
	if _, err := ParseLoopGuardMode(string(p.Mode)); err != nil {
		return "reasoning_loop_guard", err
	}
	for _, c := range checks {
		if c.bad {
			return c.field, fmt.Errorf("%s %s", c.field, c.msg)
		}
	}
	return "", nil
}

// loopRegion is the part of the output a token belongs to.
type loopRegion int

const (
	regionReasoning loopRegion = iota
	regionVisible
)

func (r loopRegion) String() string {
	if r == regionReasoning {
		return "reasoning"
	}
	return "visible"
}

// loopFinding is a triggered test: its kind (periodic_tail,
// ngram_dominance, low_entropy), the period or n-gram size, how many
// tokens repeat and the score.
type loopFinding struct {
	kind     string
	period   int
	coverage int
	score    float32
}

// loopGuard watches one task's output for loops, as BeeLlama's
// server_loop_guard does: the reasoning and the visible tokens each keep a
// tail of the last Window tokens, and every CheckInterval tokens of a region
// three tests run on its tail, the first that fires wins. All scratch space
// is allocated with the guard, so checking allocates nothing.
type loopGuard struct {
	p     LoopGuardParams
	tails [2]tokenRing
	seen  [2]int

	lin     []int32 // the tail under test, oldest first
	covered []bool  // n-gram dominance: positions inside a repeated n-gram
	table   []int32 // n-gram dominance: open-addressing table of first starts, -1 empty
}

// tokenRing keeps the last len(buf) tokens.
type tokenRing struct {
	buf         []int32
	first, size int
}

func (r *tokenRing) push(tok int32) {
	if r.size == len(r.buf) {
		r.buf[r.first] = tok
		r.first = (r.first + 1) % len(r.buf)
		return
	}
	r.buf[(r.first+r.size)%len(r.buf)] = tok
	r.size++
}

// copyTo writes the tokens oldest first into dst and returns them.
func (r *tokenRing) copyTo(dst []int32) []int32 {
	dst = dst[:r.size]
	for i := range r.size {
		dst[i] = r.buf[(r.first+i)%len(r.buf)]
	}
	return dst
}

func newLoopGuard(p LoopGuardParams) *loopGuard {
	if p.Mode == LoopGuardOff {
		return nil
	}
	g := &loopGuard{p: p, lin: make([]int32, p.Window), covered: make([]bool, p.Window)}
	for i := range g.tails {
		g.tails[i].buf = make([]int32, p.Window)
	}
	size := 1
	for size < 2*p.Window {
		size <<= 1
	}
	g.table = make([]int32, size)
	return g
}

// accept adds a token of region and reports whether a check is due
// (should_check: never before MinTokens reasoning tokens).
func (g *loopGuard) accept(tok int32, r loopRegion) bool {
	g.tails[r].push(tok)
	g.seen[r]++
	n := g.seen[r]
	if r == regionReasoning && n < g.p.MinTokens {
		return false
	}
	return n%g.p.CheckInterval == 0
}

// check runs the tests on region r's tail.
func (g *loopGuard) check(r loopRegion) (loopFinding, bool) {
	if r == regionReasoning && g.seen[r] < g.p.MinTokens {
		return loopFinding{}, false
	}
	toks := g.tails[r].copyTo(g.lin)
	if f, ok := g.periodicTail(toks); ok {
		return f, true
	}
	if r == regionReasoning {
		if f, ok := g.ngramDominance(toks); ok {
			return f, true
		}
	}
	return g.lowEntropy(toks)
}

// periodicTail finds the smallest period p (up to MaxPeriod and a third of
// the tail) such that token[i] == token[i-p] for all but a sliver of the
// tail: 0.5% mismatches allowed for p <= 8, 1% up to 64, 2% beyond, over at
// least MinCoverage compared positions.
func (g *loopGuard) periodicTail(toks []int32) (loopFinding, bool) {
	n := len(toks)
	for p := 1; p <= min(g.p.MaxPeriod, n/3); p++ {
		coverage := n - p
		if coverage < g.p.MinCoverage {
			continue
		}
		threshold := float32(0.980)
		switch {
		case p <= 8:
			threshold = 0.995
		case p <= 64:
			threshold = 0.990
		}
		maxMiss := int(math.Floor(float64((1 - threshold) * float32(coverage))))
		miss, match := 0, 0
		for i := p; i < n; i++ {
			if toks[i] == toks[i-p] {
				match++
			} else if miss++; miss > maxMiss {
				break
			}
		}
		if miss <= maxMiss {
			return loopFinding{"periodic_tail", p, coverage, float32(match) / float32(coverage)}, true
		}
	}
	return loopFinding{}, false
}

// ngramDominance marks every n-gram (of 8, 16, then 32 tokens) that occurs
// earlier in the tail, together with its first occurrence; it fires when
// the marked positions number at least MinCoverage and half the tail.
func (g *loopGuard) ngramDominance(toks []int32) (loopFinding, bool) {
	n := len(toks)
	if n < g.p.MinCoverage {
		return loopFinding{}, false
	}
	for _, size := range [...]int{8, 16, 32} {
		if n < 2*size {
			continue
		}
		coverage := g.repeatedNgrams(toks, size)
		if coverage >= g.p.MinCoverage && 2*coverage >= n {
			return loopFinding{"ngram_dominance", size, coverage, float32(coverage) / float32(n)}, true
		}
	}
	return loopFinding{}, false
}

// repeatedNgrams returns how many positions lie in an n-gram of size that
// repeats an earlier one (or is the earliest occurrence of a repeated one).
func (g *loopGuard) repeatedNgrams(toks []int32, size int) int {
	covered := g.covered[:len(toks)]
	clear(covered)
	for i := range g.table {
		g.table[i] = -1
	}
	mask := uint64(len(g.table) - 1)
	for start := 0; start+size <= len(toks); start++ {
		gram := toks[start : start+size]
		for h := ngramHash(gram) & mask; ; h = (h + 1) & mask {
			first := g.table[h]
			if first < 0 {
				g.table[h] = int32(start)
				break
			}
			if slices.Equal(toks[first:int(first)+size], gram) {
				for i := range size {
					covered[int(first)+i], covered[start+i] = true, true
				}
				break
			}
		}
	}
	c := 0
	for _, v := range covered {
		if v {
			c++
		}
	}
	return c
}

// ngramHash is FNV-1a over the token ids with a mixing constant.
func ngramHash(gram []int32) uint64 {
	h := uint64(1469598103934665603)
	for _, t := range gram {
		h ^= uint64(uint32(t)) + 0x9e3779b97f4a7c15
		h *= 1099511628211
	}
	return h
}

// lowEntropy fires when the last 1024 tokens use at most 32 distinct ids
// and the 8 most frequent cover 95% of them.
func (g *loopGuard) lowEntropy(toks []int32) (loopFinding, bool) {
	const span = 1024
	nTail := min(len(toks), g.p.Window, span)
	if nTail < span || nTail < g.p.MinCoverage {
		return loopFinding{}, false
	}
	// toks is g.lin; sorting its last nTail entries in place is fine, the
	// tests that need the order ran before.
	tail := toks[len(toks)-nTail:]
	slices.Sort(tail)
	var top [8]int // the 8 largest run lengths, descending
	distinct := 0
	for i := 0; i < nTail; {
		j := i
		for j < nTail && tail[j] == tail[i] {
			j++
		}
		distinct++
		insertTop(&top, j-i)
		i = j
	}
	top8 := 0
	for _, c := range top {
		top8 += c
	}
	cover := float32(top8) / float32(nTail)
	if distinct <= 32 && cover >= 0.95 {
		return loopFinding{"low_entropy", 0, top8, cover}, true
	}
	return loopFinding{}, false
}

// insertTop keeps the largest counts in descending order.
func insertTop(top *[8]int, c int) {
	for i := range top {
		if c > top[i] {
			copy(top[i+1:], top[i:len(top)-1])
			top[i] = c
			return
		}
	}
}
