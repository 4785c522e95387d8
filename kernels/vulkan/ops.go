//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"math"
	"strings"

	"github.com/waggle-llm/waggle/kernels"
)

// The ops record one dispatch (one per matrix part for products) into the
// recorder. Sizes are in elements; regions are bound whole, so they must
// start at an offset the device allows (buffers and arena placements do)
// and hold what the op reads or writes. Ops do not insert barriers: the
// caller records Barrier between an op and the ops that read its output.
// An op with a bad argument records nothing and makes Submit fail.

// Columns per work group of a product with more than one column; one
// column uses NC 1. The per-column arithmetic is the same in both.
const matmulCols = 8

// groupsFor spreads n work groups over x and y (common.glsl's flatGroup).
func groupsFor(n int) (uint32, uint32) {
	const maxX = 32768
	if n <= maxX {
		return uint32(n), 1
	}
	return maxX, uint32((n + maxX - 1) / maxX)
}

// groupFor is the number of threads of a reduction over n items: the
// device's work-group size, or the next power of two at or above n when
// that is smaller (a row of 8 chunks keeps 8 threads busy, and a work group
// takes 8 such rows). It depends only on the shape, never on the batch, so
// results stay batch invariant.
func (r *Recorder) groupFor(n int) int {
	g := 1
	for g < n && g < r.d.WorkGroup {
		g *= 2
	}
	return g
}

// kernel returns a cached pipeline, recording the error when it cannot be
// built.
func (r *Recorder) kernel(shader string, nBind int, spec Spec) *Kernel {
	k, err := r.d.Kernel(shader, nBind, spec)
	if err != nil {
		r.fail(err)
		return nil
	}
	return k
}

// typeName is the shader suffix of a weight type ("q4_k"), "" if none.
func typeName(t kernels.DType) string {
	switch t {
	case kernels.F32, kernels.F16, kernels.BF16, kernels.Q4_0, kernels.Q4_1, kernels.Q5_0, kernels.Q5_1, kernels.Q8_0,
		kernels.Q2_K, kernels.Q3_K, kernels.Q4_K, kernels.Q5_K, kernels.Q6_K:
		return strings.ToLower(t.String())
	}
	return ""
}

// Supports reports whether products and row gathers of weight type t run
// on the device.
func Supports(t kernels.DType) bool { return typeName(t) != "" }

// matmulShaders and getrowsShaders hold the shader names per type, built
// once so recording does not format strings.
var matmulShaders, getrowsShaders = shaderNames("matmul_"), shaderNames("getrows_")

func shaderNames(prefix string) map[kernels.DType]string {
	m := map[kernels.DType]string{}
	for t := kernels.DType(0); t < 64; t++ {
		if n := typeName(t); n != "" {
			m[t] = prefix + n
		}
	}
	return m
}

// MatMul records dst[c*dStride + r] = row r of w · column c of x for every
// row and ncols columns (column c of x starts at float c*xStride). Each
// row's dot product is accumulated in float32 from dequantized weights, by
// groupFor(chunks) threads per row.
func (r *Recorder) MatMul(dst Region, dStride int, w *Matrix, x Region, xStride, ncols int) {
	name, ok := matmulShaders[w.Type]
	if !ok {
		r.fail(fmt.Errorf("vulkan: no matmul shader for %s", w.Type))
		return
	}
	nc := uint32(matmulCols)
	if ncols == 1 {
		nc = 1
	}
	tpr := r.groupFor((w.Cols + 31) / 32)
	rpw := r.d.WorkGroup / tpr
	k := r.kernel(name, 3, Spec{uint32(r.d.WorkGroup), nc, uint32(tpr)})
	if k == nil {
		return
	}
	for _, p := range w.Parts {
		r.setPush(uint32(p.Rows), uint32(w.Cols), uint32(w.RowBytes), uint32(ncols), uint32(xStride), uint32(dStride), uint32(p.Row0))
		gx, gy := groupsFor((p.Rows + rpw - 1) / rpw)
		r.regions[0], r.regions[1], r.regions[2] = p.R, x, dst
		r.Dispatch(k, r.regions[:3], r.pushArgs, gx, gy, (uint32(ncols)+nc-1)/nc)
	}
}

// GetRows records dst row i = dequantized row idx[i] of w for i < n (dst
// rows dStride floats apart). w must be a single part.
func (r *Recorder) GetRows(dst Region, dStride int, w *Matrix, idx Region, n int) {
	name, ok := getrowsShaders[w.Type]
	if !ok || len(w.Parts) != 1 {
		r.fail(fmt.Errorf("vulkan: get_rows of %s in %d parts", w.Type, len(w.Parts)))
		return
	}
	k := r.kernel(name, 3, Spec{uint32(r.d.WorkGroup)})
	if k == nil {
		return
	}
	r.setPush(uint32(n), uint32(w.Cols), uint32(w.RowBytes), uint32(dStride))
	gx, gy := groupsFor(n)
	r.regions[0], r.regions[1], r.regions[2] = w.Parts[0].R, idx, dst
	r.Dispatch(k, r.regions[:3], r.pushArgs, gx, gy, 1)
}

// elementwise records a one-invocation-per-element shader over n elements.
func (r *Recorder) elementwise(shader string, n int, regions ...Region) {
	k := r.kernel(shader, len(regions), Spec{uint32(r.d.WorkGroup)})
	if k == nil {
		return
	}
	gx, gy := groupsFor((n + r.d.WorkGroup - 1) / r.d.WorkGroup)
	r.Dispatch(k, regions, r.pushArgs, gx, gy, 1)
}

// Add records dst[i] = a[i] + b[i % nb] for i < n (nb = n: a plain add;
// nb = a row width: a bias added to every row). dst may be a.
func (r *Recorder) Add(dst, a, b Region, n, nb int) {
	r.setPush(uint32(n), uint32(nb))
	r.regions[0], r.regions[1], r.regions[2] = a, b, dst
	r.elementwise("add", n, r.regions[:3]...)
}

// SwiGLU records dst[i] = silu(g[i]) * u[i] for i < n. dst may be g.
func (r *Recorder) SwiGLU(dst, g, u Region, n int) {
	r.setPush(uint32(n))
	r.regions[0], r.regions[1], r.regions[2] = g, u, dst
	r.elementwise("swiglu", n, r.regions[:3]...)
}

// RMSNorm records, for each of rows rows of width floats, dst = x /
// sqrt(mean(x²) + eps) * weight (weight has width values). dst may be x.
func (r *Recorder) RMSNorm(dst, x, weight Region, rows, width int, eps float32) {
	k := r.kernel("rmsnorm", 3, Spec{uint32(r.d.WorkGroup)})
	if k == nil {
		return
	}
	r.setPush(uint32(rows), uint32(width), math.Float32bits(eps))
	gx, gy := groupsFor(rows)
	r.regions[0], r.regions[1], r.regions[2] = x, weight, dst
	r.Dispatch(k, r.regions[:3], r.pushArgs, gx, gy, 1)
}

// Rope records the rotation of the first nRot values of each of nHead
// heads (headDim apart) of nTok rows (stride floats apart) of x, in place,
// with each token's cos/sin table (nRot floats per token, as
// kernels.RopeCache writes them) in cs. neox selects pairs (i, i+nRot/2)
// over (2i, 2i+1).
func (r *Recorder) Rope(x, cs Region, nTok, nHead, headDim, nRot, stride int, neox bool) {
	var nx uint32
	if neox {
		nx = 1
	}
	r.setPush(uint32(nTok), uint32(nHead), uint32(headDim), uint32(nRot), nx, uint32(stride))
	r.regions[0], r.regions[1] = x, cs
	r.elementwise("rope", nTok*nHead*nRot/2, r.regions[:2]...)
}

// Softmax records an in-place softmax of each of rows rows of width floats.
func (r *Recorder) Softmax(x Region, rows, width int) {
	k := r.kernel("softmax", 1, Spec{uint32(r.d.WorkGroup)})
	if k == nil {
		return
	}
	r.setPush(uint32(rows), uint32(width))
	gx, gy := groupsFor(rows)
	r.regions[0] = x
	r.Dispatch(k, r.regions[:1], r.pushArgs, gx, gy, 1)
}

var actQuantShaders = map[kernels.DType]string{
	kernels.Q8_0: "actquant_q8_0", kernels.Q8_1: "actquant_q8_0", kernels.Q8_K: "actquant_q8_k",
	kernels.F16: "actquant_f16", kernels.BF16: "actquant_bf16",
}

// ActQuant records dst = the rows of src rounded as kernels.QuantizeRow
// quantizes them to the vec-dot type t (q8_0, q8_1, q8_K, f16 or bf16) and
// dequantized again: n rows of cols values, packed. A product over dst
// equals the CPU's integer-block product up to float32 rounding. cols must
// be a multiple of t's block size.
func (r *Recorder) ActQuant(dst, src Region, n, cols int, t kernels.DType) {
	name, ok := actQuantShaders[t]
	if !ok || cols%t.BlockSize() != 0 {
		r.fail(fmt.Errorf("vulkan: no activation rounding to %s for rows of %d", t, cols))
		return
	}
	r.setPush(uint32(n), uint32(cols))
	r.regions[0], r.regions[1] = src, dst
	r.elementwise(name, n*cols/t.BlockSize(), r.regions[:2]...)
}

// KVType is an element type of the device KV cache.
type KVType int

const (
	KVF16 KVType = iota // IEEE half, two values per word
	KVF32               // float32
)

// RowBytes returns the bytes of a cache row of kvDim values.
func (t KVType) RowBytes(kvDim int) int {
	if t == KVF16 {
		return 2 * kvDim
	}
	return 4 * kvDim
}

var kvWriteShaders = [2]string{"kvwrite_f16", "kvwrite_f32"}
var attentionShaders = [2]string{"attention_f16", "attention_f32"}

// KVWrite records storing n tokens' keys k and values v (kvDim floats per
// token, srcStride apart) into the caches kc and vc at the cells tok holds
// (4 words per token: sequence, position, cell, unused), and the same
// encoded rows into out at word outOff: keys of token t at outOff +
// t*rowWords, values at outOff + (n+t)*rowWords.
func (r *Recorder) KVWrite(t KVType, k, v Region, srcStride int, tok Region, n, kvDim int, kc, vc, out Region, outOff int) {
	if kvDim%2 != 0 {
		r.fail(fmt.Errorf("vulkan: KV rows of %d values (must be even)", kvDim))
		return
	}
	r.setPush(uint32(n), uint32(kvDim), uint32(srcStride), uint32(outOff))
	words := kvDim
	if t == KVF16 {
		words /= 2
	}
	r.regions[0], r.regions[1], r.regions[2], r.regions[3], r.regions[4], r.regions[5] = k, v, tok, kc, vc, out
	r.elementwise(kvWriteShaders[t], n*words, r.regions[:6]...)
}

// AttnShape describes an attention dispatch.
type AttnShape struct {
	NTok, NHead, NHeadKV, HeadDim int
	KVDim                         int // values per cache row (NHeadKV*HeadDim)
	PageSize, MaxPages            int // the cache's page geometry
	Scale                         float32
	QStride, OStride              int // floats between tokens' q and output rows
}

// Attention records causal attention of NTok tokens (q rows; sequence and
// position per token in tok) over the caches kc, vc through the page
// tables in pages (MaxPages cells-page indices per sequence), writing o.
func (r *Recorder) Attention(t KVType, o, q, kc, vc, tok, pages Region, s AttnShape) {
	if s.HeadDim%2 != 0 || s.NHeadKV == 0 || s.NHead%s.NHeadKV != 0 {
		r.fail(fmt.Errorf("vulkan: attention shape %+v", s))
		return
	}
	k := r.kernel(attentionShaders[t], 6, Spec{uint32(r.d.WorkGroup), uint32(s.HeadDim)})
	if k == nil {
		return
	}
	r.setPush(uint32(s.NTok), uint32(s.NHead), uint32(s.NHeadKV), uint32(s.KVDim), uint32(s.PageSize), uint32(s.MaxPages),
		math.Float32bits(s.Scale), uint32(s.QStride), uint32(s.OStride))
	r.regions[0], r.regions[1], r.regions[2], r.regions[3], r.regions[4], r.regions[5] = q, kc, vc, tok, pages, o
	r.Dispatch(k, r.regions[:6], r.pushArgs, uint32(s.NHead), uint32(s.NTok), 1)
}

// setPush fills the push-constant words of the next dispatch.
func (r *Recorder) setPush(v ...uint32) {
	r.pushArgs = r.pushBuf[:copy(r.pushBuf[:], v)]
}
