//go:build !purego

package turbo

func (c *tcqCode) viterbiSteps([]float32, *[512]float32, *[BlockSize][64]uint8) bool { return false }
