//go:build !purego

package kernels

import "unsafe"

//go:noescape
func prefetchRowsARM64(p unsafe.Pointer, stride, lines, n int)

func prefetchRowsImpl(p []byte, stride, rowBytes, n int) {
	last := len(p) - (n-1)*stride // keep whole lines inside p, as on amd64
	lines := (min(rowBytes, last) + 63) / 64
	prefetchRowsARM64(unsafe.Pointer(unsafe.SliceData(p)), stride, lines, n)
}
