package gguf

import (
	"errors"
	"fmt"
	"math"
	"os"
)

// Open maps the file at path into memory read-only and parses its metadata.
// Tensor data is not read or copied: TensorData returns slices of the
// mapping, valid until Close. The file must not be truncated while mapped
// (on Unix that would fault the process, as with any mmap reader).
func Open(path string) (*File, error) {
	return openWith(path, mapFile)
}

// openWith opens path with the given mapper (mapFile or readWhole), so the
// read fallback is testable on every OS.
func openWith(path string, mapper func(*os.File, int) ([]byte, func() error, error)) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("gguf: %s: not a regular file", path)
	}
	if st.Size() > math.MaxInt {
		return nil, fmt.Errorf("gguf: %s: %d bytes is too large to map on this platform", path, st.Size())
	}
	size := int(st.Size())
	if size == 0 {
		mapper = readWhole // a zero-length mapping is an error on every OS
	}
	data, unmap, err := mapper(fh, size)
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	f, err := parse(data)
	if err != nil {
		if unmap != nil {
			_ = unmap()
		}
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	f.unmap = unmap
	return f, nil
}

// readWhole is the fallback for systems without a mapping primitive: it
// reads the file onto the heap, so it costs memory but behaves the same.
func readWhole(fh *os.File, size int) ([]byte, func() error, error) {
	data := make([]byte, size)
	n, err := fh.ReadAt(data, 0)
	if n == size {
		return data, nil, nil
	}
	if err == nil {
		err = fmt.Errorf("short read: %d of %d bytes", n, size)
	}
	return nil, nil, err
}
