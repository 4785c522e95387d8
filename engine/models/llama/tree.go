package llama

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// KeepPath keeps one path of the tree the last Decode appended to seq
// (engine.TreeSession): each kept node's key and value rows move, in every
// layer, to the position after the previous one, and the rest is cut. A
// node's key was rotated at its depth below the root, which is the
// position it moves to, and its rows were computed attending only to the
// root's prefix and its ancestors, so the moved rows are those the path
// decoded in order would have stored.
func (s *session) KeepPath(seq, root int, path []int32) error {
	if seq < 0 || seq >= s.opts.NSeq {
		return fmt.Errorf("llama: sequence %d out of range [0, %d)", seq, s.opts.NSeq)
	}
	if err := engine.CheckPath(s.cache.Len(seq), root, path); err != nil {
		return fmt.Errorf("llama: %w", err)
	}
	for k, p := range path {
		dst := root + 1 + k
		if int(p) == dst {
			continue
		}
		for il := range s.m.layers {
			copy(s.cache.KeyRow(il, seq, dst), s.cache.KeyRow(il, seq, int(p)))
			copy(s.cache.ValueRow(il, seq, dst), s.cache.ValueRow(il, seq, int(p)))
		}
	}
	return s.cache.Truncate(seq, root+1+len(path))
}

// TreeLimit is 0: a tree is limited by the batch size only
// (engine.TreeSession).
func (s *session) TreeLimit() int { return 0 }
