//go:build !purego && (amd64 || arm64)

package kernels

import (
	"os"
	"syscall"
	"testing"
)

// guardedBytes returns a zeroed slice of size bytes that ends tail bytes
// before an inaccessible page, so a kernel reading past the end of its
// input faults instead of passing by luck. Varying tail varies the
// alignment of the start as well.
func guardedBytes(t testing.TB, size, tail int) []byte {
	t.Helper()
	ps := os.Getpagesize()
	total := (size+tail+ps-1)/ps*ps + ps
	m, err := syscall.Mmap(-1, 0, total, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	if err := syscall.Mprotect(m[total-ps:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	end := total - ps - tail
	return m[end-size : end : end]
}
