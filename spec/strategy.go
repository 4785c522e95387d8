package spec

import "github.com/waggle-llm/waggle/engine"

// Strategy is one drafter, shaped like llama.cpp's common_speculative
// implementations. One Strategy serves every sequence of a session and keeps
// its per-sequence state keyed by the sequence id. Calls come from one
// goroutine (the decode loop); a Strategy need not be safe for concurrent use.
type Strategy interface {
	// Name is the --spec-type name ("ngram-simple", "draft-simple", …).
	Name() string
	// Begin is called when sequence seq has processed prompt and starts
	// generating. prompt is every token of the sequence so far (for a
	// continuation, the earlier turns too). It may be kept only for the
	// duration of the call.
	Begin(seq int, prompt []int32)
	// Draft fills r.Draft (empty on entry, capacity ≥ r.NMax) for every
	// request it can serve, with at most r.NMax tokens continuing
	// r.History followed by r.Last. Requests left empty pass to the next
	// strategy of the chain.
	Draft(reqs []*Request)
	// Accept reports how many tokens of this strategy's last draft for seq
	// the target accepted (the bonus token not counted). Only the strategy
	// whose draft was verified is told.
	Accept(seq int, nAccepted int)
	// Observe sees every target batch after it was decoded (the verify
	// batch [Last, d1..dk] per sequence, before rollback).
	Observe(b *engine.Batch)
}

// Request asks for a draft for one sequence.
type Request struct {
	Seq int
	// NMax caps the draft (> 0); NMin is the shortest draft worth
	// verifying: a shorter one is discarded and the next strategy asked.
	NMax, NMin int
	// NPast is the number of positions of Seq in the target's KV cache,
	// which equals len(History).
	NPast int
	// Last is the most recently emitted token, not yet in the KV cache.
	Last int32
	// History is every token of the sequence before Last (prompt and
	// emitted). It aliases the decode loop's storage: read only, and only
	// during the call.
	History []int32
	// Draft is the output.
	Draft []int32

	// AllowTree says the target can verify a tree draft
	// (engine.TreeSession). A strategy that builds trees fills Parent as
	// well: Parent[j] is the index in Draft of token j's parent, -1 for a
	// child of Last, and every parent comes before its children. An empty
	// Parent is a flat draft, each token continuing the one before.
	AllowTree bool
	Parent    []int32
	// NMaxBase is the draft cap before the adaptive controller lowered it
	// to NMax (the request's or configured depth); Budget is the most
	// tokens a tree draft may hold in all (the verify batch's room).
	NMaxBase, Budget int
	// BranchBudget is the request's speculative.branch_budget (extra tree
	// nodes beyond the main path), -1 when it gave none; PMin its
	// speculative.p_min, -1 when it gave none.
	BranchBudget int
	PMin         float32
	// Q and Cand describe a stochastic drafter's proposals, for exact
	// sampled verification; nil for a deterministic drafter (a point mass
	// on each drafted token). At depth d+1 (d from 0), Q[d] is the
	// distribution over the vocabulary it drew from and Cand[d] the tokens
	// it drew there, in draw order without replacement: one for a flat
	// draft (its token), a tree's candidates at that depth otherwise (a
	// superset of each node's children there). The slices are the
	// strategy's, valid until its next Draft.
	Q    [][]float32
	Cand [][]int32

	mask   uint64 // chain strategies allowed (bit i); 0 means all
	shadow bool   // a shadow draft: not verified, not counted, no Accept
}

// IsTree reports whether the draft is a tree.
func (r *Request) IsTree() bool { return len(r.Parent) > 0 && len(r.Draft) > 0 }

// mainPath is the length of a draft's first chain: the leading tokens
// each of which continues the one before (all of a flat draft).
func (r *Request) mainPath() int {
	if !r.IsTree() {
		return len(r.Draft)
	}
	n := 0
	for n < len(r.Parent) && r.Parent[n] == int32(n)-1 {
		n++
	}
	return n
}

// HiddenReader is implemented by strategies that draft from the target's
// hidden states (DFlash). The target session must capture Taps (its
// engine.SessionOptions.Taps, in this order); the Speculator shows the
// strategy the captured row of every token a sequence commits.
type HiddenReader interface {
	// Taps lists the residual-stream taps the strategy reads.
	Taps() []engine.Tap
	// Committed reports that positions [pos, pos+len(toks)) of seq now
	// hold toks, row(k) being the captured row of toks[k] (valid during
	// the call); anything the strategy held for seq at positions >= pos
	// is gone.
	Committed(seq, pos int, toks []int32, row func(k int) []float32)
}

// Context returns the token at index i of History followed by Last.
func (r *Request) Context(i int) int32 {
	if i == len(r.History) {
		return r.Last
	}
	return r.History[i]
}

// Len is len(History)+1, the length of the context a draft continues.
func (r *Request) Len() int { return len(r.History) + 1 }

// Verifier is implemented by strategies that learn from the target's
// verdicts (recycle reads its logits, as buun's update_logits). After a
// sequence's rows are verified, Verified gets the verify batch's tokens
// for that sequence ([Last, d1..dk]), how many rows were kept (accepted
// drafts + 1) and the target's logits of row i (valid during the call).
type Verifier interface {
	Verified(seq int, tokens []int32, kept int, logits func(i int) []float32)
}

// Summarizer is implemented by strategies with statistics beyond Stats'
// (DFlash's trees); Summary is one line for the end of a run.
type Summarizer interface {
	Summary() string
}
