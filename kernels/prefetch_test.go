package kernels

import (
	"bytes"
	"testing"
)

// TestPrefetchRowsIsOnlyAHint: any arguments, including chunks running past
// the end of p, degenerate strides and empty slices, leave p unchanged and
// do not panic (a prefetch past p would be a wild hint; the clamp keeps the
// lines inside p).
func TestPrefetchRowsIsOnlyAHint(t *testing.T) {
	p := make([]byte, 10_000)
	for i := range p {
		p[i] = byte(i * 7)
	}
	want := bytes.Clone(p)
	cases := []struct{ off, stride, row, n int }{
		{0, 1024, 128, 64}, {9000, 1024, 128, 64}, {9999, 1024, 1024, 3}, {0, 64, 4096, 10},
		{0, 0, 128, 4}, {0, 1024, 0, 4}, {0, 1024, 128, 0}, {0, -1, 128, 4}, {10_000, 1024, 128, 4},
	}
	for _, c := range cases {
		PrefetchRows(p[c.off:], c.stride, c.row, c.n)
	}
	PrefetchRows(nil, 1024, 128, 4)
	if !bytes.Equal(p, want) {
		t.Fatal("PrefetchRows changed memory")
	}
}
