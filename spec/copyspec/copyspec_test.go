package copyspec

import (
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

func TestCopiesRepeat(t *testing.T) {
	c := New(3, 8)
	h := []int32{1, 2, 3, 4, 5, 6, 7, 1, 2}
	c.Begin(0, h)
	r := &spec.Request{Seq: 0, NMax: 8, History: h, Last: 3}
	c.Draft([]*spec.Request{r})
	want := []int32{4, 5, 6, 7, 1, 2, 3}
	if len(r.Draft) != len(want) {
		t.Fatalf("draft %v, want %v", r.Draft, want)
	}
	for i := range want {
		if r.Draft[i] != want[i] {
			t.Fatalf("draft %v, want %v", r.Draft, want)
		}
	}
	// No match: nothing drafted.
	r = &spec.Request{Seq: 0, NMax: 8, History: h, Last: 9}
	c.Draft([]*spec.Request{r})
	if len(r.Draft) != 0 {
		t.Fatalf("drafted %v without a match", r.Draft)
	}
}
