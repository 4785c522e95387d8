//go:build !purego

package kernels

// archImplementations returns the amd64 assembly implementations. Each
// <op>_amd64.go adds its kernels to the matching table here, for example
//
//	avx2.kernels.vecDot[Q4_0] = vecDotQ4_0AVX2
//
// with avx2 = &implementation{name: "avx2", parent: "generic", priority: 1,
// available: hasAVX2()} and avx512 (parent "avx2", priority 2, available:
// hasAVX512()). None exist yet, so only generic runs.
func archImplementations() []*implementation { return nil }
