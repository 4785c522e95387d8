package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// flashTypes are the cache types the flash tests cover: the two exact
// float types, bf16, a block type and the turbo types (fused TCQ scores
// and expanded keys).
var flashTypes = []kvcache.Type{kvcache.F32, kvcache.F16, kvcache.BF16, kvcache.Q8_0, kvcache.Turbo3, kvcache.Turbo3TCQ}

// flashExactBound is the relative RMS difference allowed between the
// flash and the exact path for one token's output. Both score alike; the
// flash path adds one rounding per rescale and divides at the end (a few
// float32 ulps: f32, block and turbo types, measured ≤ 7e-7), and keeps
// float32 probabilities where the exact path rounds them to the f16 or
// bf16 value type (measured ≤ 4e-4 and ≤ 3e-3).
func flashExactBound(typ kvcache.Type) float64 {
	switch typ {
	case kvcache.F16:
		return 1e-3
	case kvcache.BF16:
		return 1e-2
	default:
		return 4e-6
	}
}

// relRMS is the RMS of got-want relative to the RMS of want.
func relRMS(got, want []float32) float64 {
	var num, den float64
	for i := range want {
		e := float64(got[i]) - float64(want[i])
		num, den = num+e*e, den+float64(want[i])*float64(want[i])
	}
	return math.Sqrt(num / den)
}

// TestFlashMatchesExact: the flash path is within flashExactBound of the
// exact one and within the exact path's own bound (attnTypeBound) of the
// float64 attention over the decoded cache, for decode (Attend over the
// whole context) and prefill (a threaded AttendBatch, token i over
// positions [0, i]), GQA groups 1, 4 and 8, contexts on both sides of the
// 64-position chunks; every batch token is bit-identical to Attend alone.
func TestFlashMatchesExact(t *testing.T) {
	for _, typ := range flashTypes {
		for _, group := range []int{1, 4, 8} {
			for _, n := range []int{1, 63, 64, 65, 300} {
				t.Run(fmt.Sprintf("%v/g%d/n%d", typ, group, n), func(t *testing.T) {
					checkFlash(t, typ, group, n)
				})
			}
		}
	}
}

func checkFlash(t *testing.T, typ kvcache.Type, group, n int) {
	const hd = 64
	sh := AttentionShape{NHead: 2 * group, NHeadKV: 2, HeadDim: hd, Scale: 0.125}
	c, q := attnFixture(t, typ, sh, n)
	d := sh.NHead * hd
	exact := NewAttentionScratch(n, hd, group, typ, typ, 2)
	flash := NewFlashAttentionScratch(hd, group, typ, typ, 2)
	batch := make([]float32, n*d)
	attendPrompt(batch, q, c, n, sh, flash)
	want, got := make([]float32, d), make([]float32, d)
	worst := 0.0
	for i := range n {
		if i >= 2*attnChunk && i%7 != 0 && i != n-1 {
			continue // past two chunks, every 7th token and the last (qemu runs this too)
		}
		Attend(want, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, exact)
		Attend(got, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, flash)
		sameBits(t, "flash AttendBatch vs Attend", i, got, batch[i*d:(i+1)*d])
		if e := relRMS(got, want); e > worst {
			worst = e
		}
	}
	if worst > flashExactBound(typ) {
		t.Fatalf("flash vs exact: relative RMS %.3g over bound %.3g", worst, flashExactBound(typ))
	}
	ref := decodedAttention(c, q[(n-1)*d:], n, sh)
	var num, den float64
	for i, r := range ref {
		e := float64(got[i]) - r
		num, den = num+e*e, den+r*r
	}
	if rel := math.Sqrt(num / den); rel > attnTypeBound(typ) {
		t.Fatalf("flash vs decoded reference: relative RMS %.3g over bound %.3g", rel, attnTypeBound(typ))
	}
	t.Logf("worst flash vs exact %.3g", worst)
}

// TestFlashPagedBitIdentical: the flash path gives the same bits for a
// sequence whose pages are scattered (spans of 5 and 70 positions, which
// cross the 64-position chunks) as for one contiguous run, from Attend and
// from a threaded AttendBatch, on every kernel implementation.
func TestFlashPagedBitIdentical(t *testing.T) {
	for _, impl := range kernels.Impls() {
		restore, err := kernels.SelectImpl(impl)
		if err != nil {
			continue
		}
		for _, typ := range []kvcache.Type{kvcache.F16, kvcache.Q8_0, kvcache.Turbo3TCQ} {
			for _, page := range []int{5, 70} {
				t.Run(fmt.Sprintf("%s/%v/page%d", impl, typ, page), func(t *testing.T) {
					checkFlashPaged(t, typ, page)
				})
			}
		}
		restore()
	}
}

func checkFlashPaged(t *testing.T, typ kvcache.Type, page int) {
	const n, hd = 150, 64
	sh := AttentionShape{NHead: 8, NHeadKV: 2, HeadDim: hd, Scale: 0.125}
	c, q := attnFixture(t, typ, sh, n)
	sc := scatteredCopy(t, c, n, page)
	d := sh.NHead * hd
	s := NewFlashAttentionScratch(hd, 4, typ, typ, 2)
	want, got := make([]float32, d), make([]float32, n*d)
	attendPrompt(got, q, sc, n, sh, s)
	for i := range n {
		Attend(want, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, s)
		sameBits(t, "flash AttendBatch", i, want, got[i*d:(i+1)*d])
		Attend(got[i*d:(i+1)*d], q[i*d:(i+1)*d], sc, 0, 0, i+1, sh, s)
		sameBits(t, "flash Attend", i, want, got[i*d:(i+1)*d])
	}
}

// TestFlashNoAlloc: warm flash attention over scattered pages allocates
// nothing, and its scratch does not grow with the context.
func TestFlashNoAlloc(t *testing.T) {
	sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: 64, Scale: 0.125}
	for _, typ := range []kvcache.Type{kvcache.F16, kvcache.Turbo3TCQ} {
		c, q := attnFixture(t, typ, sh, 200)
		sc := scatteredCopy(t, c, 200, 7)
		s := NewFlashAttentionScratch(64, 2, typ, typ, 1)
		out := make([]float32, 4*64)
		if a := testing.AllocsPerRun(10, func() { Attend(out, q[:4*64], sc, 0, 0, 200, sh, s) }); a != 0 {
			t.Errorf("%v: %v allocations", typ, a)
		}
	}
}

// BenchmarkAttendFlash times one decode-step Attend of the 1B shape (32
// query heads of 64 over 8 KV heads) over 4096 positions, the exact and the
// flash path side by side, per cache type.
func BenchmarkAttendFlash(b *testing.B) {
	const n, hd = 4096, 64
	sh := AttentionShape{NHead: 32, NHeadKV: 8, HeadDim: hd, Scale: 0.125}
	for _, typ := range []kvcache.Type{kvcache.F16, kvcache.Q8_0, kvcache.Turbo3TCQ} {
		c, q := attnFixture(b, typ, sh, n)
		out := make([]float32, sh.NHead*hd)
		for _, s := range []*AttentionScratch{NewAttentionScratch(n, hd, 4, typ, typ, 1), NewFlashAttentionScratch(hd, 4, typ, typ, 1)} {
			name := "exact"
			if s.Flash() {
				name = "flash"
			}
			b.Run(typ.String()+"/"+name, func(b *testing.B) {
				for b.Loop() {
					Attend(out, q[:sh.NHead*hd], c, 0, 0, n, sh, s)
				}
			})
		}
	}
}
