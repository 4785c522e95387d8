package qwen35

// Recurrent state and how it is rolled back.
//
// Each sequence holds, for every DeltaNet layer, a conv window ((K-1) rows
// of conv_dim inputs, oldest first, time-major as kernels.ConvSiLUStep
// reads it) and the delta-rule state (hv heads of dv rows of dk, the
// kernels.GatedDeltaStep layout). That live state lives in the KV cache
// (kvcache.Options.Recurrent, one block per sequence), so the cache's
// state files save and restore it with the attention rows; the rollback
// data below is the session's own. Unlike attention keys, that state cannot
// be cut back: after a batch it has absorbed every token. Two strategies
// make the lengths inside a multi-token Decode reachable again
// (architectures.md §1.5), chosen per session by Options.Rollback:
//
//   - RollbackReplay (the default; the "tape"): when a Decode gives a
//     sequence n >= 2 tokens starting at length L, the state at length
//     F = max(L, L+n-D) is copied once (the base, D = Options.Depth) and,
//     per DeltaNet layer and token from F on, the recurrence inputs are
//     recorded: the conv input row, the L2-normalised k and v, the
//     log-decay g and β. Truncate to p in [F, L+n) restores the base and
//     replays the p-F recorded tokens: the conv window becomes the last
//     K-1 rows of [base window | recorded inputs], the delta state is
//     advanced by kernels.GatedDeltaUpdate. No projection, attention or
//     FFN runs again, and the result is bit-identical to the state the
//     forward pass had at p (same inputs, same kernel, same order: the
//     per-token path, since F is where the chunked path stops, plan.go).
//     Memory: one state plus D rows of conv_dim+hk·dk+hv·dv+2·hv floats
//     per layer, against D states for snapshots (README, Qwen3.5).
//   - RollbackSnapshots: the states at lengths F … L+n-1 are copied whole
//     (the state before the batch and after every token but the last),
//     keeping the newest D per sequence across batches. Truncate copies
//     one back; nothing is recomputed, but every verified token pays a
//     whole-state copy and D states stay resident.
//
// Both cover a speculative verify batch of up to D tokens (the target
// accepts a prefix, so Truncate lands on L+1 … L+n-1, or L to drop it all)
// and the "re-decode the last prompt token" step of spec.Speculator. A
// single-token Decode records nothing, so plain generation pays no copies;
// a tape stays usable after it (its lengths are still below the live one).
//
// Truncate(seq, p): p == SeqLen is a no-op, p == 0 zeroes the state, any
// other p restores from a snapshot or the tape and fails with
// ErrNoSnapshot (session unchanged) when neither holds p; snapshots at
// lengths above p are dropped and the tape is cut to p, since the tokens
// they absorbed are gone. Fork(src, dst, n) copies src's live state
// (n == SeqLen(src)), a zero state (n == 0) or src's state at n rebuilt
// the same way, with the same error otherwise.

import (
	"errors"
	"fmt"

	"github.com/waggle-llm/waggle/kvcache"
)

// Rollback selects how a session makes the lengths inside a multi-token
// Decode reachable again (see the top of this file).
type Rollback int

const (
	// RollbackReplay records the recurrence inputs on a tape and replays
	// the kept tokens from one saved state.
	RollbackReplay Rollback = iota
	// RollbackSnapshots copies the whole state after every token.
	RollbackSnapshots

	// RollbackFaultNoReplay and RollbackFaultNoRestore are deliberately
	// wrong replays: the first restores the saved state and skips the
	// replay (the state is that before the batch), the second leaves the
	// live state as it is (it has absorbed every drafted token). They
	// exist only so that the exactness tests of speculation on hybrid
	// models can prove that they catch a broken rollback; never use them
	// otherwise.
	RollbackFaultNoReplay
	RollbackFaultNoRestore
)

func (r Rollback) String() string {
	switch r {
	case RollbackReplay:
		return "replay"
	case RollbackSnapshots:
		return "snapshots"
	case RollbackFaultNoReplay:
		return "fault-no-replay"
	case RollbackFaultNoRestore:
		return "fault-no-restore"
	}
	return fmt.Sprintf("Rollback(%d)", int(r))
}

// DefaultDepth is the number of trailing tokens of a multi-token Decode a
// sequence can be truncated into: a verify batch of the default
// --draft-max 16 plus its root token. Memory per sequence (Qwen3.5-0.8B
// shape: 18 DeltaNet layers, 16 heads of 128×128, conv_dim 6144): replay
// keeps one state (19.3 MiB) plus DefaultDepth tape rows (12.0 MiB);
// snapshots keep DefaultDepth states (327.5 MiB). The tiny test models need
// under 2 MiB either way.
const DefaultDepth = 17

// ErrNoSnapshot is returned (wrapped) by Truncate and Fork when a hybrid
// model's recurrent state is not kept at the requested length. The session
// is unchanged; Truncate(seq, 0) always succeeds.
var ErrNoSnapshot = errors.New("qwen35: no recurrent-state snapshot at that length")

// recurrent reaches the live state of every sequence, which the KV cache
// holds (kvcache.Options.Recurrent: one block of seqSz floats per
// sequence, saved and restored with the attention rows by the state
// files), and holds what rolls it back.
type recurrent struct {
	mode   Rollback
	nDelta int
	convK  int
	convD  int // conv_dim: one conv input row
	kvSz   int // hk·dk + hv·dv: the k and v parts of a conv output row
	hv     int
	convSz int // (K-1)·conv_dim
	ssmSz  int // hv·dv·dk
	seqSz  int // nDelta·(convSz+ssmSz): one sequence's whole state
	depth  int
	cache  *kvcache.Cache // holds the live states

	// Snapshots (RollbackSnapshots).
	snaps   []float32 // NSeq × depth × seqSz
	snapPos []int     // NSeq × depth: the length a slot holds, -1 if empty

	// Tape (the replay modes).
	rowSz     int       // convD + kvSz + 2·hv: [x | k v | g | β]
	base      []float32 // NSeq × seqSz: the state at tapeStart
	tape      []float32 // NSeq × nDelta × depth × rowSz
	tapeStart []int     // per sequence, -1: no tape
	tapeLen   []int     // tokens recorded: the tape reaches tapeStart+tapeLen

	// Checkpoints for prefix reuse (checkpoint.go).
	nCkpt   int
	ckpts   []float32 // NSeq × nCkpt × seqSz
	ckptPos []int     // NSeq × nCkpt: the length a checkpoint holds, -1 if empty
}

// recurrentSize is the float32 values of one sequence's live state: per
// DeltaNet layer, the conv window then the delta-rule state (the
// kvcache.Options.Recurrent of a session's cache).
func recurrentSize(hp *hparams, nDelta int) int {
	return nDelta * ((hp.convK-1)*hp.convDim + hp.hv*hp.dv*hp.dk)
}

// newRecurrent sets up the rollback storage of nSeq sequences whose live
// states cache holds (its Options.Recurrent must be recurrentSize).
func newRecurrent(hp *hparams, nDelta, nSeq, depth int, mode Rollback, nCkpt int, cache *kvcache.Cache) *recurrent {
	r := &recurrent{
		mode: mode, nDelta: nDelta, convK: hp.convK, convD: hp.convDim, hv: hp.hv,
		kvSz: hp.hk*hp.dk + hp.hv*hp.dv, convSz: (hp.convK - 1) * hp.convDim, ssmSz: hp.hv * hp.dv * hp.dk,
		depth: depth, cache: cache,
	}
	r.seqSz = recurrentSize(hp, nDelta)
	if got := cache.Options().Recurrent; got != r.seqSz {
		panic(fmt.Sprintf("qwen35: the cache holds %d recurrent values per sequence, the model needs %d", got, r.seqSz))
	}
	if mode == RollbackSnapshots {
		r.snaps = make([]float32, nSeq*depth*r.seqSz)
		r.snapPos = make([]int, nSeq*depth)
		for i := range r.snapPos {
			r.snapPos[i] = -1
		}
	} else {
		r.rowSz = r.convD + r.kvSz + 2*r.hv
		r.base = make([]float32, nSeq*r.seqSz)
		r.tape = make([]float32, nSeq*nDelta*depth*r.rowSz)
		r.tapeStart, r.tapeLen = make([]int, nSeq), make([]int, nSeq)
		for i := range r.tapeStart {
			r.tapeStart[i] = -1
		}
	}
	r.nCkpt = nCkpt
	r.ckpts = make([]float32, nSeq*nCkpt*r.seqSz)
	r.ckptPos = make([]int, nSeq*nCkpt)
	for i := range r.ckptPos {
		r.ckptPos[i] = -1
	}
	return r
}

// taping reports whether the session records a tape.
func (r *recurrent) taping() bool { return r.mode != RollbackSnapshots }

// bytes is the memory held for rollback per sequence (live state excluded).
func (r *recurrent) bytes() int {
	if r.taping() {
		return 4 * (r.seqSz + r.nDelta*r.depth*r.rowSz)
	}
	return 4 * r.depth * r.seqSz
}

// block returns one sequence's whole state: live (slot -1), a snapshot,
// the tape's base (slot baseSlot) or checkpoint c (slot ckptSlot(c)).
func (r *recurrent) block(seq, slot int) []float32 {
	switch {
	case slot <= ckptSlot(0):
		off := (seq*r.nCkpt + ckptSlot(0) - slot) * r.seqSz
		return r.ckpts[off : off+r.seqSz]
	case slot == baseSlot:
		return r.base[seq*r.seqSz : (seq+1)*r.seqSz]
	case slot < 0:
		return r.cache.Recurrent(seq)
	}
	off := (seq*r.depth + slot) * r.seqSz
	return r.snaps[off : off+r.seqSz]
}

// baseSlot names the tape's base state in block, conv and ssm.
const baseSlot = -2

// ckptSlot names checkpoint c (0 ≤ c < nCkpt) in block, conv and ssm.
func ckptSlot(c int) int { return -3 - c }

// conv and ssm return layer li's conv window and delta-rule state within a
// block (slot -1: live, baseSlot: the tape's base).
func (r *recurrent) conv(seq, slot, li int) []float32 {
	off := li * (r.convSz + r.ssmSz)
	return r.block(seq, slot)[off : off+r.convSz]
}

func (r *recurrent) ssm(seq, slot, li int) []float32 {
	off := li*(r.convSz+r.ssmSz) + r.convSz
	return r.block(seq, slot)[off : off+r.ssmSz]
}

// row returns the tape row of seq, layer li, token t (t counted from
// tapeStart): [conv input x | k v | g | β].
func (r *recurrent) row(seq, li, t int) []float32 {
	off := ((seq*r.nDelta+li)*r.depth + t) * r.rowSz
	return r.tape[off : off+r.rowSz]
}

// startTape makes seq's tape cover the lengths from first (whose state the
// forward pass copies into the base) for n tokens.
func (r *recurrent) startTape(seq, first, n int) {
	r.tapeStart[seq], r.tapeLen[seq] = first, n
}

// onTape returns how many recorded tokens bring seq's base to length pos,
// or -1 when the tape does not reach pos.
func (r *recurrent) onTape(seq, pos int) int {
	if !r.taping() || r.tapeStart[seq] < 0 {
		return -1
	}
	m := pos - r.tapeStart[seq]
	if m < 0 || m > r.tapeLen[seq] {
		return -1
	}
	return m
}

// find returns the slot holding seq's state at length pos, or -1.
func (r *recurrent) find(seq, pos int) int {
	if r.taping() {
		return -1
	}
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

// dropAbove forgets seq's states at lengths > pos: snapshots, checkpoints,
// and the tape beyond pos (all of it when it starts above pos).
func (r *recurrent) dropAbove(seq, pos int) {
	cp := r.ckptPos[seq*r.nCkpt : (seq+1)*r.nCkpt]
	for c, p := range cp {
		if p > pos {
			cp[c] = -1
		}
	}
	if r.taping() {
		switch st := r.tapeStart[seq]; {
		case st < 0:
		case st > pos:
			r.tapeStart[seq], r.tapeLen[seq] = -1, 0
		default:
			r.tapeLen[seq] = min(r.tapeLen[seq], pos-st)
		}
		return
	}
	ps := r.snapPos[seq*r.depth : (seq+1)*r.depth]
	for s, p := range ps {
		if p > pos {
			ps[s] = -1
		}
	}
}

// kept describes the lengths seq can be rolled back to, for error
// messages.
func (r *recurrent) kept(seq int) string {
	if r.taping() {
		if r.tapeStart[seq] < 0 {
			return "no tape"
		}
		return fmt.Sprintf("tape %d…%d", r.tapeStart[seq], r.tapeStart[seq]+r.tapeLen[seq])
	}
	var out []int
	for _, p := range r.snapPos[seq*r.depth : (seq+1)*r.depth] {
		if p >= 0 {
			out = append(out, p)
		}
	}
	return fmt.Sprint(out)
}
