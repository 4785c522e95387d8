package qwen35

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// Tree batches (engine.Batch.Parent) on the hybrids. The attention layers
// mask like any engine.AttendTree caller; the DeltaNet layers need each
// node's recurrent state to be its own path's, not the batch's:
//
//   - a tree run always tapes from its first token (its length is at most
//     Options.Depth, checked before anything runs), so the tape's base is
//     the state before the run and every run token has a tape row;
//   - the conv window of a node is rebuilt from its path before its step:
//     the newest K-1 conv inputs of its ancestors (the ordinary tokens of
//     the run up to the root, then the tree ancestors), older slots from
//     the base window (treeWindow);
//   - the delta state of a node whose parent is not the token processed
//     just before it is rebuilt from the base by kernels.GatedDeltaUpdate
//     along its path (treeState), the update the replay uses, which has
//     the bits of the forward pass's step; nodes that continue the token
//     before them (a tree's first chain, stored after its root) just go
//     on. A branch node costs its depth in state updates per value head.
//
// KeepPath then moves the kept path's attention cells and tape rows into
// consecutive positions and replays the tape along it, which leaves the
// state that decoding the path in order would have left. Until KeepPath
// (or a Truncate to the root's length or one of the first chain's), the
// live state is that of the last node processed.

// checkTree refuses a tree batch the session cannot run, before anything
// is reserved: one needing snapshots rather than the tape, or whose run of
// some sequence is longer than the tape (Options.Depth).
func (s *session) checkTree(b *engine.Batch) error {
	if !b.IsTree() {
		return nil
	}
	if !s.rs.taping() {
		return fmt.Errorf("qwen35: tree batches need the replay rollback (Options.Rollback %v)", s.rs.mode)
	}
	clear(s.nextPos)
	for _, sq := range b.Seq {
		if sq >= 0 && int(sq) < len(s.nextPos) {
			s.nextPos[sq]++
		}
	}
	for seq, n := range s.nextPos {
		if n > s.hyb.Depth {
			return fmt.Errorf("qwen35: a tree batch gives sequence %d %d tokens, more than the rollback depth %d", seq, n, s.hyb.Depth)
		}
	}
	return nil
}

// pathBefore calls f with the batch index of each token on tree node i's
// path above it, nearest first, until f returns false: its tree ancestors,
// then the run's ordinary tokens before them down to the run's first.
func (s *session) pathBefore(ri, i int, f func(a int) bool) {
	toks := s.plan.tokens(ri)
	a := int(s.parent[i])
	for a >= 0 && f(a) {
		switch {
		case s.parent[a] >= 0:
			a = int(s.parent[a])
		case s.plan.rank[a] > 0:
			a = toks[s.plan.rank[a]-1]
		default:
			a = -1
		}
	}
}

// treeWindow fills win (a conv window, K-1 rows of conv_dim, oldest first)
// for tree node i of run ri in layer d: the conv inputs of the newest
// tokens of its path, and the base window's newest rows before them.
func (s *session) treeWindow(d *deltaWeights, ri, i int, win []float32) {
	hp := &s.m.hp
	cd, k1 := hp.convDim, hp.convK-1
	j := k1 - 1
	s.pathBefore(ri, i, func(a int) bool {
		copy(win[j*cd:(j+1)*cd], row(s.buf.qkv, a, cd))
		j--
		return j >= 0
	})
	base := s.rs.conv(s.plan.runs[ri].seq, baseSlot, d.index)
	shift := k1 - 1 - j // path rows placed: slots 0…j take the base's newest j+1 rows
	for ; j >= 0; j-- {
		src := j + shift
		copy(win[j*cd:(j+1)*cd], base[src*cd:(src+1)*cd])
	}
}

// treeState sets one head's delta state (value head h of run ri, layer
// t.li) to tree node i's path's: the head's base state advanced by every
// token above i, oldest first.
func (t *deltaTask) treeState(w *deltaWorker, ri, h, i int, state []float32) {
	s := t.s
	hp := &s.m.hp
	r := &s.plan.runs[ri]
	sz := len(state)
	copy(state, s.rs.ssm(r.seq, baseSlot, t.li)[h*sz:(h+1)*sz])
	w.path = w.path[:0]
	s.pathBefore(ri, i, func(a int) bool {
		w.path = append(w.path, a)
		return true
	})
	kh := s.kHead(h)
	kOff, vOff := hp.hk*hp.dk+kh*hp.dk, 2*hp.hk*hp.dk+h*hp.dv
	for k := len(w.path) - 1; k >= 0; k-- {
		a := w.path[k]
		c := row(s.buf.conv, a, hp.convDim)
		kernels.GatedDeltaUpdate(state, c[kOff:kOff+hp.dk], c[vOff:vOff+hp.dv],
			float32(math.Exp(float64(s.buf.g[a*hp.hv+h]))), s.buf.beta[a*hp.hv+h])
	}
}

// KeepPath keeps one path of the tree the last Decode appended to seq
// (engine.TreeSession): the attention layers' cells and the tape rows of
// the path move to consecutive positions, the rest is cut, and the
// recurrent state is replayed from the tape's base along the path.
func (s *session) KeepPath(seq, root int, path []int32) error {
	if err := s.checkSeq(seq); err != nil {
		return err
	}
	n := s.cache.Len(seq)
	if err := engine.CheckPath(n, root, path); err != nil {
		return fmt.Errorf("qwen35: %w", err)
	}
	rs := s.rs
	st := -1
	if rs.taping() {
		st = rs.tapeStart[seq]
	}
	if st < 0 || st > root || st+rs.tapeLen[seq] != n {
		return fmt.Errorf("qwen35: KeepPath on sequence %d without the tape of its tree batch (kept: %s)", seq, rs.kept(seq))
	}
	for k, p := range path {
		dst := root + 1 + k
		if int(p) == dst {
			continue
		}
		for li := range s.m.nAttn {
			copy(s.cache.KeyRow(li, seq, dst), s.cache.KeyRow(li, seq, int(p)))
			copy(s.cache.ValueRow(li, seq, dst), s.cache.ValueRow(li, seq, int(p)))
		}
		for li := range rs.nDelta {
			copy(rs.row(seq, li, dst-st), rs.row(seq, li, int(p)-st))
		}
		if s.hist != nil {
			h := s.hist[seq*s.opts.NCtx:]
			h[dst] = h[p]
		}
	}
	keep := root + 1 + len(path)
	rs.tapeLen[seq] = keep - st
	s.replay(seq, seq, keep-st)
	rs.dropAbove(seq, keep)
	return s.cache.Truncate(seq, keep)
}

// TreeLimit is the tape's length, Options.Depth (engine.TreeSession): a
// tree run tapes all its tokens.
func (s *session) TreeLimit() int { return s.hyb.Depth }
