//go:build windows

package gguf

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps fh read-only with CreateFileMapping and MapViewOfFile. The
// mapping handle is closed at once: the view keeps the mapping alive until
// UnmapViewOfFile.
func mapFile(fh *os.File, size int) ([]byte, func() error, error) {
	sz := uint64(size)
	h, err := syscall.CreateFileMapping(syscall.Handle(fh.Fd()), nil, syscall.PAGE_READONLY,
		uint32(sz>>32), uint32(sz), nil)
	if err != nil {
		return nil, nil, &os.PathError{Op: "CreateFileMapping", Path: fh.Name(), Err: err}
	}
	addr, err := syscall.MapViewOfFile(h, syscall.FILE_MAP_READ, 0, 0, uintptr(size))
	_ = syscall.CloseHandle(h)
	if err != nil {
		return nil, nil, &os.PathError{Op: "MapViewOfFile", Path: fh.Name(), Err: err}
	}
	// Reinterpret the address without a uintptr->unsafe.Pointer conversion
	// that vet would flag; the memory is outside the Go heap.
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	data := unsafe.Slice((*byte)(ptr), size)
	return data, func() error { return syscall.UnmapViewOfFile(addr) }, nil
}
