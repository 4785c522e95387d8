//go:build purego

package dflash_test

// slowKernels: the generic kernels run here (-tags purego), several times
// slower; the long end-to-end tests cover one target instead of all.
const slowKernels = true
