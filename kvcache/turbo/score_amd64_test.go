//go:build !purego

package turbo

// fusedKernelBuilt: this build has the fused scoring and value kernels.
const fusedKernelBuilt = true
