//go:build !purego

package turbo

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the AVX2+FMA block kernels for turbo3 and turbo3_tcq,
// decided once at start-up from the CPU (x/sys/cpu reports AVX2 only when
// the OS saves YMM state). WAGGLE_KERNELS=generic forces the pure-Go
// kernels, as it does for package kernels. Tests flip it with setAVX2.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA &&
	strings.ToLower(strings.TrimSpace(os.Getenv("WAGGLE_KERNELS"))) != "generic"

// Stubs in attn_amd64.s. Each handles one 128-value block; qs points at the
// block's bytes after the norm. In Go terms, with idx_j the block's index or
// trellis state of value j and L the level table (centroids3 or
// tcq3Codebook):
//
//	dot:  return Σ_j q[j]·L[idx_j]   // 8 lanes with FMA, then a horizontal sum
//	axpy: acc[j] += s·L[idx_j]       // one FMA per value
//
// So they differ from the generic kernels only in rounding (FMA, 8-lane
// summation order): the tests hold them to tolAttn. turbo3 reads qs[0:48];
// turbo3_tcq reads qs[0:49] through 4-byte loads at 3i (i < 16), never past
// qs[48]. q and acc must not overlap qs.

//go:noescape
func dotTurbo3AVX2(q *float32, qs *byte) float32

//go:noescape
func axpyTurbo3AVX2(acc *float32, s float32, qs *byte)

//go:noescape
func dotTCQ3AVX2(q *float32, qs *byte) float32

//go:noescape
func axpyTCQ3AVX2(acc *float32, s float32, qs *byte)

func dotTurbo3(q *[BlockSize]float32, b []byte) float32 {
	if useAVX2 {
		return dotTurbo3AVX2(&q[0], &b[normBytes : normBytes+48][0])
	}
	return dotTurbo3Generic(q, b)
}

func axpyTurbo3(acc *[BlockSize]float32, s float32, b []byte) {
	if useAVX2 {
		axpyTurbo3AVX2(&acc[0], s, &b[normBytes : normBytes+48][0])
		return
	}
	axpyTurbo3Generic(acc, s, b)
}

func dotTCQ3(q *[BlockSize]float32, b []byte) float32 {
	if useAVX2 {
		return dotTCQ3AVX2(&q[0], &b[normBytes : normBytes+49][0])
	}
	return dotTCQ(&tcq3, q, b)
}

func axpyTCQ3(acc *[BlockSize]float32, s float32, b []byte) {
	if useAVX2 {
		axpyTCQ3AVX2(&acc[0], s, &b[normBytes : normBytes+49][0])
		return
	}
	axpyTCQ(&tcq3, acc, s, b)
}
