package turbo

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestExpandRowsStaysInRows places the rows flush against inaccessible
// pages (the first row starting right after one, the last row ending right
// before one), so a kernel reading a byte outside the rows faults.
func TestExpandRowsStaysInRows(t *testing.T) {
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
	r := rand.New(rand.NewPCG(65, 66))
	forExpandImpls(t, func(name string) {
		for _, typ := range Types {
			for _, w := range []int{128, 256} {
				rb := typ.RowBytes(w)
				for n := 1; n <= 9; n++ {
					stride := rb + n%3
					size := (n-1)*stride + rb
					for _, src := range [][]byte{mid[:size], mid[len(mid)-size:]} {
						randomRows(t, r, typ, src, w, stride, n)
						want := expandWant(t, typ, src, w, stride, n)
						checkExpand(t, name, typ, src, w, stride, n, 0, want)
					}
				}
			}
		}
	})
}
