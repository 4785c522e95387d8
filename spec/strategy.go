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

	mask   uint64 // chain strategies allowed (bit i); 0 means all
	shadow bool   // a shadow draft: not verified, not counted, no Accept
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
