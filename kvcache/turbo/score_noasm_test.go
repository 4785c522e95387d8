//go:build purego || !(amd64 || arm64)

package turbo

const fusedKernelBuilt = false
