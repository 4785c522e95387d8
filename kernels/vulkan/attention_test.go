//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

// pagedCache is a test KV layout: nSeq sequences whose positions live in
// pages of pageSize cells, placed out of order so that attention must walk
// the page tables.
type pagedCache struct {
	nSeq, pageSize, maxPages int
	pages                    []uint32 // nSeq × maxPages physical page per logical page
}

func newPagedCache(nSeq, pageSize, maxPages int, rng *rand.Rand) pagedCache {
	perm := rng.Perm(nSeq * maxPages)
	c := pagedCache{nSeq: nSeq, pageSize: pageSize, maxPages: maxPages, pages: make([]uint32, nSeq*maxPages)}
	for i, p := range perm {
		c.pages[i] = uint32(p)
	}
	return c
}

func (c pagedCache) cell(seq, pos int) int {
	return int(c.pages[seq*c.maxPages+pos/c.pageSize])*c.pageSize + pos%c.pageSize
}

func (c pagedCache) cells() int { return c.nSeq * c.maxPages * c.pageSize }

// decode converts a stored row to float32 the way the CPU cache does.
func decodeRow(kt KVType, words []uint32, dst []float32) {
	for i := range dst {
		if kt == KVF32 {
			dst[i] = math.Float32frombits(words[i])
		} else {
			dst[i] = kernels.F16ToF32(uint16(words[i/2] >> (16 * (i % 2))))
		}
	}
}

// roundKV rounds v to the cache type as kvcache's encoder does.
func roundKV(kt KVType, v float32) float32 {
	if kt == KVF32 {
		return v
	}
	return kernels.F16ToF32(kernels.F32ToF16(v))
}

// TestKVWriteAndAttention stores a batch of tokens' keys and values into a
// paged cache (every earlier position of their sequences already filled),
// checks the stored rows and the dense copy against kvcache's encoding,
// then checks causal grouped-query attention of every token against a
// reference built on kernels.SoftMax, for f16 and f32 caches, head sizes
// that are not multiples of the work-group size and more keys than one
// chunk of the online softmax.
func TestKVWriteAndAttention(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(15, 16))
	for _, kt := range []KVType{KVF16, KVF32} {
		for _, sh := range []struct{ nHead, nHeadKV, headDim int }{{4, 2, 64}, {8, 8, 8}, {6, 2, 96}} {
			checkAttention(t, d, r, rng, kt, sh.nHead, sh.nHeadKV, sh.headDim)
		}
	}
}

func checkAttention(t *testing.T, d *Device, r *Recorder, rng *rand.Rand, kt KVType, nHead, nHeadKV, headDim int) {
	t.Helper()
	kvDim, qDim := nHeadKV*headDim, nHead*headDim
	pc := newPagedCache(3, 16, 12, rng)
	// Batch: sequence 0 continues at 150 (more keys than a work group),
	// sequence 2 at 0, sequence 1 gets two tokens at 40 and 41.
	seqs, poss := []int{0, 2, 1, 1}, []int{150, 0, 40, 41}
	n := len(seqs)
	rowWords := kvDim
	if kt == KVF16 {
		rowWords /= 2
	}
	// The cache before the batch: every earlier position filled.
	kc, vc := make([]uint32, pc.cells()*rowWords), make([]uint32, pc.cells()*rowWords)
	for i := range kc {
		if kt == KVF16 {
			kc[i] = uint32(kernels.F32ToF16(float32(rng.NormFloat64()))) | uint32(kernels.F32ToF16(float32(rng.NormFloat64())))<<16
			vc[i] = uint32(kernels.F32ToF16(float32(rng.NormFloat64()))) | uint32(kernels.F32ToF16(float32(rng.NormFloat64())))<<16
		} else {
			kc[i], vc[i] = math.Float32bits(float32(rng.NormFloat64())), math.Float32bits(float32(rng.NormFloat64()))
		}
	}
	src := kvDim + 2
	k, v, q := randFloats(rng, n*src, 1), randFloats(rng, n*src, 1), randFloats(rng, n*qDim, 1)
	tok := make([]uint32, 4*n)
	for i := range n {
		tok[4*i], tok[4*i+1], tok[4*i+2] = uint32(seqs[i]), uint32(poss[i]), uint32(pc.cell(seqs[i], poss[i]))
	}
	kb, vb, qb := buffer(t, d, r, k, 0), buffer(t, d, r, v, 0), buffer(t, d, r, q, 0)
	kcb, vcb := uintBuffer(t, d, r, kc), uintBuffer(t, d, r, vc)
	tb, pb := uintBuffer(t, d, r, tok), uintBuffer(t, d, r, pc.pages)
	const outOff = 4
	ob, attn := buffer(t, d, r, nil, outOff+2*n*rowWords), buffer(t, d, r, nil, n*qDim)
	shape := AttnShape{NTok: n, NHead: nHead, NHeadKV: nHeadKV, HeadDim: headDim, KVDim: kvDim,
		PageSize: pc.pageSize, MaxPages: pc.maxPages, Scale: float32(1 / math.Sqrt(float64(headDim))), QStride: qDim, OStride: qDim}
	run(t, r, func() {
		r.KVWrite(kt, kb.All(), vb.All(), src, tb.All(), n, kvDim, kcb.All(), vcb.All(), ob.All(), outOff)
		r.Barrier()
		r.Attention(kt, attn.All(), qb.All(), kcb.All(), vcb.All(), tb.All(), pb.All(), shape)
	})
	// The stored rows: cache cells and the dense copy.
	gotK, gotV := wordsOf(download(t, r, kcb, len(kc))), wordsOf(download(t, r, vcb, len(vc)))
	dense := wordsOf(download(t, r, ob, outOff+2*n*rowWords))
	row, want := make([]float32, kvDim), make([]float32, kvDim)
	for i := range n {
		c := pc.cell(seqs[i], poss[i])
		for _, st := range []struct {
			name        string
			words       []uint32
			src, stored []float32
		}{
			{"key", gotK[c*rowWords : (c+1)*rowWords], k[i*src : i*src+kvDim], nil},
			{"value", gotV[c*rowWords : (c+1)*rowWords], v[i*src : i*src+kvDim], nil},
			{"dense key", dense[outOff+i*rowWords : outOff+(i+1)*rowWords], k[i*src : i*src+kvDim], nil},
			{"dense value", dense[outOff+(n+i)*rowWords : outOff+(n+i+1)*rowWords], v[i*src : i*src+kvDim], nil},
		} {
			decodeRow(kt, st.words, row)
			for j, x := range st.src {
				want[j] = roundKV(kt, x)
			}
			checkNMSE(t, st.name+" row", row, want, 1e-12)
		}
	}
	// Attention against the reference over the updated cache.
	got := download(t, r, attn, n*qDim)
	ref := make([]float32, n*qDim)
	for i := range n {
		attendRef(ref[i*qDim:(i+1)*qDim], q[i*qDim:(i+1)*qDim], gotK, gotV, kt, pc, seqs[i], poss[i], nHead, nHeadKV, headDim, shape.Scale)
	}
	checkNMSE(t, "attention", got, ref, 1e-9)
	checkNMSE(t, "attention (brief tolerance)", got, ref, tolProduct)
}

func wordsOf(f []float32) []uint32 {
	w := make([]uint32, len(f))
	for i, v := range f {
		w[i] = math.Float32bits(v)
	}
	return w
}

// attendRef is exact two-pass attention of one token: float64 scores,
// kernels.SoftMax, float64 weighted sums of the values.
func attendRef(out, q []float32, kc, vc []uint32, kt KVType, pc pagedCache, seq, pos, nHead, nHeadKV, headDim int, scale float32) {
	kvDim := nHeadKV * headDim
	rowWords := kvDim
	if kt == KVF16 {
		rowWords /= 2
	}
	krow, vrow := make([]float32, kvDim), make([]float32, kvDim)
	p := make([]float32, pos+1)
	for h := range nHead {
		kh := h / (nHead / nHeadKV)
		qh := q[h*headDim : (h+1)*headDim]
		for j := range p {
			c := pc.cell(seq, j)
			decodeRow(kt, kc[c*rowWords:(c+1)*rowWords], krow)
			var s float64
			for e, x := range qh {
				s += float64(x) * float64(krow[kh*headDim+e])
			}
			p[j] = float32(s) * scale
		}
		kernels.SoftMax(p)
		acc := make([]float64, headDim)
		for j, w := range p {
			c := pc.cell(seq, j)
			decodeRow(kt, vc[c*rowWords:(c+1)*rowWords], vrow)
			for e := range acc {
				acc[e] += float64(w) * float64(vrow[kh*headDim+e])
			}
		}
		for e, s := range acc {
			out[h*headDim+e] = float32(s)
		}
	}
}
