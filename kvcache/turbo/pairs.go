//go:build !purego && (amd64 || arm64)

package turbo

// tcq3Pairs and tcq2Pairs hold, for every (6+2k)-bit window x of a TCQ
// stream, the codebook entries of the two states it contains: the low 6+k
// bits and the high 6+k bits (32 KiB and 8 KiB; built at start-up). The
// AVX2 and NEON TCQ kernels fetch two levels per load from them.
var (
	tcq3Pairs = pairTable[[4096][2]float32](tcq3Codebook[:], 3)
	tcq2Pairs = pairTable[[1024][2]float32](tcq2Codebook[:], 2)
)

func pairTable[P [4096][2]float32 | [1024][2]float32](cb []float32, k uint) (p P) {
	for x := range len(p) {
		p[x] = [2]float32{cb[x&(len(cb)-1)], cb[x>>k]}
	}
	return p
}
