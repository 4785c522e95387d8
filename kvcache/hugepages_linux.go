package kvcache

import (
	"syscall"
	"unsafe"
)

// hugePageSize is the transparent huge page size of x86-64 and of arm64
// with 4 KiB base pages.
const hugePageSize = 2 << 20

// alloc returns n zero bytes for cache cells. Buffers of two huge pages or
// more are advised into transparent huge pages (MADV_HUGEPAGE, which this
// kernel's default "madvise" THP mode requires) before they are first
// touched: attention reads one KV head of every position, a few hundred
// bytes per position at a stride of a whole row, so with 4 KiB pages a 16K
// context takes a TLB miss every few rows per head. The advice covers the
// 2 MiB-aligned interior of the Go allocation, which stays garbage
// collected as usual; where THP is off or the call fails, nothing changes
// but the page size.
func alloc(n int) []byte {
	b := make([]byte, n)
	if n < 2*hugePageSize {
		return b
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + hugePageSize - 1) &^ (hugePageSize - 1)
	hi := (p + uintptr(n)) &^ (hugePageSize - 1)
	if hi > lo {
		_ = syscall.Madvise(b[lo-p:hi-p], syscall.MADV_HUGEPAGE)
	}
	return b
}
