//go:build purego || !amd64

package turbo

const fusedKernelBuilt = false
