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
//     rounding) and dotted with the rotated query (RotateQuery) — with one
//     block per head, fused where FusedScores says so (ScoreRows4: four
//     query heads per pass over a key's blocks, no scratch rows; every type
//     on AVX-512, AVX2 and NEON); values summed in the rotated domain and
//     un-rotated once per head, with one block per head summed straight
//     from the blocks where FusedValues says so (AccumulateRows4, the same
//     bits as expanding).

// attnBlock is the most KV heads one worker attends together: it walks
// each chunk of cached rows once for all of them, reading their bytes of a
// row as one run. At long context the rows come from memory, and walking
// one head at a time read 52-128 bytes at a stride of a whole row per
// pass (a 16K turbo3_tcq context ran 30% slower per token over 16 layers
// than the same attention with its data in cache).
const attnBlock = 4

// groupScratch is one worker's scratch for one (token, block of up to
// attnBlock KV heads); slot b holds KV head g0+b's part.
type groupScratch struct {
	scores []float32 // attnBlock·quads(group)·nCtx: the scores, then probabilities, per head
	qconv  []byte    // attnBlock·group query heads in the key type's vec-dot format
	qrot   []float32 // attnBlock·quads(group)·kPad: rotated, padded query heads (turbo keys)
	krows  []float32 // attnChunk·kPad: expanded turbo key rows
	vrows  []float32 // (attnChunk+1)·vPad: a continuation slot, then expanded value rows
	acc    []float32 // attnBlock·quads(group)·vPad: per-head sums (turbo: rotated and padded)
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
	g4 := quads(group)
	return groupScratch{
		scores: make([]float32, attnBlock*g4*nCtx),
		qconv:  make([]byte, attnBlock*group*typeK.DType().VecDotType().RowBytes(headDim)),
		qrot:   make([]float32, attnBlock*g4*kPad), // whole fours of queries for ScoreRows4 (the padding stays 0)
		krows:  make([]float32, attnChunk*kPad),
		vrows:  make([]float32, (attnChunk+1)*vPad),
		acc:    make([]float32, attnBlock*g4*vPad),
		pc:     make([]float32, attnChunk+1),
	}
}

// quads rounds a group size up to whole fours of query heads, the unit of
// ScoreRows4, which reads the padding heads' (zero) queries and ignores
// their scores.
func quads(group int) int { return (group + 3) / 4 * 4 }

// headScores returns slot b's score rows: query head j of the group at
// [j*n, (j+1)*n).
func (a *attendTask) headScores(gs *groupScratch, b, n int) []float32 {
	g4 := quads(a.group)
	return gs.scores[b*g4*n : (b+1)*g4*n]
}

// kvGroups attends the query heads of KV heads [g0, g1) (at most attnBlock)
// of one token (q, out: all heads of it) over the n positions that
// w.spans lays out (the first n positions of the token's sequence, or a
// tree node's visible cells renumbered 0…n-1: visibleSpans). Each head's
// result is exactly what it would be alone: its chunks, sums and softmax
// run in the same order; only the walk over the rows is shared.
func (a *attendTask) kvGroups(w *attnWorker, out, q []float32, n, g0, g1 int) {
	if a.flash {
		a.flashGroups(w, out, q, n, g0, g1)
		return
	}
	gs := &w.group
	for g := g0; g < g1; g++ {
		a.prepareQueries(gs, q, g-g0, g)
	}
	kBytes, vBytes := (g1-g0)*a.kHead, (g1-g0)*a.vHead
	for _, sp := range w.spans {
		keys := a.c.KeyCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			prefetchNext(keys, off, sp.N, a.kRow, g0*a.kHead, kBytes)
			for g := g0; g < g1; g++ {
				a.scoreChunk(gs, a.headScores(gs, g-g0, n), g-g0, keys[off*a.kRow+g*a.kHead:], sp.Pos+off, m, n)
			}
		}
	}
	for g := g0; g < g1; g++ {
		heads := a.headScores(gs, g-g0, n)
		for j := range a.group {
			a.softmax(w, heads[j*n:(j+1)*n])
		}
	}
	acc := gs.acc[:(g1-g0)*quads(a.group)*a.vPad()]
	clear(acc)
	for _, sp := range w.spans {
		values := a.c.ValueCells(a.layer, sp.Cell, sp.N)
		for off := 0; off < sp.N; off += attnChunk {
			m := min(attnChunk, sp.N-off)
			prefetchNext(values, off, sp.N, a.vRow, g0*a.vHead, vBytes)
			for g := g0; g < g1; g++ {
				a.valueChunk(gs, a.headScores(gs, g-g0, n), g-g0, values[off*a.vRow+g*a.vHead:], sp.Pos+off, m, n)
			}
		}
	}
	for g := g0; g < g1; g++ {
		a.writeOutputs(gs, out, g-g0, g)
	}
}

// vPad is the width of a value head in the accumulators (turbo: padded).
func (a *attendTask) vPad() int {
	if a.vType.IsTurbo() {
		return turbo.PaddedLen(a.headDim)
	}
	return a.headDim
}

// prepareQueries puts KV head g's query heads into slot b: in the key
// type's vec-dot format, or rotated and padded for turbo keys.
func (a *attendTask) prepareQueries(gs *groupScratch, q []float32, b, g int) {
	hd := a.headDim
	if a.kType.IsTurbo() {
		kPad := turbo.PaddedLen(hd)
		qr := gs.qrot[b*quads(a.group)*kPad:]
		for j := range a.group {
			h := g*a.group + j
			turbo.RotateQuery(qr[j*kPad:(j+1)*kPad], q[h*hd:(h+1)*hd])
		}
		return
	}
	qb := a.kt.VecDotType().RowBytes(hd)
	qc := gs.qconv[b*a.group*qb:]
	for j := range a.group {
		h := g*a.group + j
		kernels.QuantizeRow(a.kt.VecDotType(), qc[j*qb:(j+1)*qb], q[h*hd:(h+1)*hd])
	}
}

// scoreChunk scores the m key rows of slot b's head at k (rows a.kRow
// apart), positions pos… of the sequence, against its query heads into
// heads[j*n+pos:]: the key type's dot; turbo keys fused from the blocks
// (ScoreRows4, where FusedScores says so, with one block per head) or
// expanded once into the chunk scratch.
func (a *attendTask) scoreChunk(gs *groupScratch, heads []float32, b int, k []byte, pos, m, n int) {
	hd := a.headDim
	if !a.kType.IsTurbo() {
		qb := a.kt.VecDotType().RowBytes(hd)
		qc := gs.qconv[b*a.group*qb:]
		for j := range a.group {
			kernels.AttnScores(a.kt, heads[j*n+pos:j*n+pos+m], k, a.kRow, qc[j*qb:(j+1)*qb], hd)
		}
		return
	}
	tt, kPad := a.kType.Turbo(), turbo.PaddedLen(hd)
	qr := gs.qrot[b*quads(a.group)*kPad:]
	if kPad == turbo.BlockSize && tt.FusedScores() {
		for j := 0; j < a.group; j += 4 {
			tt.ScoreRows4(heads[j*n+pos:], n, qr[j*kPad:(j+4)*kPad], min(4, a.group-j), k, a.kRow, m)
		}
		return
	}
	rows := gs.krows[:m*kPad]
	tt.ExpandRows(rows, k, a.kRow, m)
	for j := range a.group {
		kernels.AttnScores(kernels.F32, heads[j*n+pos:j*n+pos+m], f32Bytes(rows), 4*kPad, f32Bytes(qr[j*kPad:(j+1)*kPad]), kPad)
	}
}

// softmax turns one query head's scores into probabilities, rounded to
// the value type's vec-dot format for f16 and bf16 values (ggml's mul_mat
// converts them first).
func (a *attendTask) softmax(w *attnWorker, p []float32) {
	kernels.Scale(p, a.sh.Scale)
	kernels.SoftMax(p)
	if a.vt == kernels.F16 || a.vt == kernels.BF16 {
		pq := w.probs[:a.vt.RowBytes(len(p))]
		kernels.QuantizeRow(a.vt, pq, p)
		kernels.DequantizeRow(a.vt, p, pq)
	}
}

// fusedValueSums lets valueChunk take the fused turbo kernel where there
// is one; tests turn it off to hold the two paths to the same bits.
var fusedValueSums = true

// valueChunk adds the m value rows at v (positions pos…) times each query
// head's probabilities to slot b's sums: turbo values with one block per
// head fused from the blocks (AccumulateRows4, four query heads per call)
// where FusedValues says it is faster, the others expanded once into the
// chunk scratch. Both give the same bits (AccumulateRows4's contract).
func (a *attendTask) valueChunk(gs *groupScratch, heads []float32, b int, v []byte, pos, m, n int) {
	vPad := a.vPad()
	acc := gs.acc[b*quads(a.group)*vPad:]
	if a.vType.IsTurbo() && vPad == turbo.BlockSize && fusedValueSums && a.vType.Turbo().FusedValues() {
		tt := a.vType.Turbo()
		for j := 0; j < a.group; j += 4 {
			tt.AccumulateRows4(acc[j*vPad:], vPad, heads[j*n+pos:], n, min(4, a.group-j), v, a.vRow, m)
		}
		return
	}
	rows := gs.vrows[vPad : (m+1)*vPad]
	if a.vType.IsTurbo() {
		a.vType.Turbo().ExpandRows(rows, v, a.vRow, m)
	} else {
		kernels.DequantizeRows(a.vt, rows, v, a.vRow, vPad, m)
	}
	for j := range a.group {
		continueGroup(gs, acc[j*vPad:(j+1)*vPad], heads[j*n+pos:j*n+pos+m], m, vPad)
	}
}

// writeOutputs writes slot b's head outputs for KV head g (turbo:
// un-rotated).
func (a *attendTask) writeOutputs(gs *groupScratch, out []float32, b, g int) {
	hd, vPad := a.headDim, a.vPad()
	acc := gs.acc[b*quads(a.group)*vPad:]
	for j := range a.group {
		h := g*a.group + j
		if a.vType.IsTurbo() {
			turbo.UnrotateOutput(out[h*hd:(h+1)*hd], acc[j*vPad:(j+1)*vPad])
		} else {
			copy(out[h*hd:(h+1)*hd], acc[j*vPad:(j+1)*vPad])
		}
	}
}

// prefetchNext hints the memory of the rows in the chunk after the one at
// off (of a span of n rows, row bytes apart): bytes [start, start+size) of
// each, the heads being attended. At long context those rows come from
// memory, a stride of a whole row apart, and the hint overlaps their loads
// with this chunk's work.
func prefetchNext(cells []byte, off, n, row, start, size int) {
	next := off + attnChunk
	if next >= n {
		return
	}
	kernels.PrefetchRows(cells[next*row+start:], row, size, min(attnChunk, n-next))
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
