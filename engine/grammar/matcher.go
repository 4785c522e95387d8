package grammar

import (
	"errors"
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine/sample"
)

// ErrRejected reports that a token the grammar does not allow was accepted
// (llama.cpp aborts with "Unexpected empty grammar stack").
var ErrRejected = errors.New("grammar: the output no longer matches the grammar")

// Matcher applies a Grammar to generated tokens: it is the grammar sampler
// of llama.cpp (llama_sampler_init_grammar and its lazy variant) and
// implements sample.Constraint, sample.ConstraintCloner and
// sample.PrefixChecker. A Matcher and its clones share memo tables and must
// be used from one goroutine.
type Matcher struct {
	g      *Grammar
	ix     *Index
	sp     *space
	stacks []int32 // sorted set of stack ids, all with terminal tops or empty
	pt     partial
	err    error
	lazy   *lazyState // nil: not lazy, or triggered

	// scratch
	cps    []uint32
	frames []walkFrame
	accum  []int32
	probe  *Matcher // AllowedPrefix's copy
}

var (
	_ sample.Constraint       = (*Matcher)(nil)
	_ sample.ConstraintCloner = (*Matcher)(nil)
	_ sample.PrefixChecker    = (*Matcher)(nil)
)

// NewMatcher starts g at its root rule over the vocabulary ix.
func NewMatcher(g *Grammar, ix *Index) *Matcher {
	m := &Matcher{g: g, ix: ix, sp: newSpace(g)}
	m.stacks = m.rootStacks()
	m.checkTable()
	return m
}

// rootStacks expands each alternative of the root rule.
func (m *Matcher) rootStacks() []int32 {
	g, t := m.g, m.sp.t
	var out []int32
	pos := g.start[g.root]
	for {
		s := t.pushUnlessEnd(0, pos)
		out = t.advance(out, s)
		for !g.isEndOfSeq(pos) {
			pos++
		}
		if g.elems[pos].k != kAlt {
			return out
		}
		pos++
	}
}

// Err returns why the Matcher stopped following the grammar, or nil.
func (m *Matcher) Err() error {
	if m.err == nil && m.sp.t.err != nil {
		m.err = m.sp.t.err
	}
	return m.err
}

// Done reports whether the text so far is a complete sentence of the
// grammar (an end-of-generation token would be allowed now).
func (m *Matcher) Done() bool { return m.lazy == nil && m.allowEOG() }

// Waiting reports whether a lazy grammar has not been triggered yet.
func (m *Matcher) Waiting() bool { return m.lazy != nil }

func (m *Matcher) allowEOG() bool { return len(m.stacks) > 0 && m.stacks[0] == 0 }

// Allowed reports whether tok may come next.
func (m *Matcher) Allowed(tok int32) bool {
	if m.lazy != nil {
		return true
	}
	if tok < 0 || int(tok) >= m.ix.n {
		return false
	}
	if m.Err() != nil {
		return m.ix.eog[tok]
	}
	if m.ix.eog[tok] {
		return m.allowEOG()
	}
	if m.ix.dead[tok] {
		return false
	}
	root := m.sp.set(m.stacks)
	if m.pt.remain <= 0 {
		if b := m.sp.cache.get(root); b != nil {
			return hasBit(b, tok)
		}
		return m.tokenOK(root, m.ix.codePoints(tok), m.ix.tail[tok], tok)
	}
	var tail partial
	m.cps, tail = decodePiece(m.cps[:0], m.ix.pieces[tok], m.pt)
	return m.tokenOK(root, untilZero(m.cps), tail, tok)
}

// tokenOK walks one candidate's code points from set id
// (llama_grammar_reject_candidates for a single candidate).
func (m *Matcher) tokenOK(id int32, cps []uint32, tail partial, tok int32) bool {
	for _, c := range cps {
		if m.sp.tokenMatch(id, tok) {
			return true
		}
		if id = m.sp.next(id, c); id == 0 {
			return false
		}
	}
	return m.sp.endOK(id, tail)
}

// Filter sets Logit to -Inf on every candidate the grammar rejects
// (llama_grammar_apply_impl). A lazy grammar still waiting filters
// nothing; a failed Matcher allows only end-of-generation tokens.
func (m *Matcher) Filter(c []sample.Candidate) {
	if m.lazy != nil {
		return
	}
	negInf := float32(math.Inf(-1))
	if m.Err() != nil {
		for i := range c {
			if id := c[i].ID; id < 0 || int(id) >= m.ix.n || !m.ix.eog[id] {
				c[i].Logit = negInf
			}
		}
		return
	}
	if m.pt.remain > 0 {
		for i := range c {
			if !m.Allowed(c[i].ID) {
				c[i].Logit = negInf
			}
		}
		return
	}
	bits := m.sp.accepted(m.ix, m.sp.set(m.stacks), &m.frames)
	eog := m.allowEOG()
	for i := range c {
		id := c[i].ID
		switch {
		case id < 0 || int(id) >= m.ix.n:
			c[i].Logit = negInf
		case m.ix.eog[id]:
			if !eog {
				c[i].Logit = negInf
			}
		case !hasBit(bits, id):
			c[i].Logit = negInf
		}
	}
}

// Accept advances past tok (llama_grammar_accept_impl). A token the
// grammar does not allow leaves the Matcher failed (see Err).
func (m *Matcher) Accept(tok int32) {
	if m.Err() != nil {
		return
	}
	if tok < 0 || int(tok) >= m.ix.n {
		m.err = fmt.Errorf("%w: token %d is outside the vocabulary", ErrRejected, tok)
		return
	}
	if m.lazy != nil {
		m.acceptWaiting(tok)
		return
	}
	if m.ix.eog[tok] {
		if !m.allowEOG() {
			m.err = fmt.Errorf("%w: end of generation before the grammar is complete", ErrRejected)
		}
		return
	}
	m.acceptPiece(tok, m.ix.pieces[tok])
}

// acceptPiece is llama_grammar_accept_token: every stack waiting for a
// token advances if tok satisfies it; every other non-empty stack consumes
// the piece's code points one by one.
func (m *Matcher) acceptPiece(tok int32, piece string) {
	var tail partial
	m.cps, tail = decodePiece(m.cps[:0], piece, m.pt)
	sp, g := m.sp, m.g
	m.accum = m.accum[:0]
	var chars []int32
	for _, s := range m.stacks {
		if s == 0 {
			continue
		}
		pos := sp.t.top[s]
		if !isTokenKind(g.elems[pos].k) {
			chars = append(chars, s)
			continue
		}
		if g.matchToken(pos, tok) {
			m.accum = mergeSet(m.accum, sp.t.stepOf(s))
		}
	}
	id := sp.set(chars)
	for _, c := range m.cps {
		if id = sp.next(id, c); id == 0 {
			break
		}
	}
	m.accum = mergeSet(m.accum, sp.sets[id])
	m.stacks = append(m.stacks[:0], m.accum...)
	m.pt = tail
	if len(m.stacks) == 0 {
		m.err = fmt.Errorf("%w: after %q (token %d)", ErrRejected, piece, tok)
		return
	}
	if sp.t.checkSize(m.stacks) {
		m.checkTable()
	}
}

// checkTable moves the Matcher to fresh memo tables when the shared ones
// grew past their bounds; clones keep the old ones.
func (m *Matcher) checkTable() {
	if !m.sp.full() {
		return
	}
	old := m.sp
	m.sp = newSpace(m.g)
	for i, s := range m.stacks {
		m.stacks[i] = m.sp.t.intern(old.t.positions(s))
	}
	m.stacks = mergeSet(nil, m.stacks)
}

// CloneConstraint returns an independent copy of the state that shares
// the memo tables (sample.ConstraintCloner).
func (m *Matcher) CloneConstraint() sample.Constraint { return m.Clone() }

// Clone returns an independent copy of the state that shares the memo
// tables.
func (m *Matcher) Clone() *Matcher {
	c := &Matcher{g: m.g, ix: m.ix, sp: m.sp, pt: m.pt, err: m.err}
	c.stacks = append([]int32(nil), m.stacks...)
	if m.lazy != nil {
		c.lazy = m.lazy.clone()
	}
	return c
}

// AllowedPrefix returns how many leading tokens of toks would be accepted
// one after another, leaving m unchanged (sample.PrefixChecker).
func (m *Matcher) AllowedPrefix(toks []int32) int {
	if m.probe == nil {
		m.probe = &Matcher{g: m.g, ix: m.ix}
	}
	p := m.probe
	p.sp, p.pt, p.err = m.sp, m.pt, m.err
	p.stacks = append(p.stacks[:0], m.stacks...)
	p.lazy = nil
	if m.lazy != nil {
		p.lazy = m.lazy.clone()
	}
	for i, t := range toks {
		if !p.Allowed(t) {
			return i
		}
		p.Accept(t)
		if p.Err() != nil {
			return i
		}
	}
	return len(toks)
}
