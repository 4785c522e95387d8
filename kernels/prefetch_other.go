//go:build purego || !(amd64 || arm64)

package kernels

// prefetchRowsImpl is a no-op where there is no prefetch kernel (purego,
// other architectures): the hint changes nothing but speed.
func prefetchRowsImpl(p []byte, stride, lines, n int) {}
