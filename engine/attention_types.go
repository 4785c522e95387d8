package engine

import (
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/kvcache/turbo"
)

// Attention over the bf16, block-quantized and turbo cache types (see
// kvcache.Type). The f32 and f16 paths in attention.go are llama.cpp's
// without flash attention, bit for bit, one query head at a time. These
// types are what llama.cpp computes with flash attention (a quantized V
// cache requires it there) up to float summation order, and they run one
// KV head at a time with all its query heads (grouped-query attention), so
// every cached row is expanded once per token instead of once per query
// head:
//
//   - block-quantized keys are scored per query head with the type's
//     integer vec-dot against the query in its vec-dot format (cheap: no
//     expansion);
//   - turbo keys are expanded to float32 in the rotated domain (level·N,
//     one rounding) attnChunk rows at a time and scored with the float32
//     dot against each head's rotated query;
//   - values are expanded attnChunk rows at a time (turbo: rotated) and
//     summed, per head, with the float32 probabilities in position order,
//     continuing across chunks exactly (continueGroup); a turbo head's sum
//     is un-rotated once at the end; bf16 probabilities are first rounded
//     to bf16 as ggml does.
//
// Each score depends on its key only and each sum runs in position order,
// so results do not depend on the batch or on where the pages are.

// groupedTypes reports whether a cache of these types runs grouped.
func groupedTypes(k, v kvcache.Type) bool {
	vt := v.DType()
	return k.IsTurbo() || v.IsTurbo() || (vt != kernels.F32 && vt != kernels.F16)
}

// groupScratch is one worker's extra scratch for grouped attention.
type groupScratch struct {
	scores []float32 // group·nCtx: the scores, then probabilities, of each query head
	qrot   []float32 // group·kPad: rotated, padded query heads (turbo keys)
	krows  []float32 // attnChunk·kPad: expanded key rows
	vrows  []float32 // (attnChunk+1)·vPad: a continuation slot, then expanded value rows
	acc    []float32 // group·vPad: per-head sums (turbo: rotated and padded)
	pc     []float32 // attnChunk+1 weights
}

func newGroupScratch(nCtx, headDim, group int, typeK, typeV kvcache.Type) groupScratch {
	kPad, vPad := headDim, headDim
	if typeK.IsTurbo() {
		kPad = turbo.PaddedLen(headDim)
	}
	if typeV.IsTurbo() {
		vPad = turbo.PaddedLen(headDim)
	}
	return groupScratch{
		scores: make([]float32, group*nCtx),
		qrot:   make([]float32, group*kPad),
		krows:  make([]float32, attnChunk*kPad),
		vrows:  make([]float32, (attnChunk+1)*vPad),
		acc:    make([]float32, group*vPad),
		pc:     make([]float32, attnChunk+1),
	}
}

// kvGroup attends the query heads of KV head g of one token (q, out: all
// heads of it) over the first n positions of seq.
func (a *attendTask) kvGroup(w *attnWorker, out, q []float32, seq, n, g int) {
	hd, gs := a.headDim, &w.group
	w.spans = a.c.Spans(seq, n, w.spans)
	heads := gs.scores[:a.group*n]
	if a.kType.IsTurbo() {
		a.turboGroupScores(w, heads, q, n, g)
	} else {
		for j := range a.group {
			h := g*a.group + j
			kernels.QuantizeRow(a.kt.VecDotType(), w.qconv, q[h*hd:(h+1)*hd])
			for _, sp := range w.spans {
				keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
				kernels.AttnScores(a.kt, heads[j*n+sp.Pos:j*n+sp.Pos+sp.N], keys[g*a.kHead:], a.kRow, w.qconv, hd)
			}
		}
	}
	for j := range a.group {
		p := heads[j*n : (j+1)*n]
		kernels.Scale(p, a.sh.Scale)
		kernels.SoftMax(p)
		if a.vt == kernels.BF16 {
			pq := w.probs[:a.vt.RowBytes(n)]
			kernels.QuantizeRow(a.vt, pq, p)
			kernels.DequantizeRow(a.vt, p, pq)
		}
	}
	if !groupedTypes(kvcache.F32, a.vType) {
		for j := range a.group { // f32/f16 values: the exact ggml path per head
			h := g*a.group + j
			a.weightedValues(w, out[h*hd:(h+1)*hd], heads[j*n:(j+1)*n], g)
		}
		return
	}
	a.groupValues(w, out, heads, n, g)
}

// turboGroupScores scores every cached key of KV head g against the
// group's rotated query heads, expanding each key once.
func (a *attendTask) turboGroupScores(w *attnWorker, heads, q []float32, n, g int) {
	hd, gs, tt := a.headDim, &w.group, a.kType.Turbo()
	kPad := turbo.PaddedLen(hd)
	for j := range a.group {
		h := g*a.group + j
		turbo.RotateQuery(gs.qrot[j*kPad:(j+1)*kPad], q[h*hd:(h+1)*hd])
	}
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			rows := gs.krows[:m*kPad]
			clear(rows)
			for r := range m {
				at := (off+r)*a.kRow + g*a.kHead
				tt.AccumulateValue(rows[r*kPad:(r+1)*kPad], 1, keys[at:at+a.kHead])
			}
			for j := range a.group {
				dst := heads[j*n+sp.Pos+off : j*n+sp.Pos+off+m]
				kernels.AttnScores(kernels.F32, dst, f32Bytes(rows), 4*kPad, f32Bytes(gs.qrot[j*kPad:(j+1)*kPad]), kPad)
			}
		}
	}
}

// groupValues sums the probabilities of the group's heads times the value
// rows of KV head g, expanding each row once, and writes the heads' outputs
// (turbo: un-rotated).
func (a *attendTask) groupValues(w *attnWorker, out, heads []float32, n, g int) {
	hd, gs := a.headDim, &w.group
	vPad := hd
	if a.vType.IsTurbo() {
		vPad = turbo.PaddedLen(hd)
	}
	acc := gs.acc[:a.group*vPad]
	clear(acc)
	for _, sp := range w.spans {
		values := a.c.ValueCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			a.expandValues(gs.vrows[vPad:(m+1)*vPad], values, off, m, g, vPad)
			for j := range a.group {
				p := heads[j*n+sp.Pos+off : j*n+sp.Pos+off+m]
				continueGroup(gs, acc[j*vPad:(j+1)*vPad], p, m, vPad)
			}
		}
	}
	for j := range a.group {
		h := g*a.group + j
		if a.vType.IsTurbo() {
			turbo.UnrotateOutput(out[h*hd:(h+1)*hd], acc[j*vPad:(j+1)*vPad])
		} else {
			copy(out[h*hd:(h+1)*hd], acc[j*vPad:(j+1)*vPad])
		}
	}
}

// expandValues writes m value rows of KV head g, from position off of a
// span, as float32 into rows (vPad each; turbo rows rotated).
func (a *attendTask) expandValues(rows []float32, values []byte, off, m, g, vPad int) {
	if a.vType.IsTurbo() {
		tt := a.vType.Turbo()
		clear(rows)
		for r := range m {
			at := (off+r)*a.vRow + g*a.vHead
			tt.AccumulateValue(rows[r*vPad:(r+1)*vPad], 1, values[at:at+a.vHead])
		}
		return
	}
	kernels.DequantizeRows(a.vt, rows[:m*vPad], values[off*a.vRow+g*a.vHead:], a.vRow, vPad, m)
}

// continueGroup adds Σ_r p_r·row_r over the m expanded rows behind the
// continuation slot of gs.vrows to dst, exactly continuing an ordered
// float32 sum (see continueValues for why the slot trick is exact).
func continueGroup(gs *groupScratch, dst, p []float32, m, vPad int) {
	copy(gs.vrows[:vPad], dst)
	pc := gs.pc[:m+1]
	pc[0] = 1
	copy(pc[1:], p)
	kernels.AttnValues(kernels.F32, dst, pc, f32Bytes(gs.vrows[:(m+1)*vPad]), 4*vPad)
}
