package spec

import (
	"errors"
	"fmt"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
)

// Speculator runs speculative decoding for the slots of one target session.
// Its batch, requests and verification buffers are reused, so a warm cycle
// allocates nothing in the loop itself (strategies may).
type Speculator struct {
	Sess  engine.Session
	Chain *Chain // nil or empty: plain decoding through the same loop
	// Adaptive configures each slot's depth controller; Base is the depth
	// it works below (the deepest draft configured).
	Adaptive AdaptiveParams
	Base     int

	batch    engine.Batch
	reqs     []*Request
	active   []*Slot
	residual []sample.Candidate
	out      []int32
	vtoks    []int32
	vrow     int
	logitsAt func(i int) []float32
	// now is the clock the controllers' timings read (tests use a fake).
	now func() time.Time
	// verify is the verification rule; tests swap in broken ones to prove
	// that the equality test catches them.
	verify func(sp *Speculator, sl *Slot, row int, draft []int32, out []int32) []int32
	// choose is the sampled rule of tree and stochastic drafts
	// (verify_tree.go); tests swap in BeeLlama's biased one.
	choose func(sp *Speculator, smp *sample.Sampler, logits []float32, cands []int32, q []float32) (int32, bool)

	// Hidden-state readers in the chain (HiddenReader): the rows of every
	// committed token are passed on after each Decode.
	tapper    engine.Tapper
	tapsOK    bool
	commitIdx []int // batch indices of the rows being committed
	rowAt     func(k int) []float32

	path, cells []int32   // a tree verify's accepted nodes and their positions
	pd, qd      []float32 // dense target and drafter distributions (verify_tree.go)
	pc          []sample.Candidate
	kids        []int32 // a node's children (verify_tree.go)
}

// New returns a Speculator over sess with chain (which may be nil) and the
// adaptive settings and base depth of cfg.
func New(sess engine.Session, chain *Chain, cfg *Config) *Speculator {
	sp := &Speculator{Sess: sess, Chain: chain, verify: verifyRows, choose: chooseExact, now: time.Now}
	sp.rowAt = func(k int) []float32 { return sp.tapper.Tapped(sp.commitIdx[k]) }
	if cfg != nil {
		sp.Adaptive, sp.Base = cfg.Adaptive, cfg.BaseDepth()
	}
	return sp
}

// BaseDepth is the deepest draft any configured strategy makes: the depth
// the adaptive controller works below.
func (c *Config) BaseDepth() int {
	b := 0
	if len(c.Types) == 0 {
		b = c.NMax
	}
	for _, t := range c.Types {
		switch t {
		case "ngram-simple":
			b = max(b, c.NgramSimple.SizeM)
		case "ngram-map-k":
			b = max(b, c.NgramMapK.SizeM)
		case "ngram-map-k4v":
			b = max(b, c.NgramMapK4V.SizeM)
		case "ngram-mod":
			b = max(b, c.NgramMod.NMax)
		case "draft-simple":
			b = max(b, c.Draft.NMax)
		case "dflash":
			b = max(b, c.DFlash.NMax)
		case "draft-eagle3":
			b = max(b, c.Eagle3.NMax)
		default: // ngram-cache, copyspec, suffix, recycle: --draft-max
			b = max(b, c.NMax)
		}
	}
	return max(b, 1)
}

// Start begins a request on sl: the prompt's tokens go to the sampler's
// penalty history, the part of prompt beyond what the KV cache already holds
// for sl.Seq is decoded (the caller guarantees that cached part equals
// prompt's prefix), the chain is told, and the first token is sampled,
// recorded and returned (the caller emits it).
func (sp *Speculator) Start(sl *Slot, prompt []int32) (int32, error) {
	if len(prompt) == 0 {
		return 0, fmt.Errorf("spec: empty prompt")
	}
	if err := sp.setup(sl); err != nil {
		return 0, err
	}
	if err := sp.bindTaps(); err != nil {
		return 0, err
	}
	for _, t := range prompt {
		sl.Sampler.AcceptPrompt(t)
	}
	if err := sp.prefill(sl.Seq, prompt); err != nil {
		return 0, err
	}
	sl.tokens = append(sl.tokens[:0], prompt...)
	sl.nGen, sl.done, sl.DraftN, sl.DraftAccepted = 0, false, 0, 0
	sl.SampledAccepted, sl.SampledResidual = 0, 0
	sl.shadow = sl.shadow[:0]
	if sp.Chain.Len() > 0 {
		sp.Chain.Begin(int(sl.Seq), prompt)
	}
	if sl.ctl != nil {
		sl.ctl.Begin()
	}
	tok := sl.Sampler.Sample(sp.Sess.Logits(sp.Sess.NumOutputs() - 1))
	sl.Sampler.Accept(tok)
	sp.push(sl, tok)
	return tok, nil
}

// setup resolves the slot's strategy mask and controller.
func (sp *Speculator) setup(sl *Slot) error {
	mask, err := sp.maskFor(sl.Opts)
	if err != nil {
		return err
	}
	sl.mask = mask
	if sl.ctl == nil && sp.Adaptive.Enabled {
		sl.ctl = NewController(sp.Adaptive)
	}
	if cap(sl.req.Draft) == 0 {
		sl.req.Draft = make([]int32, 0, sp.Sess.Options().NBatch)
		sl.shadow = make([]int32, 0, sp.Sess.Options().NBatch)
	}
	return nil
}

func (sp *Speculator) maskFor(o RequestOptions) (uint64, error) {
	if o.Off || sp.Chain.Len() == 0 {
		return 0, nil
	}
	if o.Types == nil {
		return 1<<sp.Chain.Len() - 1, nil
	}
	var m uint64
	for _, t := range o.Types {
		i := -1
		for j, s := range sp.Chain.strats {
			if s.Name() == t {
				i = j
			}
		}
		if i < 0 {
			return 0, fmt.Errorf("spec: speculative type %q was requested but the server was not started with it", t)
		}
		m |= 1 << i
	}
	return m, nil
}

// prefill decodes prompt[SeqLen:] in NBatch chunks, re-decoding the last
// prompt token when the cache already holds all of it, so that its logits
// are the last output.
func (sp *Speculator) prefill(seq int32, prompt []int32) error {
	have := sp.Sess.SeqLen(int(seq))
	if have > len(prompt) {
		return fmt.Errorf("spec: sequence %d holds %d positions, more than the %d-token prompt", seq, have, len(prompt))
	}
	if have == len(prompt) {
		have--
		if err := sp.Sess.Truncate(int(seq), have); err != nil {
			return err
		}
	}
	nb := sp.Sess.Options().NBatch
	for start := have; start < len(prompt); start += nb {
		end := min(start+nb, len(prompt))
		sp.batch.Reset()
		for i := start; i < end; i++ {
			sp.batch.Add(prompt[i], int32(i), seq, i == len(prompt)-1)
		}
		if err := sp.Sess.Decode(&sp.batch); err != nil {
			return err
		}
		sp.commitIdx = sp.commitIdx[:0]
		for i := range end - start {
			sp.commitIdx = append(sp.commitIdx, i)
		}
		sp.commit(int(seq), start, prompt[start:end])
	}
	return nil
}

// bindTaps checks, once, that the session captures what the chain's
// hidden-state readers read.
func (sp *Speculator) bindTaps() error {
	if sp.tapsOK {
		return nil
	}
	taps, err := sp.Chain.Taps()
	if err != nil {
		return err
	}
	if len(taps) > 0 {
		t, ok := sp.Sess.(engine.Tapper)
		if !ok || !slicesEqual(sp.Sess.Options().Taps, taps) {
			return fmt.Errorf("spec: the strategies read the target's hidden states at taps %v; the target session captures %v", taps, sp.Sess.Options().Taps)
		}
		sp.tapper = t
	}
	sp.tapsOK = true
	return nil
}

// commit passes the rows at batch indices sp.commitIdx (the tokens toks
// at positions pos…) to the chain's hidden-state readers.
func (sp *Speculator) commit(seq, pos int, toks []int32) {
	if sp.tapper == nil || len(toks) == 0 {
		return
	}
	sp.Chain.Committed(seq, pos, toks, sp.rowAt)
}

// push appends an emitted token and updates the stop conditions.
func (sp *Speculator) push(sl *Slot, tok int32) {
	if len(sl.shadow) > 0 {
		sp.judgeShadow(sl, tok)
	}
	sl.tokens = append(sl.tokens, tok)
	sl.nGen++
	if sl.NPredict >= 0 && sl.nGen >= sl.NPredict {
		sl.done = true
	}
	if sl.IsEOG != nil && sl.IsEOG(tok) {
		sl.done = true
	}
	if sl.NPast() >= sp.Sess.Options().NCtx {
		sl.done = true // the last token cannot be evaluated: the context is full
	}
}

// judgeShadow compares the pending shadow draft with the token about to be
// appended and reports the shadow to the controller at the first mismatch
// or once its horizon has matched.
func (sp *Speculator) judgeShadow(sl *Slot, tok int32) {
	j := len(sl.tokens) - sl.shadowAt
	k := min(len(sl.shadow), sl.shadowHz)
	if j < 0 || j >= k { // cannot happen: resolved at k
		sl.shadow = sl.shadow[:0]
		return
	}
	if sl.shadow[j] == tok && j+1 < k {
		return
	}
	m := j
	if sl.shadow[j] == tok {
		m = k
	}
	sl.shadow = sl.shadow[:0]
	if sl.ctl != nil {
		sl.ctl.Record(sl.shadowHz, k, m, true)
	}
}

// Stop marks sl done (the caller's own stop condition, such as a stop string).
func (sl *Slot) Stop() { sl.done = true }

var errNoSlots = errors.New("spec: no active slot")

// Step runs one cycle for every slot not done: draft, verify all slots'
// drafts in one target batch, roll back rejected cells, and emit the
// accepted tokens plus one target token each. emit returning false stops
// that slot at that token (later tokens of the cycle are dropped and their
// cells removed).
func (sp *Speculator) Step(slots []*Slot, emit func(sl *Slot, tok int32) bool) error {
	t0 := sp.now()
	sp.active = sp.active[:0]
	for _, sl := range slots {
		if !sl.done {
			sp.active = append(sp.active, sl)
		}
	}
	if len(sp.active) == 0 {
		return errNoSlots
	}
	sp.draftAll()
	tDraft := sp.now().Sub(t0)
	sp.buildBatch()
	if err := sp.Sess.Decode(&sp.batch); err != nil {
		return err
	}
	if sp.Chain.Len() > 0 {
		sp.Chain.Observe(&sp.batch)
	}
	row := 0
	for _, sl := range sp.active {
		k := len(sl.req.Draft)
		if err := sp.finish(sl, row, emit); err != nil {
			return err
		}
		row += k + 1
	}
	if len(sp.active) == 1 {
		sl := sp.active[0]
		if sl.ctl != nil {
			sl.ctl.Timing(sl.lastK, tDraft, sp.now().Sub(t0))
		}
	}
	return nil
}

// draftAll asks the chain for drafts for every active slot with a cap > 0,
// and for shadow drafts for the slots whose controller runs this cycle
// plain and wants one; shadows are moved out of the request, so the verify
// batch never sees them.
func (sp *Speculator) draftAll() {
	sp.reqs = sp.reqs[:0]
	budget := sp.Sess.Options().NBatch - len(sp.active)
	for _, sl := range sp.active {
		r := &sl.req
		r.Draft, r.Parent, r.Q, r.Cand, r.shadow = r.Draft[:0], r.Parent[:0], nil, nil, false
		if sl.mask == 0 {
			continue
		}
		n, base := sp.depth(sl)
		if n == 0 && base > 0 && len(sl.shadow) == 0 {
			if c, hz := sl.ctl.Shadow(base); c > 0 && hz > 0 {
				r.shadow, n, sl.shadowHz = true, min(c, cap(r.Draft)), hz
			}
		} else {
			n = min(n, budget)
			budget -= max(n, 0)
			if sl.lastCap > 0 {
				sl.lastCap = max(n, 0)
			}
		}
		if n <= 0 {
			continue
		}
		r.Seq, r.NMax, r.NMin = int(sl.Seq), n, sl.Opts.NMin
		r.History, r.Last, r.NPast = sl.tokens[:len(sl.tokens)-1], sl.tokens[len(sl.tokens)-1], len(sl.tokens)-1
		r.mask = sl.mask
		sp.treeRoom(sl, r)
		sp.reqs = append(sp.reqs, r)
	}
	if len(sp.reqs) == 0 {
		return
	}
	sp.Chain.Draft(sp.reqs)
	sp.fitTrees()
	for _, r := range sp.reqs {
		if !r.shadow {
			continue
		}
		for _, sl := range sp.active {
			if &sl.req == r {
				sl.shadow = append(sl.shadow[:0], r.Draft...)
				sl.shadowAt = len(sl.tokens)
			}
		}
		r.Draft, r.Parent, r.Q, r.Cand, r.shadow = r.Draft[:0], r.Parent[:0], nil, nil, false
	}
	sp.cutToConstraints()
}

// cutToConstraints shortens every draft to the prefix its slot's
// constraint (a grammar) would accept, before verification: a rejected
// token could never be emitted, and verifying it would only waste rows.
// One place for every strategy; a slot without a constraint keeps its
// draft.
func (sp *Speculator) cutToConstraints() {
	for _, sl := range sp.active {
		if d := sl.req.Draft; len(d) > 0 && sl.Sampler.Constraint() != nil {
			sl.req.Draft = d[:sl.Sampler.AllowedPrefix(d)]
		}
	}
}

// depth is the draft cap for sl this cycle: the context room, the tokens
// left to generate, the request's n_max, and the adaptive controller.
// ctlBase is the base depth when the controller chose a plain step (so a
// shadow draft may be asked for), else 0.
func (sp *Speculator) depth(sl *Slot) (n, ctlBase int) {
	n = sp.Sess.Options().NCtx - sl.NPast() - 1
	if sl.NPredict >= 0 {
		n = min(n, sl.NPredict-sl.nGen-1)
	}
	base := sp.Base
	if sl.Opts.NMax > 0 {
		base = sl.Opts.NMax
	}
	n = min(n, base)
	if sl.ctl != nil && n > 0 {
		d := sl.ctl.Depth(base)
		if d == 0 {
			return 0, base
		}
		n = min(n, d)
		sl.lastCap = n
	}
	return n, 0
}

// treeRoom tells a request whether it may be a tree and how large: the
// verify batch's room, the context's, and the session's tree limit.
// Shadow drafts are compared token by token with the output, so they stay
// flat.
func (sp *Speculator) treeRoom(sl *Slot, r *Request) {
	r.NMaxBase, r.BranchBudget, r.PMin, r.AllowTree = sp.baseFor(sl), -1, -1, false
	if sl.Opts.HasBranchBudget {
		r.BranchBudget = sl.Opts.BranchBudget
	}
	if sl.Opts.HasPMin {
		r.PMin = sl.Opts.PMin
	}
	ts, ok := sp.Sess.(engine.TreeSession)
	if !ok || r.shadow {
		r.Budget = r.NMax
		return
	}
	r.AllowTree = true
	r.Budget = min(sp.Sess.Options().NBatch-len(sp.active), sp.Sess.Options().NCtx-sl.NPast()-1)
	if lim := ts.TreeLimit(); lim > 0 {
		r.Budget = min(r.Budget, lim-1)
	}
	r.Budget = max(r.Budget, r.NMax)
}

// fitTrees trims tree drafts, last slot first, until the verify batch
// fits NBatch: each slot's budget assumed the others drafted only their
// flat share. A tree's trailing nodes have no children before them, so a
// trimmed tree is still a tree.
func (sp *Speculator) fitTrees() {
	total := len(sp.active)
	for _, sl := range sp.active {
		total += len(sl.req.Draft)
	}
	for i := len(sp.active) - 1; i >= 0 && total > sp.Sess.Options().NBatch; i-- {
		r := &sp.active[i].req
		if !r.IsTree() || r.shadow {
			continue
		}
		cut := min(total-sp.Sess.Options().NBatch, len(r.Draft)-1)
		r.Draft, r.Parent = r.Draft[:len(r.Draft)-cut], r.Parent[:len(r.Parent)-cut]
		total -= cut
	}
}

// baseFor is sl's configured (or requested) depth before the adaptive
// controller.
func (sp *Speculator) baseFor(sl *Slot) int {
	if sl.Opts.NMax > 0 {
		return sl.Opts.NMax
	}
	return sp.Base
}

// buildBatch lays out every active slot's [Last, draft…]: a flat draft as
// ordinary tokens, a tree as Last followed by its nodes with their parents
// (Batch.Parent), stored at consecutive positions.
func (sp *Speculator) buildBatch() {
	sp.batch.Reset()
	for _, sl := range sp.active {
		pos := int32(sl.NPast())
		root := int32(sp.batch.Len())
		r := &sl.req
		if !r.IsTree() {
			sp.batch.Add(sl.tokens[len(sl.tokens)-1], pos, sl.Seq, true)
			for i, d := range r.Draft {
				sp.batch.Add(d, pos+1+int32(i), sl.Seq, true)
			}
			continue
		}
		sp.batch.AddNode(sl.tokens[len(sl.tokens)-1], pos, sl.Seq, -1, true)
		for i, d := range r.Draft {
			sp.batch.AddNode(d, pos+1+int32(i), sl.Seq, root+1+r.Parent[i], true)
		}
	}
}

// finish verifies sl's rows, rolls back rejected cells and emits.
func (sp *Speculator) finish(sl *Slot, row int, emit func(*Slot, int32) bool) error {
	draft := sl.req.Draft
	k := len(draft)
	nPast := sl.NPast()
	tree := sl.req.IsTree()
	if tree || sl.req.Q != nil {
		sp.out, sp.path = sp.walk(sl, &sl.req, row, sp.out[:0], sp.path[:0])
	} else {
		sp.out = sp.verify(sp, sl, row, draft, sp.out[:0])
	}
	m := len(sp.out) - 1
	if k > 0 {
		sp.Chain.Accept(int(sl.Seq), m)
		sl.DraftN += k
		sl.DraftAccepted += m
	}
	sl.lastK = k
	if sp.Chain.Len() > 0 && !tree {
		sp.verified(sl, row, k, m)
	}
	if sl.ctl != nil {
		kc, mc := k, m // a tree's depth is its main path's
		if tree {
			kc = sl.req.mainPath()
			mc = min(m, kc)
		}
		c := 0
		if sl.lastCap > 0 {
			c = max(sl.lastCap, kc)
		}
		sl.ctl.Record(c, kc, mc, false)
		sl.lastCap = 0
	}
	if tree {
		if err := sp.keepPath(sl, nPast); err != nil {
			return err
		}
		k = m // the cells now hold Last and the m accepted nodes
	}
	for _, tok := range sp.out {
		sp.push(sl, tok)
		if !emit(sl, tok) {
			sl.done = true
		}
		if sl.done {
			break
		}
	}
	// Cells kept: everything but the newest emitted token.
	keep := sl.NPast()
	sp.commitRows(sl, row, nPast, keep, tree)
	if keep < nPast+1+k {
		return sp.Sess.Truncate(int(sl.Seq), keep)
	}
	return nil
}

// keepPath keeps the accepted path of a tree verify in the target's cache
// (TreeSession.KeepPath): Last at nPast and the nodes of sp.path after it.
func (sp *Speculator) keepPath(sl *Slot, nPast int) error {
	sp.cells = sp.cells[:0]
	for _, j := range sp.path {
		sp.cells = append(sp.cells, int32(nPast+1)+j)
	}
	return sp.Sess.(engine.TreeSession).KeepPath(int(sl.Seq), nPast, sp.cells)
}

// commitRows shows the hidden-state readers the rows of the tokens sl now
// holds at positions [nPast, keep): Last's and the accepted drafts'.
func (sp *Speculator) commitRows(sl *Slot, row, nPast, keep int, tree bool) {
	if sp.tapper == nil || keep <= nPast {
		return
	}
	sp.commitIdx = append(sp.commitIdx[:0], row)
	for j := range keep - nPast - 1 {
		if tree {
			sp.commitIdx = append(sp.commitIdx, row+1+int(sp.path[j]))
		} else {
			sp.commitIdx = append(sp.commitIdx, row+1+j)
		}
	}
	sp.commit(int(sl.Seq), nPast, sl.tokens[nPast:keep])
}

// verified shows the verdict to strategies that learn from the target.
func (sp *Speculator) verified(sl *Slot, row, k, m int) {
	sp.vtoks = append(append(sp.vtoks[:0], sl.tokens[len(sl.tokens)-1]), sl.req.Draft...)
	sp.vrow = row
	if sp.logitsAt == nil {
		sp.logitsAt = func(i int) []float32 { return sp.Sess.Logits(sp.vrow + i) }
	}
	sp.Chain.Verified(int(sl.Seq), sp.vtoks, m+1, sp.logitsAt)
	_ = k
}

// Generate runs a whole request on one slot, shaped like
// engine.Generator.Generate: prefill, then cycles until n tokens, an
// end-of-generation token (emitted), a full context, or emit returning
// false.
func (sp *Speculator) Generate(sl *Slot, prompt []int32, n int, emit func(tok int32) bool) (engine.Timings, error) {
	var tm engine.Timings
	t0 := time.Now()
	sl.NPredict = n
	tok, err := sp.Start(sl, prompt)
	if err != nil {
		return tm, err
	}
	tm.PromptN, tm.PromptMS = len(prompt), msSince(t0)
	t1 := time.Now()
	if !emit(tok) {
		sl.done = true
	}
	one := []*Slot{sl}
	fn := func(_ *Slot, t int32) bool { return emit(t) }
	for !sl.done {
		if err := sp.Step(one, fn); err != nil {
			tm.PredictedN, tm.PredictedMS = sl.nGen, msSince(t1)
			return tm, err
		}
	}
	tm.PredictedN, tm.PredictedMS = sl.nGen, msSince(t1)
	return tm, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
