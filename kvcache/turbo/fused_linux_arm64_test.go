//go:build !purego

package turbo

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestFusedNEONStaysInRows places the rows flush against inaccessible
// pages (the first row right after one, the last row ending right before
// one), so a fused kernel reading a byte outside the rows faults; TCQ2's
// last window, moved back to end inside its block, and the scalar types'
// last index loads (ending at the block's last byte) are the close ones.
func TestFusedNEONStaysInRows(t *testing.T) {
	atNEON(t)
	withScalarValues(t)
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	mid := mem[page : 2*page]
	r := rand.New(rand.NewPCG(75, 76))
	for _, typ := range Types {
		bb := typ.BlockBytes()
		for m := 1; m <= 9; m++ {
			stride := bb + m%3
			size := (m-1)*stride + bb
			for _, src := range [][]byte{mid[:size], mid[len(mid)-size:]} {
				randomRows(t, r, typ, src, BlockSize, stride, m)
				nq := 1 + m%4
				checkScores(t, "edge", typ, scoreQueries(r, nq), nq, src, stride, m)
				checkAccumNEON(t, "edge", r, typ, nq, m, randomWeights(r, nq, m, m), m, src, stride, 0)
			}
		}
	}
}
