package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDecodeMatMulBitsMatchVecDot: every (row, column) of DecodeMatMul has
// the bits of VecDot on that row and column, for 1..DecodeMaxCols+1
// columns (the last falls back to MatMul), padded strides, row counts
// around the four-row and chunk boundaries, on the caller and on a pool;
// padding between columns of dst is left alone.
func TestDecodeMatMulBitsMatchVecDot(t *testing.T) {
	forEachLevelOf(t, "decode-4row", testDecodeMatMulBits)
}

func testDecodeMatMulBits(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	pool := NewPool(3)
	defer pool.Close()
	restore := ForceParallel()
	defer restore()
	for _, typ := range []DType{Q4_0, Q8_0, Q4_K, Q6_K} {
		for _, n := range []int{256, 2048} {
			for _, rows := range []int{4, 7, 64, 133} {
				w := randomMatrix(r, typ, rows, n)
				xn := typ.VecDotType().RowBytes(n)
				xStride := xn + 32
				for cols := 1; cols <= DecodeMaxCols+1; cols++ {
					xq := make([]byte, cols*xStride)
					for c := range cols {
						q, _ := quantizeActs(typ, randomActs(r, n))
						copy(xq[c*xStride:], q)
					}
					for _, p := range []*Pool{nil, pool} {
						checkDecodeMatMul(t, p, typ, w, xq, rows, n, xStride, cols)
					}
				}
			}
		}
	}
}

func checkDecodeMatMul(t *testing.T, p *Pool, typ DType, w, xq []byte, rows, n, xStride, cols int) {
	t.Helper()
	const guard = 12345
	dstStride := rows + 3
	got := make([]float32, cols*dstStride)
	for i := range got {
		got[i] = guard
	}
	DecodeMatMul(p, typ, got, dstStride, w, rows, n, xq, xStride, cols)
	rb := typ.RowBytes(n)
	for c := range cols {
		for i := range rows {
			want := VecDot(typ, n, w[i*rb:(i+1)*rb], xq[c*xStride:])
			if g := got[c*dstStride+i]; math.Float32bits(g) != math.Float32bits(want) {
				t.Fatalf("%v n=%d rows=%d cols=%d threads=%d: (%d,%d) = %g, VecDot %g", typ, n, rows, cols, p.Threads(), i, c, g, want)
			}
		}
		for i := rows; i < dstStride; i++ {
			if got[c*dstStride+i] != guard {
				t.Fatalf("%v rows=%d cols=%d: wrote padding of column %d", typ, rows, cols, c)
			}
		}
	}
}
