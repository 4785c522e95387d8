//go:build purego || !amd64

package kernels

// gemmFor returns nil: this build has no GEMM tile kernels, and MatMul
// multiplies through VecDotN.
func gemmFor(DType) *gemmKernel { return nil }
