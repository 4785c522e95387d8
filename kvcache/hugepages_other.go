//go:build !linux

package kvcache

// alloc returns n zero bytes for cache cells (huge pages are advised on
// Linux only: hugepages_linux.go).
func alloc(n int) []byte { return make([]byte, n) }
