//go:build purego || !(amd64 || arm64)

package turbo

// viterbiSteps reports that no vectorised trellis search exists here.
func (c *tcqCode) viterbiSteps([]float32, *[512]float32, *[BlockSize][64]uint8) bool { return false }
