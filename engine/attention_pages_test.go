package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// scatteredCopy returns a cache holding the same rows as sequence 0 of c
// (n positions) with its pages scattered: pages of page positions, each
// its own span (kvcache.Options.Scatter), in a unified pool.
func scatteredCopy(t testing.TB, c *kvcache.Cache, n, page int) *kvcache.Cache {
	t.Helper()
	o := c.Options()
	o.PageSize, o.Scatter, o.Unified = page, true, true
	d, err := kvcache.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Reserve(0, n); err != nil {
		t.Fatal(err)
	}
	for p := range n {
		copy(d.KeyRow(0, 0, p), c.KeyRow(0, 0, p))
		copy(d.ValueRow(0, 0, p), c.ValueRow(0, 0, p))
	}
	d.SetLen(0, n)
	if sp := d.Spans(0, n, nil); len(sp) != (n+page-1)/page {
		t.Fatalf("scattered cache has %d spans for %d pages", len(sp), (n+page-1)/page)
	}
	return d
}

// TestAttendPagedBitIdentical checks that a sequence whose pages are
// scattered (one span per page, spans shorter and longer than attnChunk)
// gets exactly the bits of the same rows in one contiguous run, from
// Attend at every length and from a threaded AttendBatch, on every kernel
// implementation this machine runs, for f16, f32, bf16, block-quantized and
// turbo caches.
func TestAttendPagedBitIdentical(t *testing.T) {
	for _, impl := range kernels.Impls() {
		restore, err := kernels.SelectImpl(impl)
		if err != nil {
			continue
		}
		for _, typ := range []kvcache.Type{kvcache.F16, kvcache.F32, kvcache.BF16, kvcache.Q8_0, kvcache.Q4_1, kvcache.Turbo3, kvcache.Turbo3TCQ} {
			for _, hd := range []int{64, 72} {
				if _, err := typ.HeadBytes(hd); err != nil {
					continue // block types need whole 32-value blocks per head
				}
				for _, page := range []int{5, 70} {
					t.Run(fmt.Sprintf("%s/%v/hd%d/page%d", impl, typ, hd, page), func(t *testing.T) {
						checkPagedAttend(t, typ, hd, page)
					})
				}
			}
		}
		restore()
	}
}

func checkPagedAttend(t *testing.T, typ kvcache.Type, hd, page int) {
	const n = 150
	sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: hd, Scale: float32(1 / math.Sqrt(float64(hd)))}
	c, q := attnFixture(t, typ, sh, n)
	sc := scatteredCopy(t, c, n, page)
	d := sh.NHead * hd
	s := NewAttentionScratch(n, hd, sh.NHead/sh.NHeadKV, typ, typ, 2)
	want, got := make([]float32, d), make([]float32, n*d)
	for i := range n {
		Attend(want, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, s)
		Attend(got[:d], q[i*d:(i+1)*d], sc, 0, 0, i+1, sh, s)
		sameBits(t, "Attend", i, want, got[:d])
	}
	attendPrompt(got, q, sc, n, sh, s)
	for i := range n {
		Attend(want, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, s)
		sameBits(t, "AttendBatch", i, want, got[i*d:(i+1)*d])
	}
}

func sameBits(t *testing.T, what string, token int, want, got []float32) {
	t.Helper()
	for e := range want {
		if math.Float32bits(want[e]) != math.Float32bits(got[e]) {
			t.Fatalf("%s token %d [%d]: scattered %v, contiguous %v", what, token, e, got[e], want[e])
		}
	}
}

// TestAttendScatteredNoAlloc checks that warm attention over scattered
// pages (the gathered continuation path) allocates nothing.
func TestAttendScatteredNoAlloc(t *testing.T) {
	sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: 64, Scale: 0.125}
	c, q := attnFixture(t, kvcache.F16, sh, 100)
	sc := scatteredCopy(t, c, 100, 7)
	s := NewAttentionScratch(100, 64, 2, kvcache.F16, kvcache.F16, 1)
	out := make([]float32, 4*64)
	if a := testing.AllocsPerRun(10, func() { Attend(out, q[:4*64], sc, 0, 0, 100, sh, s) }); a != 0 {
		t.Errorf("Attend: %v allocations", a)
	}
}

// BenchmarkAttendPaged times one decode-step Attend (32 heads of 64 over 8
// KV heads, f16, 2048 positions) over one contiguous run and over pages of
// 16, 64 and 256 positions that are all scattered (the worst placement;
// the allocator keeps a sequence's pages adjacent where it can).
func BenchmarkAttendPaged(b *testing.B) {
	const n, hd = 2048, 64
	sh := AttentionShape{NHead: 32, NHeadKV: 8, HeadDim: hd, Scale: 0.125}
	c, q := attnFixture(b, kvcache.F16, sh, n)
	s := NewAttentionScratch(n, hd, 4, kvcache.F16, kvcache.F16, 1)
	out := make([]float32, sh.NHead*hd)
	run := func(name string, cc *kvcache.Cache) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Attend(out, q[:sh.NHead*hd], cc, 0, 0, n, sh, s)
			}
		})
	}
	run("contiguous", c)
	for _, page := range []int{16, 64, 256} {
		run(fmt.Sprintf("scattered%d", page), scatteredCopy(b, c, n, page))
	}
}
