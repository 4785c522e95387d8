package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/kvcache"
)

// TestAttendTypesMatchDecodedReference: for every cache type, Attend's
// output is a float64 softmax attention over the keys and values as the
// type stores them (kvcache.Type.DecodeRow, which un-rotates turbo rows),
// within a bound set by what the path rounds on top: nothing but float32
// sums for f32 and the turbo types (whose query is rotated and output
// un-rotated instead of the rows), the query's q8 conversion for the block
// types, and the probabilities' f16/bf16 rounding. A wrong head offset,
// a missing rotation or a wrong scale breaks it by orders of magnitude.
func TestAttendTypesMatchDecodedReference(t *testing.T) {
	const n = 90
	for _, typ := range typesUnderTest() {
		for _, hd := range []int{64, 128} {
			t.Run(fmt.Sprintf("%v/hd%d", typ, hd), func(t *testing.T) {
				sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: hd, Scale: float32(1 / math.Sqrt(float64(hd)))}
				c, q := attnFixture(t, typ, sh, n)
				d := sh.NHead * hd
				out := make([]float32, d)
				Attend(out, q[:d], c, 0, 0, n, sh, NewAttentionScratch(n, hd, sh.NHead/sh.NHeadKV, typ, typ, 1))
				want := decodedAttention(c, q[:d], n, sh)
				var num, den float64
				for i := range out {
					e := float64(out[i]) - want[i]
					num, den = num+e*e, den+want[i]*want[i]
				}
				rel := math.Sqrt(num / den)
				t.Logf("relative error %.3g", rel)
				if bound := attnTypeBound(typ); rel > bound {
					t.Fatalf("relative error %.3g over the decoded reference (bound %.3g)", rel, bound)
				}
			})
		}
	}
}

func typesUnderTest() []kvcache.Type {
	var ts []kvcache.Type
	for _, name := range kvcache.TypeNames() {
		typ, _ := kvcache.ParseType(name)
		ts = append(ts, typ)
	}
	return ts
}

// attnTypeBound is the relative RMS error allowed against the decoded
// reference (see TestAttendTypesMatchDecodedReference).
func attnTypeBound(typ kvcache.Type) float64 {
	switch {
	case typ == kvcache.F32 || typ.IsTurbo(): // measured ~3e-7
		return 2e-6
	case typ == kvcache.F16: // ~3e-4
		return 1e-3
	case typ == kvcache.BF16: // ~2.5e-3
		return 5e-3
	default: // q8 query against quantized keys: ~4e-3 to 6e-3
		return 1.5e-2
	}
}

// decodedAttention computes, in float64, softmax attention of one token's
// heads over the first n positions with keys and values decoded from the
// cache.
func decodedAttention(c *kvcache.Cache, q []float32, n int, sh AttentionShape) []float64 {
	o := c.Options()
	hd, nkv := sh.HeadDim, sh.NHeadKV*sh.HeadDim
	ks, vs := make([][]float32, n), make([][]float32, n)
	for p := range n {
		ks[p], vs[p] = make([]float32, nkv), make([]float32, nkv)
		o.TypeK.DecodeRow(ks[p], c.KeyRow(0, 0, p), sh.NHeadKV, hd)
		o.TypeV.DecodeRow(vs[p], c.ValueRow(0, 0, p), sh.NHeadKV, hd)
	}
	out := make([]float64, sh.NHead*hd)
	s := make([]float64, n)
	for h := range sh.NHead {
		g := h / (sh.NHead / sh.NHeadKV)
		m := math.Inf(-1)
		for p := range n {
			dot := 0.0
			for i := range hd {
				dot += float64(q[h*hd+i]) * float64(ks[p][g*hd+i])
			}
			s[p] = dot * float64(sh.Scale)
			m = math.Max(m, s[p])
		}
		sum := 0.0
		for p := range s {
			s[p] = math.Exp(s[p] - m)
			sum += s[p]
		}
		for p := range n {
			for i := range hd {
				out[h*hd+i] += s[p] / sum * float64(vs[p][g*hd+i])
			}
		}
	}
	return out
}

// TestAttendGroupedNoAlloc: warm grouped attention (turbo keys and values,
// block-quantized values) over scattered pages allocates nothing.
func TestAttendGroupedNoAlloc(t *testing.T) {
	sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: 64, Scale: 0.125}
	for _, typ := range []kvcache.Type{kvcache.Turbo3TCQ, kvcache.Q4_0, kvcache.BF16} {
		c, q := attnFixture(t, typ, sh, 100)
		sc := scatteredCopy(t, c, 100, 7)
		s := NewAttentionScratch(100, 64, 2, typ, typ, 1)
		out := make([]float32, 4*64)
		if a := testing.AllocsPerRun(10, func() { Attend(out, q[:4*64], sc, 0, 0, 100, sh, s) }); a != 0 {
			t.Errorf("%v: %v allocations", typ, a)
		}
	}
}

// BenchmarkAttendTypes times one decode-step Attend of the 1B shape (32
// query heads of 64 over 8 KV heads) over 4096 positions per cache type.
func BenchmarkAttendTypes(b *testing.B) {
	const n, hd = 4096, 64
	sh := AttentionShape{NHead: 32, NHeadKV: 8, HeadDim: hd, Scale: 0.125}
	for _, typ := range []kvcache.Type{kvcache.F16, kvcache.Q8_0, kvcache.Q4_0, kvcache.Turbo3, kvcache.Turbo3TCQ} {
		c, q := attnFixture(b, typ, sh, n)
		s := NewAttentionScratch(n, hd, 4, typ, typ, 1)
		out := make([]float32, sh.NHead*hd)
		b.Run(typ.String(), func(b *testing.B) {
			for b.Loop() {
				Attend(out, q[:sh.NHead*hd], c, 0, 0, n, sh, s)
			}
		})
	}
}

// TestAttendFusedValuesSameBits: turbo values summed straight from the
// blocks (AccumulateRows4) give exactly the bits of expanding the rows and
// summing with the float32 kernel, for every turbo type, groups of 1 to 6 query heads
// (whole and partial fours), head dims padded to one block, several
// chunks, and scattered pages.
func TestAttendFusedValuesSameBits(t *testing.T) {
	const n = 150
	for _, typ := range typesUnderTest() {
		if !typ.IsTurbo() {
			continue
		}
		if !typ.Turbo().FusedValues() {
			t.Logf("%v: no fused value kernel at this kernel level; the paths are the same code", typ)
		}
		for _, shape := range [][2]int{{4, 2}, {6, 1}, {3, 3}, {8, 2}} {
			for _, hd := range []int{64, 128} {
				sh := AttentionShape{NHead: shape[0], NHeadKV: shape[1], HeadDim: hd, Scale: float32(1 / math.Sqrt(float64(hd)))}
				c, q := attnFixture(t, typ, sh, n)
				sc := scatteredCopy(t, c, n, 5)
				d := sh.NHead * hd
				for name, cache := range map[string]*kvcache.Cache{"contiguous": c, "scattered": sc} {
					got, want := make([]float32, d), make([]float32, d)
					s := NewAttentionScratch(n, hd, sh.NHead/sh.NHeadKV, typ, typ, 1)
					Attend(got, q[:d], cache, 0, 0, n, sh, s)
					fusedValueSums = false
					Attend(want, q[:d], cache, 0, 0, n, sh, s)
					fusedValueSums = true
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%v %d/%d heads hd %d %s: output %d: fused %v, expanded %v", typ, sh.NHead, sh.NHeadKV, hd, name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
