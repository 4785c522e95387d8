package engine

import (
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache/turbo"
)

// Attention over the quantized and turbo cache types (see kvcache.Type).
// The f32 and f16 paths in attention.go are llama.cpp's without flash
// attention, bit for bit; these types are what llama.cpp computes with
// flash attention (a quantized V cache requires it there) up to float
// summation order: keys are scored with the type's integer vec-dot against
// the query in its vec-dot format, and the value rows are expanded to
// float32 and summed with the float32 probabilities, without rounding
// them to the value type.

// decodedValues sets dst = Σ_j p_j·V_j for a bf16 or block-quantized value
// cache: rows are gathered and expanded attnChunk at a time and the sum
// continues from zero through continueValues, in position order.
func (a *attendTask) decodedValues(w *attnWorker, dst, p []float32, g int) {
	if a.vt == kernels.BF16 {
		// ggml rounds the probabilities to the bf16 vec-dot type.
		pq := w.probs[:a.vt.RowBytes(len(p))]
		kernels.QuantizeRow(a.vt, pq, p)
		kernels.DequantizeRow(a.vt, p, pq)
	}
	clear(dst)
	for _, sp := range w.spans {
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			a.continueValues(w, dst, p[sp.Pos+off:sp.Pos+off+m], sp.Cell+off, g)
		}
	}
}

// turboScores scores every cached key of KV head g against one query
// head: the query is rotated once (the keys are stored rotated) and each
// key row is dotted in place, without expanding it.
func (a *attendTask) turboScores(w *attnWorker, scores, q []float32, g int) {
	tt := a.kType.Turbo()
	turbo.RotateQuery(w.qrot, q)
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		for j := range sp.N {
			off := j*a.kRow + g*a.kHead
			scores[sp.Pos+j] = tt.DotKey(w.qrot, keys[off:off+a.kHead])
		}
	}
}

// turboValues sums p_j times the rotated value rows of KV head g into a
// rotated accumulator, in position order, and un-rotates it once into dst.
func (a *attendTask) turboValues(w *attnWorker, dst, p []float32, g int) {
	tt := a.vType.Turbo()
	acc := w.vacc
	clear(acc)
	for _, sp := range w.spans {
		values := a.c.ValueCells(a.layer, sp.Cell, sp.N)
		for j := range sp.N {
			off := j*a.vRow + g*a.vHead
			tt.AccumulateValue(acc, p[sp.Pos+j], values[off:off+a.vHead])
		}
	}
	turbo.UnrotateOutput(dst, acc)
}
