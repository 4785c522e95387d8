//go:build !purego

package dflash_test

// slowKernels is false where the assembly kernels run.
const slowKernels = false
