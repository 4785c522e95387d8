package qwen35

// Recurrent state and its snapshots.
//
// Each sequence holds, for every DeltaNet layer, a conv window ((K-1) rows
// of conv_dim inputs, oldest first, time-major as kernels.ConvSiLUStep
// reads it) and the delta-rule state (hv heads of dv rows of dk, the
// kernels.GatedDeltaStep layout). Unlike attention keys, that state cannot
// be cut back: after a batch it has absorbed every token. So the session
// also keeps, per sequence, up to snapshotDepth snapshots: copies of the
// whole recurrent state of a sequence at a given length.
//
// Which lengths are kept (phase 1 design; the replay tape of phase 2 will
// make mid-batch rollback cheap): when a Decode gives a sequence n >= 2
// tokens starting at length L, the states at lengths max(L, L+n-D) … L+n-1
// are saved (D = snapshotDepth), i.e. the state before the batch and after
// every token but the last, keeping the newest D. That covers a
// speculative verify batch of up to D tokens (the target accepts a prefix,
// so Truncate lands on L+1 … L+n-1, or L to drop it all) and the
// "re-decode the last prompt token" step of spec.Speculator. A single-token
// Decode saves nothing, so plain generation pays no copies.
//
// Truncate(seq, p): p == SeqLen is a no-op, p == 0 zeroes the state, any
// other p restores the snapshot taken at length p and fails with
// ErrNoSnapshot (session unchanged) when there is none; snapshots at
// lengths above p are dropped, since the tokens they absorbed are gone.
// Fork(src, dst, n) copies src's live state (n == SeqLen(src)), a zero
// state (n == 0) or src's snapshot at n, with the same error otherwise.

import (
	"errors"
	"fmt"
)

// snapshotDepth is the number of recurrent-state snapshots each sequence
// keeps: a verify batch of the default --draft-max 16 plus its root token.
// Memory: snapshotDepth × one sequence's recurrent state (for the
// Qwen3.5-0.8B shape, 18 DeltaNet layers × 16 heads × 128 × 128 floats ≈
// 18 MiB, so about 300 MiB per sequence); the tiny test models need under
// 2 MiB.
const snapshotDepth = 17

// ErrNoSnapshot is returned (wrapped) by Truncate and Fork when a hybrid
// model's recurrent state is not kept at the requested length. The session
// is unchanged; Truncate(seq, 0) always succeeds.
var ErrNoSnapshot = errors.New("qwen35: no recurrent-state snapshot at that length")

// recurrent holds the live state of every sequence and its snapshots.
type recurrent struct {
	nDelta  int
	convSz  int // (K-1)·conv_dim
	ssmSz   int // hv·dv·dk
	seqSz   int // nDelta·(convSz+ssmSz): one sequence's whole state
	depth   int
	live    []float32 // NSeq × seqSz
	snaps   []float32 // NSeq × depth × seqSz
	snapPos []int     // NSeq × depth: the length a slot holds, -1 if empty
}

func newRecurrent(hp *hparams, nDelta, nSeq, depth int) *recurrent {
	r := &recurrent{nDelta: nDelta, convSz: (hp.convK - 1) * hp.convDim, ssmSz: hp.hv * hp.dv * hp.dk, depth: depth}
	r.seqSz = nDelta * (r.convSz + r.ssmSz)
	r.live = make([]float32, nSeq*r.seqSz)
	r.snaps = make([]float32, nSeq*depth*r.seqSz)
	r.snapPos = make([]int, nSeq*depth)
	for i := range r.snapPos {
		r.snapPos[i] = -1
	}
	return r
}

// block returns one sequence's whole state: live (slot -1) or a snapshot.
func (r *recurrent) block(seq, slot int) []float32 {
	if slot < 0 {
		return r.live[seq*r.seqSz : (seq+1)*r.seqSz]
	}
	off := (seq*r.depth + slot) * r.seqSz
	return r.snaps[off : off+r.seqSz]
}

// conv and ssm return layer li's conv window and delta-rule state within a
// block (slot -1: live).
func (r *recurrent) conv(seq, slot, li int) []float32 {
	off := li * (r.convSz + r.ssmSz)
	return r.block(seq, slot)[off : off+r.convSz]
}

func (r *recurrent) ssm(seq, slot, li int) []float32 {
	off := li*(r.convSz+r.ssmSz) + r.convSz
	return r.block(seq, slot)[off : off+r.ssmSz]
}

// find returns the slot holding seq's state at length pos, or -1.
func (r *recurrent) find(seq, pos int) int {
	for s, p := range r.snapPos[seq*r.depth : (seq+1)*r.depth] {
		if p == pos {
			return s
		}
	}
	return -1
}

// claim returns a slot for a new snapshot of seq at length pos: the one
// already at pos, else an empty one, else the one at the smallest length.
// The slot is marked as holding pos (the caller fills it).
func (r *recurrent) claim(seq, pos int) int {
	ps := r.snapPos[seq*r.depth : (seq+1)*r.depth]
	best := r.find(seq, pos)
	for s := 0; best < 0 && s < len(ps); s++ {
		if ps[s] < 0 {
			best = s
		}
	}
	if best < 0 {
		best = 0
		for s, p := range ps {
			if p < ps[best] {
				best = s
			}
		}
	}
	ps[best] = pos
	return best
}

// dropAbove forgets seq's snapshots at lengths > pos.
func (r *recurrent) dropAbove(seq, pos int) {
	ps := r.snapPos[seq*r.depth : (seq+1)*r.depth]
	for s, p := range ps {
		if p > pos {
			ps[s] = -1
		}
	}
}

// truncate rolls seq's state back to length pos (see the file comment);
// cur is the sequence's current length.
func (r *recurrent) truncate(seq, pos, cur int) error {
	switch {
	case pos == cur:
		return nil
	case pos == 0:
		clear(r.block(seq, -1))
	default:
		slot := r.find(seq, pos)
		if slot < 0 {
			return fmt.Errorf("%w: truncate sequence %d from %d to %d (kept: %v)", ErrNoSnapshot, seq, cur, pos, r.kept(seq))
		}
		copy(r.block(seq, -1), r.block(seq, slot))
	}
	r.dropAbove(seq, pos)
	return nil
}

// source returns the block holding src's state at length n, or an error.
func (r *recurrent) source(src, n, cur int) ([]float32, error) {
	switch {
	case n == cur:
		return r.block(src, -1), nil
	case n == 0:
		return nil, nil
	}
	slot := r.find(src, n)
	if slot < 0 {
		return nil, fmt.Errorf("%w: fork of sequence %d at %d (length %d, kept: %v)", ErrNoSnapshot, src, n, cur, r.kept(src))
	}
	return r.block(src, slot), nil
}

// fork makes dst's live state a copy of from (nil: zero) and forgets dst's
// snapshots.
func (r *recurrent) fork(from []float32, dst int) {
	if from == nil {
		clear(r.block(dst, -1))
	} else if &from[0] != &r.block(dst, -1)[0] {
		copy(r.block(dst, -1), from)
	}
	r.dropAbove(dst, -1)
}

// kept lists the lengths seq has snapshots of, for error messages.
func (r *recurrent) kept(seq int) []int {
	var out []int
	for _, p := range r.snapPos[seq*r.depth : (seq+1)*r.depth] {
		if p >= 0 {
			out = append(out, p)
		}
	}
	return out
}
