//go:build !purego

package kernels

// Temporary: the previous four-row K-quant kernels, for A/B benchmarks.

//go:noescape
func fusedDot4Q4_KAVX512Old(groups int, w []byte, rb int, xp []byte, out *[4]float32)

//go:noescape
func fusedDot4Q6_KAVX512Old(groups int, w []byte, rb int, xp []byte, out *[4]float32)
