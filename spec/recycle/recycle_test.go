package recycle

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

func TestRecycleBigramsAndLogits(t *testing.T) {
	s := New(4, 3)
	h := []int32{1, 2, 3, 1, 2, 3, 1, 5}
	s.Begin(0, h)
	r := &spec.Request{NMax: 3, History: h, Last: 1}
	s.Draft([]*spec.Request{r})
	if !slices.Equal(r.Draft, []int32{2, 3, 1}) {
		t.Fatalf("draft %v", r.Draft)
	}
	// The target's logits at a verified row override the counts.
	row := []float32{0, 0, 0, 0, 9, 0}
	s.Verified(0, []int32{1}, 1, func(int) []float32 { return row })
	r.Draft = r.Draft[:0]
	s.Draft([]*spec.Request{r})
	if len(r.Draft) == 0 || r.Draft[0] != 4 {
		t.Fatalf("after verified logits, draft %v", r.Draft)
	}
}
