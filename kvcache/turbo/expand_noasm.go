//go:build purego || !(amd64 || arm64)

package turbo

// Without assembly ExpandRows runs the Go reference.
func expandColumn(t Type, dst []float32, w int, src []byte, stride, n int) {
	expandColumnGo(t, dst, w, src, stride, n)
}
