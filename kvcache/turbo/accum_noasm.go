//go:build purego || !(amd64 || arm64)

package turbo

func fusedValues(Type) bool { return false }

func accumulateRowsAsm(t Type, acc []float32, accStride int, p []float32, pStride, nq int, src []byte, stride, m int) {
	accumulateRowsGo(t, acc, accStride, p, pStride, nq, src, stride, m)
}
