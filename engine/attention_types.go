package engine

import (
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/kvcache/turbo"
)

// Attention runs one KV head at a time with all of its query heads
// (grouped-query attention), walking the cached positions in chunks of
// attnChunk rows, so each stored row is read from memory (and, for the
// quantized and turbo types, expanded) once per token and reused from L1
// by every query head of the group. Per (query head, key) the score is one
// kernels.AttnScores call on that key, and per output element the value
// sum runs in position order and continues across chunks exactly
// (continueGroup), so the result depends neither on the chunking, nor on
// the batch, nor on where the pages are.
//
//   - f32 and f16: llama.cpp's attention without flash attention, bit for
//     bit: the query in the key type's vec-dot format (f16 for an f16
//     cache), scores by the type's dot, the probabilities rounded to the
//     value type, and Σ p·V with each product rounded to float32 (the
//     f16 rows are expanded exactly to float32; p·v of two f16 values is
//     exact, so this equals ggml's fused f16 accumulation).
//   - bf16 and the block types: scores by the type's integer dot against
//     the query in its vec-dot format, values expanded to float32 and
//     summed with float32 probabilities (bf16: rounded to bf16 first) —
//     what llama.cpp computes with flash attention, which it requires for
//     a quantized V cache, up to summation order.
//   - turbo types: keys expanded in the rotated domain (level·N, one
//     rounding) and dotted with the rotated query (RotateQuery) — for the
//     TCQ types with one block per head on AVX-512, fused (ScoreRows4:
//     four query heads per pass over a key's blocks, no scratch rows);
//     values summed in the rotated domain and un-rotated once per head.

// groupScratch is one worker's scratch for one (token, KV head).
type groupScratch struct {
	scores []float32 // group·nCtx: the scores, then probabilities, of each query head
	qconv  []byte    // group query heads in the key type's vec-dot format
	qrot   []float32 // group·kPad: rotated, padded query heads (turbo keys)
	krows  []float32 // attnChunk·kPad: expanded turbo key rows
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
		qconv:  make([]byte, group*typeK.DType().VecDotType().RowBytes(headDim)),
		qrot:   make([]float32, (group+3)/4*4*kPad), // whole fours of queries for ScoreRows4 (the padding stays 0)
		krows:  make([]float32, attnChunk*kPad),
		vrows:  make([]float32, (attnChunk+1)*vPad),
		acc:    make([]float32, group*vPad),
		pc:     make([]float32, attnChunk+1),
	}
}

// kvGroup attends the query heads of KV head g of one token (q, out: all
// heads of it) over the first n positions of seq.
func (a *attendTask) kvGroup(w *attnWorker, out, q []float32, seq, n, g int) {
	w.spans = a.c.Spans(seq, n, w.spans)
	heads := w.group.scores[:a.group*n]
	if a.kType.IsTurbo() {
		a.turboGroupScores(w, heads, q, n, g)
	} else {
		a.groupScores(w, heads, q, n, g)
	}
	for j := range a.group {
		p := heads[j*n : (j+1)*n]
		kernels.Scale(p, a.sh.Scale)
		kernels.SoftMax(p)
		if a.vt == kernels.F16 || a.vt == kernels.BF16 {
			// ggml's mul_mat converts the probabilities to the value
			// type's vec-dot format (f16, bf16) first.
			pq := w.probs[:a.vt.RowBytes(n)]
			kernels.QuantizeRow(a.vt, pq, p)
			kernels.DequantizeRow(a.vt, p, pq)
		}
	}
	a.groupValues(w, out, heads, n, g)
}

// groupScores scores every cached key of KV head g against the group's
// query heads with the key type's dot, a chunk of keys at a time.
func (a *attendTask) groupScores(w *attnWorker, heads, q []float32, n, g int) {
	hd, gs := a.headDim, &w.group
	qb := a.kt.VecDotType().RowBytes(hd)
	for j := range a.group {
		h := g*a.group + j
		kernels.QuantizeRow(a.kt.VecDotType(), gs.qconv[j*qb:(j+1)*qb], q[h*hd:(h+1)*hd])
	}
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			prefetchNext(keys, off, sp.N, a.kRow, a.kHead, g)
			k := keys[off*a.kRow+g*a.kHead:]
			for j := range a.group {
				dst := heads[j*n+sp.Pos+off : j*n+sp.Pos+off+m]
				kernels.AttnScores(a.kt, dst, k, a.kRow, gs.qconv[j*qb:(j+1)*qb], hd)
			}
		}
	}
}

// turboGroupScores scores every cached key of KV head g against the
// group's rotated query heads: fused from the blocks, four query heads at a
// time, where the type has a fused kernel (TCQ on AVX-512, one block per
// head), else expanding each key once into the chunk scratch.
func (a *attendTask) turboGroupScores(w *attnWorker, heads, q []float32, n, g int) {
	hd, gs, tt := a.headDim, &w.group, a.kType.Turbo()
	kPad := turbo.PaddedLen(hd)
	for j := range a.group {
		h := g*a.group + j
		turbo.RotateQuery(gs.qrot[j*kPad:(j+1)*kPad], q[h*hd:(h+1)*hd])
	}
	fused := kPad == turbo.BlockSize && tt.FusedScores()
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			prefetchNext(keys, off, sp.N, a.kRow, a.kHead, g)
			k := keys[off*a.kRow+g*a.kHead:]
			if fused {
				for j := 0; j < a.group; j += 4 {
					tt.ScoreRows4(heads[j*n+sp.Pos+off:], n, gs.qrot[j*kPad:(j+4)*kPad], min(4, a.group-j), k, a.kRow, m)
				}
				continue
			}
			rows := gs.krows[:m*kPad]
			tt.ExpandRows(rows, k, a.kRow, m)
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
			prefetchNext(values, off, sp.N, a.vRow, a.vHead, g)
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
// span, as float32 into rows (vPad each; turbo rows rotated; f16 and bf16
// exactly).
func (a *attendTask) expandValues(rows []float32, values []byte, off, m, g, vPad int) {
	if a.vType.IsTurbo() {
		a.vType.Turbo().ExpandRows(rows[:m*vPad], values[off*a.vRow+g*a.vHead:], a.vRow, m)
		return
	}
	kernels.DequantizeRows(a.vt, rows[:m*vPad], values[off*a.vRow+g*a.vHead:], a.vRow, vPad, m)
}

// prefetchNext hints the memory of KV head g's rows in the chunk after the
// one at off (of a span of n rows, row bytes apart, head bytes per head):
// at long context those rows come from memory, a stride of a whole row
// apart, and the hint overlaps their loads with this chunk's work.
func prefetchNext(cells []byte, off, n, row, head, g int) {
	next := off + attnChunk
	if next >= n {
		return
	}
	kernels.PrefetchRows(cells[next*row+g*head:], row, head, min(attnChunk, n-next))
}

// continueGroup adds Σ_r p_r·row_r over the m expanded rows behind the
// continuation slot of gs.vrows to dst, exactly continuing an ordered
// float32 sum: it puts dst in the slot with weight 1 and runs the F32
// kernel, whose sum starts 0 + float32(1·dst[d]) = dst[d] and then adds
// the same rounded products in the same order. The one x for which 0 + x
// is not x is -0, and a running sum that starts at +0 is never -0 in
// round-to-nearest (a sum is -0 only when both terms are), so the slot
// reproduces dst.
func continueGroup(gs *groupScratch, dst, p []float32, m, vPad int) {
	copy(gs.vrows[:vPad], dst)
	pc := gs.pc[:m+1]
	pc[0] = 1
	copy(pc[1:], p)
	kernels.AttnValues(kernels.F32, dst, pc, f32Bytes(gs.vrows[:(m+1)*vPad]), 4*vPad)
}
