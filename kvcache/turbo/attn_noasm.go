//go:build purego || !amd64

package turbo

// Without assembly the turbo3 and turbo3_tcq block kernels are the pure-Go
// ones.

func dotTurbo3(q *[BlockSize]float32, b []byte) float32 { return dotTurbo3Generic(q, b) }

func axpyTurbo3(acc *[BlockSize]float32, s float32, b []byte) { axpyTurbo3Generic(acc, s, b) }

func dotTCQ3(q *[BlockSize]float32, b []byte) float32 { return dotTCQ(&tcq3, q, b) }

func axpyTCQ3(acc *[BlockSize]float32, s float32, b []byte) { axpyTCQ(&tcq3, acc, s, b) }
