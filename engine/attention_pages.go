package engine

import (
	"unsafe"

	"github.com/waggle-llm/waggle/kernels"
)

// attnChunk is the number of value rows continueValues gathers per kernel
// call: 64 rows of a 128-wide head are 32 KiB of float32, within L2.
const attnChunk = 64

// continueValues adds Σ_j p_j·V_j over m = len(p) value rows of KV head g
// starting at cell to dst, exactly continuing the ordered sum of
// kernels.AttnValues (the kernels have no accumulating entry):
//
//	for d := range dst {
//		for j := range p {
//			dst[d] += float32(p[j] * V_j[d])
//		}
//	}
//
// It gathers the rows (one copy each), converts them to float32 in one
// call (exact for f16), puts dst in front of them with weight 1 and runs
// the F32 kernel: the kernel's sum starts 0 + float32(1·dst[d]) = dst[d]
// and then adds the same rounded products in the same order (for an f16
// cache p holds f16 values, so p·V is exact in float32 and equals the f16
// kernel's fused multiply-add). The one x for which 0 + x is not x is -0,
// and a running sum that starts at +0 is never -0 in round-to-nearest (a
// sum is -0 only when both terms are), so the first row reproduces dst.
func (a *attendTask) continueValues(w *attnWorker, dst, p []float32, cell, g int) {
	hd, m := a.headDim, len(p)
	rows := w.rows[:(m+1)*hd]
	copy(rows, dst)
	values := a.c.ValueCells(a.layer, cell, m)
	if a.vt == kernels.F32 {
		rb := f32Bytes(rows[hd:])
		for j := range m {
			off := j*a.vRow + g*a.vHead
			copy(rb[j*a.vHead:(j+1)*a.vHead], values[off:off+a.vHead])
		}
	} else {
		raw := w.raw[:m*a.vHead]
		for j := range m {
			off := j*a.vRow + g*a.vHead
			copy(raw[j*a.vHead:(j+1)*a.vHead], values[off:off+a.vHead])
		}
		kernels.DequantizeRow(a.vt, rows[hd:], raw)
	}
	pc := w.pc[:m+1]
	pc[0] = 1
	copy(pc[1:], p)
	kernels.AttnValues(kernels.F32, dst, pc, f32Bytes(rows), 4*hd)
}

// f32Bytes views x as F32 cache rows. kernels reads F32 rows as
// little-endian float32, which is x's memory on every GOARCH Waggle
// supports (init refuses a big-endian one rather than compute wrong bits).
func f32Bytes(x []float32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}

func init() {
	one := uint32(1)
	if *(*byte)(unsafe.Pointer(&one)) != 1 {
		panic("engine: attention over paged KV cells assumes a little-endian machine")
	}
}
