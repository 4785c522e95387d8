//go:build purego || !(amd64 || arm64)

package kernels

// Without assembly (the purego tag, or an architecture without hand-written
// kernels) the delta-rule kernels run the Go references.

func gatedDeltaStepImpl(s, q, k, v, out []float32, decay, beta float32) {
	gatedDeltaStepGeneric(s, q, k, v, out, decay, beta)
}

func gatedDeltaUpdateImpl(s, k, v []float32, decay, beta float32) {
	gatedDeltaUpdateGeneric(s, k, v, decay, beta)
}

func convSiLUStepImpl(out, state, x, w []float32, kTaps int) {
	convSiLUStepGeneric(out, state, x, w, kTaps)
}

func l2NormImpl(dst, x []float32, eps float32) { l2NormGeneric(dst, x, eps) }

func deltaDotsImpl(out, rows, x []float32) { deltaDotsGeneric(out, rows, x) }

func deltaAxpysImpl(y, rows, w []float32) { deltaAxpysGeneric(y, rows, w) }
