package engine

import "testing"

// TestHiddenRing: rows are kept by position, the oldest is overwritten when
// the ring is full, Truncate cuts the newest and Reset empties it; removals
// advance the generation.
func TestHiddenRing(t *testing.T) {
	r, err := NewHiddenRing(4, 2)
	if err != nil {
		t.Fatal(err)
	}
	row := func(p int) []float32 { return []float32{float32(p), -float32(p)} }
	for p := range 6 {
		r.Append(row(p))
	}
	if r.Start() != 2 || r.End() != 6 || r.Len() != 4 {
		t.Fatalf("after 6 appends to 4 rows: [%d, %d)", r.Start(), r.End())
	}
	for p := 2; p < 6; p++ {
		if got := r.Row(p); got[0] != float32(p) || got[1] != -float32(p) {
			t.Fatalf("row %d = %v", p, got)
		}
	}
	g := r.Generation()
	r.Truncate(6)
	if r.Generation() != g {
		t.Fatal("a truncation at the end advanced the generation")
	}
	r.Truncate(4)
	if r.End() != 4 || r.Start() != 2 || r.Generation() == g {
		t.Fatalf("Truncate(4): [%d, %d), generation %d", r.Start(), r.End(), r.Generation())
	}
	r.Append(row(40))
	if r.Row(4)[0] != 40 || r.Row(3)[0] != 3 {
		t.Fatal("append after a truncation did not refill position 4")
	}
	r.Truncate(1)
	if r.Len() != 0 || r.End() != 1 {
		t.Fatalf("Truncate below the start: [%d, %d)", r.Start(), r.End())
	}
	r.Reset(10)
	r.Append(row(10))
	if r.Start() != 10 || r.Row(10)[0] != 10 {
		t.Fatal("Reset(10) then Append did not fill position 10")
	}
	for _, bad := range [][2]int{{0, 2}, {4, 0}, {1 << 21, 1}} {
		if _, err := NewHiddenRing(bad[0], bad[1]); err == nil {
			t.Fatalf("NewHiddenRing(%d, %d) accepted", bad[0], bad[1])
		}
	}
}
