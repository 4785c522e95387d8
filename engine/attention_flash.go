package engine

import (
	"math"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// The flash path: attention with an online softmax (llama.cpp's
// --flash-attn), chosen per session. It walks the cached positions in
// chunks of attnChunk positions; per chunk it scores the chunk's keys
// (scoreChunk, every key type), takes one kernels.OnlineSoftMax step per
// query head (the new running maximum, the chunk's exponentials and the
// factor by which the earlier chunks rescale), scales the head's
// accumulator by that factor when the maximum moved, and adds the chunk's
// p·V (valueChunk). At the end each accumulator is divided by its running
// sum. A chunk's keys and values are read together, and the scores take
// one chunk per head instead of the whole context.
//
// Chunks start at fixed multiples of attnChunk positions, whatever the
// pages: a chunk that crosses a span is scored and summed piece by piece,
// and both the scores (one per key) and the value sums (continueGroup
// continues an ordered sum exactly) are the same bits whatever the
// pieces. The result therefore depends neither on the page layout, nor on
// the batch, nor on the thread count, as for the exact path.
//
// It is not bit-identical to the exact two-pass path: each rescale is one
// more rounding, the probabilities stay float32 (not rounded to f16/bf16
// values as ggml's mul_mat does), and the division comes last. The
// difference is a few float32 ulps of the output for f32/turbo caches and
// the f16 rounding of the probabilities for f16/bf16 ones (see
// attention_flash_test.go for the bounds).
//
// Speed: one decode-step Attend of the 1B shape (32 query heads of 64
// over 8 KV heads), thread CPU time interleaved with the exact path, is
// within ±3% of it for f16, q8_0 and turbo3_tcq at 512, 4096 and 16384
// positions: both read each row once per token, and the score buffer the
// flash path saves is attnBlock·quads(group) floats per position per
// worker (64 bytes for the 1B shape).

// flashState is one worker's running maxima and sums, one per query head
// of a block of attnBlock KV heads (whole fours, as the accumulators).
type flashState struct {
	max []float32
	sum []float64
}

// NewFlashAttentionScratch sizes scratch for the flash path: per worker one
// chunk of scores per query head instead of a whole context's, so unlike
// NewAttentionScratch it does not depend on the context length.
func NewFlashAttentionScratch(headDim, group int, typeK, typeV kvcache.Type, workers int) *AttentionScratch {
	s := &AttentionScratch{workers: make([]attnWorker, max(workers, 1)), flash: true}
	for i := range s.workers {
		heads := attnBlock * quads(group)
		s.workers[i] = attnWorker{
			group: newGroupScratch(attnChunk, headDim, group, typeK, typeV),
			flash: flashState{max: make([]float32, heads), sum: make([]float64, heads)},
		}
	}
	return s
}

// NewSessionAttentionScratch sizes a session's attention scratch from its
// options: the flash path when o.FlashAttn is set, else the exact one for
// o.NCtx positions.
func NewSessionAttentionScratch(o SessionOptions, headDim, group, workers int) *AttentionScratch {
	if o.FlashAttn {
		return NewFlashAttentionScratch(headDim, group, o.TypeK, o.TypeV, workers)
	}
	return NewAttentionScratch(o.NCtx, headDim, group, o.TypeK, o.TypeV, workers)
}

// Flash reports whether the scratch runs the flash path.
func (s *AttentionScratch) Flash() bool { return s.flash }

// flashGroups is kvGroups on the flash path: the query heads of KV heads
// [g0, g1) of one token over the n positions w.spans lays out.
func (a *attendTask) flashGroups(w *attnWorker, out, q []float32, n, g0, g1 int) {
	gs, fs := &w.group, &w.flash
	for g := g0; g < g1; g++ {
		a.prepareQueries(gs, q, g-g0, g)
	}
	heads, vPad := (g1-g0)*quads(a.group), a.vPad()
	clear(gs.acc[:heads*vPad])
	clear(fs.sum[:heads])
	for h := range heads {
		fs.max[h] = float32(math.Inf(-1))
	}
	first := 0 // the first span that reaches the current chunk
	for c0 := 0; c0 < n; c0 += attnChunk {
		c1 := min(c0+attnChunk, n)
		a.flashScores(gs, w.spans[first:], c0, c1, g0, g1)
		a.flashSoftmax(gs, fs, c1-c0, g1-g0)
		a.flashValues(gs, w.spans[first:], c0, c1, g0, g1)
		for first < len(w.spans) && w.spans[first].Pos+w.spans[first].N <= c1 {
			first++
		}
	}
	for g := g0; g < g1; g++ {
		a.flashFinish(gs, fs, g-g0)
		a.writeOutputs(gs, out, g-g0, g)
	}
}

// flashScores scores positions [c0, c1) of KV heads [g0, g1) into the
// chunk scores (query head j of slot b at [j*attnChunk, …)), one piece per
// span the chunk overlaps; spans starts at the first span reaching c0.
// The rows of the next chunk that lie in the same span are prefetched
// (prefetchNext counts from c0, which may lie before the span's piece).
func (a *attendTask) flashScores(gs *groupScratch, spans []kvcache.Span, c0, c1, g0, g1 int) {
	for _, sp := range spans {
		if sp.Pos >= c1 {
			break
		}
		lo, hi := max(sp.Pos, c0), min(sp.Pos+sp.N, c1)
		keys := a.c.KeyCells(a.layer, sp.Cell+lo-sp.Pos, sp.Pos+sp.N-lo)
		prefetchNext(keys, c0-lo, sp.Pos+sp.N-lo, a.kRow, g0*a.kHead, (g1-g0)*a.kHead)
		for g := g0; g < g1; g++ {
			a.scoreChunk(gs, a.headScores(gs, g-g0, attnChunk), g-g0, keys[g*a.kHead:], lo-c0, hi-lo, attnChunk)
		}
	}
}

// flashValues adds positions [c0, c1)'s values times the chunk's
// probabilities to the accumulators of KV heads [g0, g1), piece by piece
// as flashScores.
func (a *attendTask) flashValues(gs *groupScratch, spans []kvcache.Span, c0, c1, g0, g1 int) {
	for _, sp := range spans {
		if sp.Pos >= c1 {
			break
		}
		lo, hi := max(sp.Pos, c0), min(sp.Pos+sp.N, c1)
		values := a.c.ValueCells(a.layer, sp.Cell+lo-sp.Pos, sp.Pos+sp.N-lo)
		prefetchNext(values, c0-lo, sp.Pos+sp.N-lo, a.vRow, g0*a.vHead, (g1-g0)*a.vHead)
		for g := g0; g < g1; g++ {
			a.valueChunk(gs, a.headScores(gs, g-g0, attnChunk), g-g0, values[g*a.vHead:], lo-c0, hi-lo, attnChunk)
		}
	}
}

// flashSoftmax takes one online-softmax step over the m scores of the
// chunk for every query head of slots [0, blocks): the running maximum and
// sum move, and an accumulator whose maximum moved is rescaled before the
// chunk's values are added.
func (a *attendTask) flashSoftmax(gs *groupScratch, fs *flashState, m, blocks int) {
	g4, vPad := quads(a.group), a.vPad()
	for b := range blocks {
		sc := a.headScores(gs, b, attnChunk)
		for j := range a.group {
			h := b*g4 + j
			sum, r := kernels.OnlineSoftMax(sc[j*attnChunk:j*attnChunk+m], a.sh.Scale, &fs.max[h])
			if r != 1 && fs.sum[h] != 0 {
				kernels.Scale(gs.acc[h*vPad:(h+1)*vPad], r)
			}
			fs.sum[h] = fs.sum[h]*float64(r) + sum
		}
	}
}

// flashFinish divides slot b's accumulators by their running sums (as
// SoftMax multiplies by float32(1/sum)).
func (a *attendTask) flashFinish(gs *groupScratch, fs *flashState, b int) {
	g4, vPad := quads(a.group), a.vPad()
	for j := range a.group {
		h := b*g4 + j
		kernels.Scale(gs.acc[h*vPad:(h+1)*vPad], float32(1/fs.sum[h]))
	}
}
