//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gguf

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of fh read-only and shared, so pages come from the
// page cache and are shared between processes serving the same model.
func mapFile(fh *os.File, size int) ([]byte, func() error, error) {
	data, err := syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: fh.Name(), Err: err}
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
