//go:build !purego

package kernels

import "unsafe"

//go:noescape
func prefetchRowsAMD64(p unsafe.Pointer, stride, lines, n int)

func prefetchRowsImpl(p []byte, stride, rowBytes, n int) {
	// The last row may be shorter than rowBytes within p: its lines past p
	// would be hints about memory p does not own, harmless to the CPU but
	// not to a reader; keep whole lines inside p.
	last := len(p) - (n-1)*stride
	lines := (min(rowBytes, last) + 63) / 64
	prefetchRowsAMD64(unsafe.Pointer(unsafe.SliceData(p)), stride, lines, n)
}
