package engine

import (
	"fmt"

	"github.com/waggle-llm/waggle/kvcache"
)

// PlanBatch checks a batch against a session's cache before anything is
// written, so a rejected batch leaves the session unchanged, and reserves
// the cache room it needs. name prefixes the errors ("llama", "qwen35").
// On success nextPos[seq] is each sequence's length after the batch; the
// caller runs the batch and then sets those lengths. seqOK (may be nil) is
// asked about the sequence of every token, before its position is checked,
// for model-specific refusals.
//
// The checks: a non-empty batch of at most o.NBatch tokens with fields of
// equal length, tokens in [0, nVocab), sequences in [0, o.NSeq), positions
// continuing each sequence, no sequence past o.NCtx (ErrContextFull). The
// reservation gives back what it took if the pool runs out
// (kvcache.ErrPoolFull, which matches ErrKVPoolFull).
func PlanBatch(name string, b *Batch, c *kvcache.Cache, o SessionOptions, nVocab int, nextPos []int, seqOK func(seq int) error) error {
	n := b.Len()
	if n == 0 {
		return fmt.Errorf("%s: empty batch", name)
	}
	if n > o.NBatch {
		return fmt.Errorf("%s: batch of %d tokens exceeds the batch size %d", name, n, o.NBatch)
	}
	if len(b.Pos) != n || len(b.Seq) != n || len(b.Output) != n || (b.IsTree() && len(b.Parent) != n) {
		return fmt.Errorf("%s: batch fields have different lengths", name)
	}
	for seq := range nextPos {
		nextPos[seq] = c.Len(seq)
	}
	for i, tok := range b.Tokens {
		seq := int(b.Seq[i])
		if tok < 0 || int(tok) >= nVocab {
			return fmt.Errorf("%s: token %d at batch index %d outside the vocabulary [0, %d)", name, tok, i, nVocab)
		}
		if seq < 0 || seq >= o.NSeq {
			return fmt.Errorf("%s: sequence %d at batch index %d out of range [0, %d)", name, seq, i, o.NSeq)
		}
		if seqOK != nil {
			if err := seqOK(seq); err != nil {
				return err
			}
		}
		if int(b.Pos[i]) != nextPos[seq] {
			return fmt.Errorf("%s: batch index %d has position %d, sequence %d continues at %d", name, i, b.Pos[i], seq, nextPos[seq])
		}
		if nextPos[seq] >= o.NCtx {
			return fmt.Errorf("%w: sequence %d holds %d positions", ErrContextFull, seq, o.NCtx)
		}
		nextPos[seq]++
	}
	if b.IsTree() {
		if err := checkTree(name, b); err != nil {
			return err
		}
	}
	return reserveBatch(name, c, nextPos)
}

// checkTree checks a tree batch's parents (Batch): each node's parent is
// an earlier token of its sequence, and no ordinary token follows a tree
// node of its sequence. The second check is quadratic in the tokens after
// the first node, which a verify tree keeps small.
func checkTree(name string, b *Batch) error {
	firstNode := -1
	for i, p := range b.Parent {
		switch {
		case p >= 0:
			if int(p) >= i || b.Seq[p] != b.Seq[i] {
				return fmt.Errorf("%s: tree node %d has parent %d, not an earlier token of its sequence", name, i, p)
			}
			if firstNode < 0 {
				firstNode = i
			}
		case p != -1:
			return fmt.Errorf("%s: batch index %d has parent %d (want -1 or an earlier index)", name, i, p)
		case firstNode >= 0:
			for j := firstNode; j < i; j++ {
				if b.Parent[j] >= 0 && b.Seq[j] == b.Seq[i] {
					return fmt.Errorf("%s: ordinary token %d follows tree node %d of sequence %d", name, i, j, b.Seq[i])
				}
			}
		}
	}
	return nil
}

// reserveBatch makes the cache room for every sequence's new positions
// (pages, copies of shared pages); if the pool runs out it gives back what
// it reserved and returns the error.
func reserveBatch(name string, c *kvcache.Cache, nextPos []int) error {
	for seq, n := range nextPos {
		if err := c.Reserve(seq, n); err != nil {
			for back := range seq {
				_ = c.Truncate(back, c.Len(back)) // releases only the new pages
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
