//go:build !purego

package turbo

// fusedKernelBuilt: this build has the AVX-512 scoring kernels.
const fusedKernelBuilt = true
