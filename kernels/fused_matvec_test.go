package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomMatrix returns rows random weight rows of type t, n values each.
func randomMatrix(r *rand.Rand, t DType, rows, n int) []byte {
	var w []byte
	for range rows {
		w = append(w, randomWeights(r, t, n)...)
	}
	return w
}

// TestDecodeMatVecBitsMatchVecDot: every result of DecodeMatVec has the
// bits of VecDot on its row, for the four-row kernels and the fallbacks,
// on the caller and split across a pool, with row counts around the
// four-row and chunk boundaries.
func TestDecodeMatVecBitsMatchVecDot(t *testing.T) {
	forEachLevelOf(t, "decode-4row", testDecodeMatVecBits)
}

func testDecodeMatVecBits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	pool := NewPool(3)
	defer pool.Close()
	for _, typ := range []DType{Q4_0, Q8_0, Q4_K, Q6_K} {
		for _, n := range []int{128, 256, 2048, 160} {
			if n%typ.BlockSize() != 0 {
				continue
			}
			for _, rows := range []int{1, 3, 4, 5, 17, 64, 131} {
				w := randomMatrix(r, typ, rows, n)
				xq, _ := quantizeActs(typ, randomActs(r, n))
				for _, p := range []*Pool{nil, pool} {
					checkDecodeMatVec(t, p, typ, w, xq, rows, n)
				}
			}
		}
	}
}

func checkDecodeMatVec(t *testing.T, p *Pool, typ DType, w, xq []byte, rows, n int) {
	t.Helper()
	restore := ForceParallel()
	defer restore()
	got := make([]float32, rows+1)
	got[rows] = 12345
	DecodeMatVec(p, typ, got[:rows], w, xq, n)
	rb := typ.RowBytes(n)
	for i := range rows {
		want := VecDot(typ, n, w[i*rb:(i+1)*rb], xq)
		if math.Float32bits(got[i]) != math.Float32bits(want) {
			t.Fatalf("%v n=%d rows=%d threads=%d: row %d = %g, VecDot %g", typ, n, rows, p.Threads(), i, got[i], want)
		}
	}
	if got[rows] != 12345 {
		t.Fatalf("%v n=%d rows=%d: wrote past dst", typ, n, rows)
	}
}

// TestDecodeMatVecExtremes: all-extreme weights and activations (|q| at
// the type's bounds) keep the integer sums exact.
func TestDecodeMatVecExtremes(t *testing.T) {
	forEachLevelOf(t, "decode-4row", testDecodeMatVecExtremes)
}

func testDecodeMatVecExtremes(t *testing.T) {
	const n, rows = 256, 8
	for _, typ := range []DType{Q4_0, Q8_0} {
		for _, fill := range []byte{0x00, 0xff, 0x80, 0x7f, 0x88} {
			w := randomMatrix(rand.New(rand.NewPCG(1, 2)), typ, rows, n)
			bs := typ.RowBytes(32)
			for b := 0; b < len(w); b += bs {
				for i := b + 2; i < b+bs; i++ {
					w[i] = fill
				}
			}
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(1 - 2*(i%2))
			}
			xq, _ := quantizeActs(typ, x)
			checkDecodeMatVec(t, nil, typ, w, xq, rows, n)
		}
	}
	// K-quants: every byte but the fp16 d (and Q4_K's dmin) set to fill,
	// so scales, mins and quants all sit at their bounds.
	for _, typ := range []DType{Q4_K, Q6_K} {
		for _, fill := range []byte{0x00, 0xff, 0x80, 0x7f, 0x88} {
			w := randomMatrix(rand.New(rand.NewPCG(1, 2)), typ, rows, n)
			bs := typ.RowBytes(QK_K)
			for b := 0; b < len(w); b += bs {
				lo, hi := 4, bs // Q4_K: d, dmin first
				if typ == Q6_K {
					lo, hi = 0, bs-2 // Q6_K: d last
				}
				for i := b + lo; i < b+hi; i++ {
					w[i] = fill
				}
			}
			for _, sign := range []float32{1, -1} {
				x := make([]float32, n)
				for i := range x {
					x[i] = sign * float32(1-2*(i%2))
				}
				xq, _ := quantizeActs(typ, x)
				checkDecodeMatVec(t, nil, typ, w, xq, rows, n)
			}
		}
	}
}

// BenchmarkDecodeMatVec measures the decode matrix product of a
// 2048×8192 matrix (an FFN projection of a 1B model) on one thread.
func BenchmarkDecodeMatVec(b *testing.B) {
	const n = 2048
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		typ  DType
		rows int
	}{{Q4_0, 64}, {Q4_0, 8192}, {Q4_K, 8192}, {Q6_K, 8192}} {
		typ, rows := c.typ, c.rows
		w := randomMatrix(r, typ, rows, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		dst := make([]float32, rows)
		b.Run(fmt.Sprintf("%v/%d/fused", typ, rows), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				DecodeMatVec(nil, typ, dst, w, xq, n)
			}
		})
		b.Run(fmt.Sprintf("%v/%d/matvec", typ, rows), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				MatVecPool(nil, typ, dst, w, xq, n)
			}
		})
	}
}

// TestDecodeMatVecAllocatesNothing: a warm DecodeMatVec, on the caller and
// on a pool, allocates nothing for the four-row types.
func TestDecodeMatVecAllocatesNothing(t *testing.T) {
	forEachLevelOf(t, "decode-4row", testDecodeMatVecAllocs)
}

func testDecodeMatVecAllocs(t *testing.T) {
	const n, rows = 512, 64
	r := rand.New(rand.NewPCG(5, 6))
	pool := NewPool(2)
	defer pool.Close()
	restore := ForceParallel()
	defer restore()
	for _, typ := range []DType{Q4_0, Q4_K, Q6_K} {
		w := randomMatrix(r, typ, rows, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		dst := make([]float32, rows)
		for _, p := range []*Pool{nil, pool} {
			DecodeMatVec(p, typ, dst, w, xq, n)
			if a := testing.AllocsPerRun(20, func() { DecodeMatVec(p, typ, dst, w, xq, n) }); a != 0 {
				t.Fatalf("%v threads=%d: %v allocations", typ, p.Threads(), a)
			}
		}
	}
}
