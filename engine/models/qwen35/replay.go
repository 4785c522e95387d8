package qwen35

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/waggle-llm/waggle/kernels"
)

// available reports whether seq's state at length pos (its current length
// cur) can be rebuilt, without changing anything.
func (r *recurrent) available(seq, pos, cur int) bool {
	return pos == cur || pos == 0 || r.find(seq, pos) >= 0 || r.onTape(seq, pos) >= 0
}

// restore makes dst's live state seq's state at length pos, from seq's
// live state (pos == cur), zero (pos == 0), a snapshot or the tape (see
// state.go). The caller has checked available; dst may equal seq only
// when pos < cur.
func (s *session) restore(seq, dst, pos, cur int) {
	rs := s.rs
	switch {
	case pos == cur:
		if dst != seq {
			copy(rs.block(dst, -1), rs.block(seq, -1))
		}
	case pos == 0:
		clear(rs.block(dst, -1))
	default:
		if slot := rs.find(seq, pos); slot >= 0 {
			copy(rs.block(dst, -1), rs.block(seq, slot))
			return
		}
		s.replay(seq, dst, rs.onTape(seq, pos))
	}
}

// truncateState rolls seq's recurrent state back from length cur to pos
// and cuts what it kept above pos; ErrNoSnapshot (nothing changed) when
// the state at pos is not kept.
func (s *session) truncateState(seq, pos, cur int) error {
	if !s.rs.available(seq, pos, cur) {
		return fmt.Errorf("%w: truncate sequence %d from %d to %d (kept: %s)", ErrNoSnapshot, seq, cur, pos, s.rs.kept(seq))
	}
	s.restore(seq, seq, pos, cur)
	s.rs.dropAbove(seq, pos)
	return nil
}

// replay rebuilds, in dst's live state, seq's state m recorded tokens
// after its tape's base: the base is copied, each layer's conv window
// becomes the last K-1 rows of [base window | the m recorded conv inputs],
// and each head's delta state is advanced token by token with the
// recorded k, v, g and β (kernels.GatedDeltaUpdate: bit-identical to the
// forward pass's per-token path). Cost: m·nDelta·hv·dk·dv multiply-adds
// (twice), spread over the pool by (layer, head), against a whole forward
// pass for re-decoding.
func (s *session) replay(seq, dst, m int) {
	rs := s.rs
	switch rs.mode {
	case RollbackFaultNoRestore:
		return
	case RollbackFaultNoReplay:
		copy(rs.block(dst, -1), rs.block(seq, baseSlot))
		return
	}
	copy(rs.block(dst, -1), rs.block(seq, baseSlot))
	if m == 0 {
		return
	}
	k1 := rs.convK - 1
	for li := range rs.nDelta {
		win, base := rs.conv(dst, -1, li), rs.conv(seq, baseSlot, li)
		for j := range k1 {
			src := m + j // index in [base rows | recorded rows]
			if src < k1 {
				copy(win[j*rs.convD:(j+1)*rs.convD], base[src*rs.convD:(src+1)*rs.convD])
			} else {
				copy(win[j*rs.convD:(j+1)*rs.convD], rs.row(seq, li, src-k1)[:rs.convD])
			}
		}
	}
	t := &s.replayT
	t.seq, t.dst, t.m, t.items = seq, dst, m, rs.nDelta*rs.hv
	t.next.Store(0)
	hp := &s.m.hp
	if m*t.items*hp.dk*hp.dv < deltaMinWork && !kernels.Forced() || s.pool.Threads() == 1 {
		t.Run(0, 1)
		return
	}
	s.pool.Do(t)
}

// replayTask advances the delta state of every (layer, head) pair of one
// replay on the session's pool; pairs are independent, claimed through an
// atomic counter, so the result does not depend on the thread count.
type replayTask struct {
	s                  *session
	seq, dst, m, items int
	next               atomic.Int64
}

// Run claims (layer, head) items until none is left.
func (t *replayTask) Run(_, _ int) {
	s, rs := t.s, t.s.rs
	hp := &s.m.hp
	dk, dv, hv := hp.dk, hp.dv, hp.hv
	kvOff, gOff := rs.convD, rs.convD+rs.kvSz
	for it := int(t.next.Add(1)) - 1; it < t.items; it = int(t.next.Add(1)) - 1 {
		li, h := it/hv, it%hv
		state := rs.ssm(t.dst, -1, li)[h*dv*dk : (h+1)*dv*dk]
		kOff, vOff := kvOff+s.kHead(h)*dk, kvOff+hp.hk*dk+h*dv
		for tok := range t.m {
			row := rs.row(t.seq, li, tok)
			kernels.GatedDeltaUpdate(state, row[kOff:kOff+dk], row[vOff:vOff+dv],
				float32(math.Exp(float64(row[gOff+h]))), row[gOff+hv+h])
		}
	}
}
