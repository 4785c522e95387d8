package qwen35

import (
	"errors"
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// Checkpoints of the recurrent state for prompt-prefix reuse, llama-server's
// --ctx-checkpoints N and --checkpoint-every-n-tokens M for hybrid models.
//
// A server slot that gets a prompt sharing a prefix of p tokens with what
// it holds truncates to p. Attention cells can be cut anywhere, but the
// recurrent state only at the lengths a snapshot or the tape holds (the
// last batch's tokens), so without checkpoints that Truncate fails with
// ErrNoSnapshot and the slot prefills the whole prompt again. With
// Options.CtxCheckpoints = N > 0 each sequence also keeps up to N whole
// states (the oldest, by length, is replaced when full; each is one
// sequence state: 19.3 MiB for the Qwen3.5-0.8B shape), taken
//
//   - at the end of a prompt: a run of 2 or more tokens of which only the
//     last asks for logits (how the server and spec.Speculator feed a
//     prompt; a verify batch asks for every token's and is left to the
//     tape), and
//   - every M tokens (Options.CheckpointEvery; ≤ 0: off): inside a
//     multi-token run at the largest multiple of M it reaches, moved down
//     to a 64-token chunk boundary when it falls inside the part the
//     chunked delta rule runs (states exist only between chunks there).
//
// Truncate(seq, p) that neither a snapshot nor the tape serves then takes
// the newest checkpoint at c ≤ p, restores it, cuts the attention cells to
// c and decodes the p-c tokens from c again (the session keeps each
// sequence's tokens for that), so it succeeds at the cost of a prefill of
// p-c tokens instead of p. The logits of that internal Decode are not
// returned (Truncate's contract leaves them undefined); should it fail
// (a full unified KV pool), the sequence is left at length c, consistent,
// and the error returned. Fork does not use checkpoints.

// claimCkpt returns a checkpoint slot of seq for length pos: the one at pos,
// else an empty one, else the one at the smallest length, marked as
// holding pos (the caller fills it).
func (r *recurrent) claimCkpt(seq, pos int) int {
	cp := r.ckptPos[seq*r.nCkpt : (seq+1)*r.nCkpt]
	best := -1
	for c, p := range cp {
		if p == pos {
			best = c
		}
	}
	for c := 0; best < 0 && c < len(cp); c++ {
		if cp[c] < 0 {
			best = c
		}
	}
	if best < 0 {
		best = 0
		for c, p := range cp {
			if p < cp[best] {
				best = c
			}
		}
	}
	cp[best] = pos
	return best
}

// newestCkpt returns the checkpoint of seq at the largest length in
// (0, pos], and that length, or -1.
func (r *recurrent) newestCkpt(seq, pos int) (c, at int) {
	c, at = -1, 0
	for i, p := range r.ckptPos[seq*r.nCkpt : (seq+1)*r.nCkpt] {
		if p > at && p <= pos {
			c, at = i, p
		}
	}
	return c, at
}

// planCheckpoint chooses the length inside run ri at which a checkpoint is
// taken during the forward pass (ckptAt, -1: none), after the run's
// chunked part is known; every is Options.CheckpointEvery.
func (p *batchPlan) planCheckpoint(ri int, rs *recurrent, every int, b *engine.Batch) {
	r := &p.runs[ri]
	r.ckptAt, r.ckptEnd = -1, false
	if rs.nCkpt == 0 || r.n < 2 || r.tree {
		return
	}
	end := r.start + r.n
	if every > 0 {
		l := end / every * every
		if l < r.start+r.chunked {
			l = r.start + (l-r.start)/deltaChunk*deltaChunk
		}
		if l > r.start {
			r.ckptAt, r.ckptC = l, rs.claimCkpt(r.seq, l)
		}
	}
	toks := p.tokens(ri)
	promptEnd := b.Output[toks[r.n-1]]
	for _, i := range toks[:r.n-1] {
		promptEnd = promptEnd && !b.Output[i]
	}
	if promptEnd && r.ckptAt != end {
		r.ckptEnd = true
	}
}

// saveEndCheckpoints copies the live state of every run that ends a prompt
// into a checkpoint, after the forward pass.
func (s *session) saveEndCheckpoints() {
	for ri := range s.plan.runs {
		r := &s.plan.runs[ri]
		if r.ckptEnd {
			c := s.rs.claimCkpt(r.seq, r.start+r.n)
			copy(s.rs.block(r.seq, ckptSlot(c)), s.rs.block(r.seq, -1))
		}
	}
}

// fromCheckpoint serves Truncate(seq, pos) from the newest checkpoint at or
// below pos (see the top of this file). It returns ErrNoSnapshot, with
// nothing changed, when there is none.
func (s *session) fromCheckpoint(seq, pos int) error {
	c, at := s.rs.newestCkpt(seq, pos)
	if c < 0 {
		return ErrNoSnapshot
	}
	if err := s.cache.Truncate(seq, at); err != nil {
		return err
	}
	copy(s.rs.block(seq, -1), s.rs.block(seq, ckptSlot(c)))
	s.rs.dropAbove(seq, at)
	hist := s.hist[seq*s.opts.NCtx:]
	for start := at; start < pos; start += s.opts.NBatch {
		s.redo.Reset()
		for i := start; i < min(start+s.opts.NBatch, pos); i++ {
			s.redo.Add(hist[i], int32(i), int32(seq), false)
		}
		if err := s.Decode(&s.redo); err != nil {
			return fmt.Errorf("qwen35: re-decoding sequence %d from its checkpoint at %d: %w", seq, at, err)
		}
	}
	return nil
}

// truncateFallback is Truncate's path when neither a snapshot nor the tape
// holds pos: a checkpoint, or err (ErrNoSnapshot) unchanged.
func (s *session) truncateFallback(seq, pos int, err error) error {
	if s.rs.nCkpt == 0 || !errors.Is(err, ErrNoSnapshot) {
		return err
	}
	if cerr := s.fromCheckpoint(seq, pos); cerr != nil {
		if errors.Is(cerr, ErrNoSnapshot) {
			return err
		}
		return cerr
	}
	return nil
}
