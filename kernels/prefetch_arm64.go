//go:build !purego

package kernels

import "unsafe"

//go:noescape
func prefetchRowsARM64(p unsafe.Pointer, stride, lines, n int)

func prefetchRowsImpl(p []byte, stride, lines, n int) {
	prefetchRowsARM64(unsafe.Pointer(unsafe.SliceData(p)), stride, lines, n)
}
