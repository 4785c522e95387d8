package kernels

import (
	"fmt"
	"testing"
)

// BenchmarkDeltaNetOps times the DeltaNet kernels besides the per-token
// step (BenchmarkGatedDeltaImpls) under every implementation, at the
// Qwen3.5-0.8B shapes the model calls them with: the conv over the 6144
// channels of q, k and v with 4 taps (once per token and layer), L2Norm
// and GatedRMSNorm on one 128-wide head, the chunked form on a 64-token
// chunk of a 128×128 head, and its two primitives at that chunk's sizes.
// Bytes are the floats each call reads and writes (for the chunk, the
// state work of its 64 tokens, as one step per token would move it).
func BenchmarkDeltaNetOps(b *testing.B) {
	r := newRand(105)
	const c, kTaps, d = 6144, 4, 128
	convW, convSt, convX, convOut := randVec(r, kTaps*c, 0.5), randVec(r, (kTaps-1)*c, 1), randVec(r, c, 1), make([]float32, c)
	x, w, z, dst := randVec(r, d, 1), randVec(r, d, 1), randVec(r, d, 1), make([]float32, d)
	in := newDeltaInputs(r, d, d, DeltaChunkSize, -0.5)
	st, out := append([]float32(nil), in.s0...), make([]float32, in.n*d)
	scratch := make([]float32, DeltaChunkScratchLen(d))
	rows, wts, y := randVec(r, DeltaChunkSize*d, 1), randVec(r, DeltaChunkSize, 1), make([]float32, d)
	for _, name := range Impls() {
		withImpl(b, name, func() {
			run := func(op string, bytes int, f func()) {
				b.Run(fmt.Sprintf("%s/%s", op, name), func(b *testing.B) {
					b.SetBytes(int64(bytes))
					for b.Loop() {
						f()
					}
				})
			}
			run(fmt.Sprintf("conv/%dx%d", c, kTaps), 4*(kTaps*c+2*(kTaps-1)*c+2*c), func() { ConvSiLUStep(convOut, convSt, convX, convW, kTaps) })
			run(fmt.Sprintf("l2norm/%d", d), 4*2*d, func() { L2Norm(dst, x, 1e-6) })
			run(fmt.Sprintf("gatedrmsnorm/%d", d), 4*4*d, func() { GatedRMSNorm(dst, x, w, z, 1e-6) })
			run(fmt.Sprintf("chunk/%dx%dx%d", DeltaChunkSize, d, d), 4*2*d*d*DeltaChunkSize, func() {
				GatedDeltaChunk(st, in.q, in.k, in.v, out, in.g, in.beta, in.n, scratch)
			})
			run(fmt.Sprintf("dots/%dx%d", DeltaChunkSize, d), 4*(DeltaChunkSize*d+d+DeltaChunkSize), func() { deltaDots(wts, rows, x) })
			run(fmt.Sprintf("axpys/%dx%d", DeltaChunkSize, d), 4*(DeltaChunkSize*d+2*d+DeltaChunkSize), func() { deltaAxpys(y, rows, wts) })
		})
	}
}

// BenchmarkGatedDeltaStepModel is one decode token's delta-rule work of the
// Qwen3.5-0.8B shape: 18 layers × 16 heads of 128×128 state (18 MiB, past
// the caches, as in decode), one step per head, per implementation; bytes
// = the state read and written.
func BenchmarkGatedDeltaStepModel(b *testing.B) {
	const d, heads = 128, 18 * 16
	r := newRand(106)
	in := newDeltaInputs(r, d, d, 1, -0.5)
	st := randVec(r, heads*d*d, 0.5)
	out := make([]float32, d)
	for _, name := range Impls() {
		withImpl(b, name, func() {
			b.Run(name, func(b *testing.B) {
				b.SetBytes(2 * 4 * heads * d * d)
				for b.Loop() {
					for h := range heads {
						GatedDeltaStep(st[h*d*d:(h+1)*d*d], in.q, in.k, in.v, out, 0.999, in.beta[0])
					}
				}
			})
		})
	}
}
