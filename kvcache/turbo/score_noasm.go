//go:build purego || !(amd64 || arm64)

package turbo

func fusedScores(Type) bool { return false }

func scoreRowsAsm(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	scoreRowsGo(t, dst, dstStride, q, nq, src, stride, m)
}
