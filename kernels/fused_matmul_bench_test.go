package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecodeMatMulCols measures DecodeMatMul on one thread for the
// few columns of a speculative verify batch: 256 rows of 2048 values (in
// L2), bytes counted once per column, so GB/s compares per-column cost
// with the one-column path.
func BenchmarkDecodeMatMulCols(b *testing.B) {
	const n, rows = 2048, 256
	r := rand.New(rand.NewPCG(5, 8))
	for _, typ := range []DType{Q4_0, Q4_K, Q6_K} {
		w := randomMatrix(r, typ, rows, n)
		xn := typ.VecDotType().RowBytes(n)
		for _, cols := range []int{1, 2, 4, 8} {
			xq := make([]byte, cols*xn)
			for c := range cols {
				q, _ := quantizeActs(typ, randomActs(r, n))
				copy(xq[c*xn:], q)
			}
			dst := make([]float32, cols*rows)
			b.Run(fmt.Sprintf("%v/cols=%d", typ, cols), func(b *testing.B) {
				b.SetBytes(int64(len(w) * cols))
				for b.Loop() {
					DecodeMatMul(nil, typ, dst, rows, w, rows, n, xq, xn, cols)
				}
			})
		}
	}
}
