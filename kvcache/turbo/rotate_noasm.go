//go:build purego || !(amd64 || arm64)

package turbo

// Without assembly the rotation is the Go reference.
func rotate(x, pre, post *[BlockSize]float32) { rotateGo(x, pre, post) }
