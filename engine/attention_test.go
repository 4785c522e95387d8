package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// attnFixture fills a one-layer cache of n positions with random keys and
// values and returns it with n random query rows.
func attnFixture(t testing.TB, typ kvcache.Type, sh AttentionShape, n int) (*kvcache.Cache, []float32) {
	t.Helper()
	nkv := sh.NHeadKV * sh.HeadDim
	c, err := kvcache.New(kvcache.Options{NLayer: 1, NKV: nkv, HeadDim: sh.HeadDim, NCtx: n, NSeq: 1, TypeK: typ, TypeV: typ})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(typ)+7, 11))
	rnd := func(m int) []float32 {
		x := make([]float32, m)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	if err := c.Reserve(0, n); err != nil {
		t.Fatal(err)
	}
	for p := range n {
		c.Store(0, 0, p, rnd(nkv), rnd(nkv))
	}
	c.SetLen(0, n)
	return c, rnd(n * sh.NHead * sh.HeadDim)
}

// TestAttendBatchEqualsAttend checks that every token of a threaded batch
// gets exactly the bits Attend gives it alone (batch invariance), and that
// Attend is within float rounding of a float64 softmax attention over the
// cached (rounded) keys and values, for f16 and f32 caches and head dims
// on and off the kernels' 64-column blocks.
func TestAttendBatchEqualsAttend(t *testing.T) {
	for _, typ := range []kvcache.Type{kvcache.F16, kvcache.F32} {
		for _, hd := range []int{64, 72, 128} {
			sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: hd, Scale: float32(1 / math.Sqrt(float64(hd)))}
			const n = 37
			c, q := attnFixture(t, typ, sh, n)
			d := sh.NHead * hd
			s := NewAttentionScratch(n, hd, sh.NHead/sh.NHeadKV, typ, typ, 2)
			batch := make([]float32, n*d)
			attendPrompt(batch, q, c, n, sh, s)
			one := make([]float32, d)
			for i := range n {
				Attend(one, q[i*d:(i+1)*d], c, 0, 0, i+1, sh, s)
				for e := range d {
					if math.Float32bits(one[e]) != math.Float32bits(batch[i*d+e]) {
						t.Fatalf("%v hd=%d token %d [%d]: batch %v, alone %v", typ, hd, i, e, batch[i*d+e], one[e])
					}
				}
				checkAttendRef(t, c, q[i*d:(i+1)*d], one, i+1, sh)
			}
		}
	}
}

// checkAttendRef compares out with a float64 attention of q over the first
// n cached positions (keys and values as stored, q rounded like the keys).
func checkAttendRef(t *testing.T, c *kvcache.Cache, q, out []float32, n int, sh AttentionShape) {
	t.Helper()
	o := c.Options()
	hd := sh.HeadDim
	row := func(typ kvcache.Type, b []byte) []float32 {
		x := make([]float32, o.NKV)
		kernels.DequantizeRow(typ.DType(), x, b)
		return x
	}
	for h := range sh.NHead {
		g := h / (sh.NHead / sh.NHeadKV)
		qh := q[h*hd : (h+1)*hd]
		s := make([]float64, n)
		mx := math.Inf(-1)
		for j := range n {
			k := row(o.TypeK, c.KeyRow(0, 0, j))[g*hd:]
			for e, qe := range qh {
				if o.TypeK == kvcache.F16 {
					qe = kernels.F16ToF32(kernels.F32ToF16(qe))
				}
				s[j] += float64(qe) * float64(k[e])
			}
			s[j] *= float64(sh.Scale)
			mx = max(mx, s[j])
		}
		var sum float64
		for j := range s {
			s[j] = math.Exp(s[j] - mx)
			sum += s[j]
		}
		for e := range hd {
			var want, mag float64
			for j := range n {
				v := float64(row(o.TypeV, c.ValueRow(0, 0, j))[g*hd+e])
				want += s[j] / sum * v
				mag += math.Abs(s[j] / sum * v)
			}
			// f16 probabilities carry a relative rounding of 2^-11.
			if got := float64(out[h*hd+e]); math.Abs(got-want) > 1e-3*mag+1e-6 {
				t.Fatalf("head %d [%d] over %d: got %v, want %v", h, e, n, got, want)
			}
		}
	}
}

// TestAttendNoAlloc checks that a warm Attend allocates nothing.
func TestAttendNoAlloc(t *testing.T) {
	sh := AttentionShape{NHead: 4, NHeadKV: 2, HeadDim: 64, Scale: 0.125}
	c, q := attnFixture(t, kvcache.F16, sh, 16)
	s := NewAttentionScratch(16, 64, 2, kvcache.F16, kvcache.F16, 1)
	out := make([]float32, 4*64)
	if a := testing.AllocsPerRun(10, func() { Attend(out, q[:4*64], c, 0, 0, 16, sh, s) }); a != 0 {
		t.Errorf("Attend: %v allocations", a)
	}
}

// attendPrompt runs AttendBatch for positions 0..n-1 of sequence 0 at layer
// 0 of c into out, on a two-thread pool with every dispatch forced onto
// it, as a prompt batch attends.
func attendPrompt(out, q []float32, c *kvcache.Cache, n int, sh AttentionShape, s *AttentionScratch) {
	seq, pos := make([]int32, n), make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	pool := kernels.NewPool(2)
	defer pool.Close()
	restore := kernels.ForceParallel()
	defer restore()
	AttendBatch(pool, out, q, seq, pos, c, 0, sh, s)
}
