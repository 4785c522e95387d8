//go:build !purego && !linux && (amd64 || arm64)

package kernels

import "testing"

// guardedBytes returns a zeroed slice of size bytes followed by tail bytes
// of poison inside the same allocation. Without mprotect (non-Linux) an
// over-read cannot fault; the tests still see it through changed results
// when the poison differs between runs.
func guardedBytes(t testing.TB, size, tail int) []byte {
	b := make([]byte, size+tail+64)
	for i := size; i < len(b); i++ {
		b[i] = byte(0xa5 + i)
	}
	return b[:size:size]
}
