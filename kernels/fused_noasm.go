//go:build purego || !amd64

package kernels

// fusedKernel returns nil: without the amd64 assembly every decode matrix
// product goes through MatMul.
func fusedKernel(DType) (fusedDotFunc, int, bool) { return nil, 0, false }

// fusedKernels returns nil (see fusedKernel).
func fusedKernels(DType) (fusedDotFunc, fusedDotNFunc, int, int, bool) {
	return nil, nil, 0, 0, false
}
