package suffix

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

func TestSuffixFollowsMostFrequent(t *testing.T) {
	s := New(Params{MaxDepth: 16, SpecFactor: 2, MinProb: 0.1, NMax: 4})
	h := []int32{1, 2, 3, 1, 2, 3, 1, 2, 4, 1, 2, 3, 1}
	s.Begin(0, h)
	r := &spec.Request{NMax: 4, History: h, Last: 2}
	s.Draft([]*spec.Request{r})
	if len(r.Draft) == 0 || r.Draft[0] != 3 {
		t.Fatalf("draft %v, want to start with 3 (the frequent continuation of 1 2)", r.Draft)
	}
	r = &spec.Request{NMax: 4, History: h, Last: 9}
	s.Draft([]*spec.Request{r})
	if len(r.Draft) != 0 {
		t.Fatalf("drafted %v after an unseen token", r.Draft)
	}
	_ = slices.Equal[[]int32]
}
