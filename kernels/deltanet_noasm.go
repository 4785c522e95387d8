//go:build purego || !amd64

package kernels

// Without the amd64 assembly (the purego tag, or another architecture;
// arm64 has no NEON delta-rule kernel yet) the delta rule runs the Go
// references.

func gatedDeltaStepImpl(s, q, k, v, out []float32, decay, beta float32) {
	gatedDeltaStepGeneric(s, q, k, v, out, decay, beta)
}

func gatedDeltaUpdateImpl(s, k, v []float32, decay, beta float32) {
	gatedDeltaUpdateGeneric(s, k, v, decay, beta)
}
