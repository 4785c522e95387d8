package kvcache

import "fmt"

// Recurrent state: hybrid models (Qwen3.5 / Qwen3-Next DeltaNet layers, and
// any future SSM layers) carry, per sequence, a fixed-size state that
// summarises every token the sequence holds, beside the attention rows of
// their attention layers. Options.Recurrent is its size in float32 values;
// the cache holds one such block per sequence and hands out the block
// itself (Recurrent), so the model reads and writes it in place with no
// copy. The layout inside a block is the model's: the cache never looks
// inside it, it only keeps it with the sequence:
//
//   - Truncate(seq, 0) zeroes it (an empty sequence has the zero state);
//     a Truncate to 0 < p < Len(seq) leaves it alone, since only the model
//     can roll a recurrent state back (from its snapshots or replay tape)
//     and it does so before or after cutting the rows.
//   - Fork(src, dst, n) copies src's block when n == Len(src) and zeroes
//     dst's otherwise: the state at a shorter length is the model's to
//     rebuild (a fork into the middle of a sequence fills it in).
//   - WriteState and RestoreState save and load it with the rows (the
//     state file's recurrent section), so a restored sequence is whole.
//
// Generation(seq) changes whenever RestoreState replaced (or emptied) the
// sequence. A model that keeps data about a sequence beside the cache —
// rollback snapshots, a replay tape, checkpoints, its token history —
// compares it with the value it saw last: a difference means the sequence
// now holds other tokens (consistent rows and state, from the file) and
// that data must be dropped. This is exact, unlike comparing lengths: a
// restored file of the same length as the old sequence is noticed too.

// maxRecurrent bounds Options.Recurrent (float32 values per sequence, 1 GiB)
// so the pool's size cannot overflow int arithmetic on any target.
const maxRecurrent = 1 << 28

// newRecurrent allocates the recurrent blocks of o.NSeq sequences.
func newRecurrent(o Options) ([]float32, error) {
	if o.Recurrent < 0 || o.Recurrent > maxRecurrent {
		return nil, fmt.Errorf("kvcache: %d float32 of recurrent state per sequence, out of range [0, %d]", o.Recurrent, maxRecurrent)
	}
	if int64(o.Recurrent)*int64(o.NSeq) > maxRecurrent*4 {
		return nil, fmt.Errorf("kvcache: %d sequences of %d float32 of recurrent state exceed the %d-value limit", o.NSeq, o.Recurrent, maxRecurrent*4)
	}
	return make([]float32, o.Recurrent*o.NSeq), nil
}

// Recurrent returns sequence seq's recurrent state, Options.Recurrent
// values (empty when the cache has none): the cache's own memory, which
// the model updates in place.
func (c *Cache) Recurrent(seq int) []float32 {
	n := c.opt.Recurrent
	return c.rec[seq*n : (seq+1)*n : (seq+1)*n]
}

// Generation returns a counter of sequence seq that RestoreState advances
// each time it replaces or empties the sequence (see the top of this file);
// nothing else changes it.
func (c *Cache) Generation(seq int) uint64 { return c.gen[seq] }
