package sample

import (
	"slices"
	"testing"
)

func TestPenaltiesSemantics(t *testing.T) {
	p := neutral()
	p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty, p.RepeatLastN = 1.5, 0.25, 0.5, 4
	s := mustNew(t, p, 6)
	for _, tok := range []int32{9, 1, 2, 2, 0, 3} { // 9 is out of range: ignored
		s.Accept(tok)
	}
	// window (last 4 of 1,2,2,0,3) = 2,2,0,3: counts 0→1, 2→2, 3→1; 1 fell out.
	logits := []float32{2, 3, -1, 0, 4, 1}
	want := make([]float32, 6)
	copy(want, logits)
	count := map[int]float32{0: 1, 2: 2, 3: 1}
	for i, c := range count {
		l := logits[i]
		if l > 0 {
			l /= 1.5
		} else {
			l *= 1.5
		}
		want[i] = l - (c*0.25 + 0.5)
	}
	for _, ident := range []bool{true, false} { // by index, and by lookup in reversed order
		cs := cands{c: make([]Candidate, 6), ident: ident}
		for i, l := range logits {
			cs.c[i] = Candidate{ID: int32(i), Logit: l}
		}
		if !ident {
			slices.Reverse(cs.c)
		}
		s.pen.apply(&cs)
		for _, c := range cs.c {
			if c.Logit != want[c.ID] {
				t.Fatalf("ident %v: token %d: penalized %v, want %v (all %v)", ident, c.ID, c.Logit, want[c.ID], cs.c)
			}
		}
	}
	// apply must leave the counts as they were.
	if s.pen.countOf(2) != 2 || s.pen.countOf(1) != 0 {
		t.Fatalf("counts disturbed: %v", s.pen.counts)
	}
}

func TestPenaltyWindowModes(t *testing.T) {
	p := neutral()
	p.RepeatPenalty = 2
	p.RepeatLastN = 0
	if s := mustNew(t, p, 4); s.pen != nil {
		t.Fatal("repeat_last_n 0 must disable the penalties")
	}
	p.RepeatLastN = -1
	if _, err := New(p, 4); err == nil {
		t.Fatal("repeat_last_n -1 without NCtx must fail")
	}
	p.NCtx = 7
	if s := mustNew(t, p, 4); len(s.pen.ring) != 7 {
		t.Fatalf("repeat_last_n -1 window = %d, want NCtx 7", len(s.pen.ring))
	}
	p.RepeatLastN, p.RepeatPenalty = 64, 1
	if s := mustNew(t, p, 4); s.pen != nil {
		t.Fatal("neutral penalties must be skipped")
	}
}

// Greedy sampling must see the penalties: a repeated top token loses.
func TestPenaltiesChangeGreedyPick(t *testing.T) {
	p := neutral()
	p.Temp, p.RepeatPenalty, p.RepeatLastN = 0, 2, 2
	s := mustNew(t, p, 3)
	logits := []float32{1, 3, 2}
	if got := s.Sample(logits); got != 1 {
		t.Fatalf("got %d, want 1", got)
	}
	s.Accept(1)
	if got := s.Sample(logits); got != 2 {
		t.Fatalf("after accepting 1: got %d, want 2 (3/2 < 2)", got)
	}
	s.Accept(0)
	s.Accept(0) // 1 leaves the window of 2
	if got := s.Sample(logits); got != 1 {
		t.Fatalf("after 1 left the window: got %d, want 1", got)
	}
	s.Reset()
	if got := s.Sample([]float32{3, 1, 2}); got != 0 {
		t.Fatalf("after Reset: got %d, want 0", got)
	}
}
