package ngram

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

// loop is a token stream repeating 10 20 30 40 50.
func loop(n int) []int32 {
	var h []int32
	for i := range n {
		h = append(h, int32(10*(1+i%5)))
	}
	return h
}

func draftOf(s spec.Strategy, h []int32, nmax int) []int32 {
	r := &spec.Request{NMax: nmax, History: h[:len(h)-1], Last: h[len(h)-1]}
	s.Draft([]*spec.Request{r})
	return r.Draft
}

func TestSimpleFollowsRepeat(t *testing.T) {
	s := NewSimple(spec.NgramParams{SizeN: 2, SizeM: 4, MinHits: 1})
	if d := draftOf(s, loop(12), 8); !slices.Equal(d, []int32{30, 40, 50, 10}) {
		t.Fatalf("draft %v", d)
	}
	if d := draftOf(s, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 8); len(d) != 0 {
		t.Fatalf("drafted %v from a stream without repeats", d)
	}
}

func TestMapKAdapts(t *testing.T) {
	s := NewMap(spec.NgramParams{SizeN: 2, SizeM: 6, MinHits: 1}, false)
	s.Begin(0, nil)
	h := loop(20)
	// The most recent earlier occurrence is one period back: 5 tokens follow.
	if d := draftOf(s, h, 8); !slices.Equal(d, []int32{10, 20, 30, 40, 50}) {
		t.Fatalf("draft %v", d)
	}
	s.Accept(0, 2) // the key's next draft is 2 long
	if d := draftOf(s, h, 8); len(d) != 2 {
		t.Fatalf("after accepting 2, draft %v", d)
	}
}

func TestK4VVotes(t *testing.T) {
	s := NewMap(spec.NgramParams{SizeN: 1, SizeM: 2, MinHits: 1}, true)
	// 7 is followed by (1 2) three times and (3 4) once: vote for (1 2).
	h := []int32{7, 1, 2, 0, 7, 1, 2, 0, 7, 3, 4, 0, 7, 1, 2, 0, 7}
	if d := draftOf(s, h, 8); !slices.Equal(d, []int32{1, 2}) {
		t.Fatalf("draft %v", d)
	}
	// A tie between two continuations: no draft.
	s2 := NewMap(spec.NgramParams{SizeN: 1, SizeM: 2, MinHits: 1}, true)
	h2 := []int32{7, 1, 2, 0, 7, 3, 4, 0, 7}
	if d := draftOf(s2, h2, 8); len(d) != 0 {
		t.Fatalf("drafted %v despite a tie", d)
	}
}

func TestModSharedPoolAndReset(t *testing.T) {
	s := NewMod(spec.ModParams{NMatch: 2, NMin: 3, NMax: 6})
	h := loop(20)
	s.Begin(0, h[:len(h)-1])
	if d := draftOf(s, h, 8); !slices.Equal(d, []int32{10, 20, 30, 40, 50, 10}) {
		t.Fatalf("draft %v", d)
	}
	// Sequence 1 shares the pool: it drafts without a Begin of its own.
	if d := draftOf(&modSeqView{s, 1}, h, 8); len(d) != 6 {
		t.Fatalf("seq 1 draft %v", d)
	}
	for range modLowStreak { // three low rounds empty the pool
		draftOf(s, h, 8)
		s.Accept(0, 0)
	}
	if s.used != 0 {
		t.Fatalf("pool not reset after %d low rounds (%d entries)", modLowStreak, s.used)
	}
}

type modSeqView struct {
	*Mod
	seq int
}

func (v *modSeqView) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		r.Seq = v.seq
	}
	v.Mod.Draft(reqs)
}
