package kernels

import (
	"fmt"
	"math"
	"testing"
)

// TestMatMulBatchInvariance extends TestBatchInvariance to MatMul and its
// GEMM tile kernels: for every implementation this CPU runs, every output
// of MatMul has exactly the float32 bits of VecDot of its row and column,
// whatever the number of columns (1..11: whole tiles, partial panels) and
// rows (whole tiles and a remainder), on one thread and on two.
func TestMatMulBatchInvariance(t *testing.T) {
	defer ForceParallel()()
	pools := []*Pool{nil, NewPool(2)}
	defer pools[1].Close()
	for _, name := range Impls() {
		t.Run(name, func(t *testing.T) {
			restore, err := SelectImpl(name)
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			for _, typ := range []DType{Q4_0, Q8_0, Q4_K, Q6_K} {
				bs := typ.BlockSize()
				for _, nb := range []int{1, 3, 4, 8, 12, 16, 64} {
					n := nb * max(bs, 32)
					if n%bs != 0 {
						continue
					}
					for _, rows := range []int{4, 37} {
						c := newMatMulCase(typ, rows, n, 11, uint64(nb*rows))
						checkMatMulBits(t, pools, c)
					}
				}
			}
		})
	}
}

// checkMatMulBits runs c through MatMul with 1..c.cols columns on every
// pool and compares each output with VecDot bit for bit.
func checkMatMulBits(t *testing.T, pools []*Pool, c *matMulCase) {
	t.Helper()
	rb, xn := c.t.RowBytes(c.n), c.t.VecDotType().RowBytes(c.n)
	dst := make([]float32, c.cols*(c.rows+3))
	fails := 0
	for pi, p := range pools {
		for cols := 1; cols <= c.cols; cols++ {
			for i := range dst {
				dst[i] = float32(math.NaN())
			}
			MatMul(p, c.t, dst, c.rows+3, c.w, c.rows, c.n, c.xq, c.xStride, cols)
			for col := range cols {
				for r := range c.rows {
					want := VecDot(c.t, c.n, c.w[r*rb:(r+1)*rb], c.xq[col*c.xStride:col*c.xStride+xn])
					got := dst[col*(c.rows+3)+r]
					if math.Float32bits(got) != math.Float32bits(want) {
						if fails++; fails <= 5 {
							t.Errorf("%v n=%d rows=%d cols=%d pool %d: [%d,%d] MatMul %v, VecDot %v", c.t, c.n, c.rows, cols, pi, r, col, got, want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkGEMM times MatMul at the shapes of a Llama-3.2-1B prefill
// projection (rows × n weights, 512 columns) against the VecDotN path of
// the same run (GEMM kernels off). Bytes are weight bytes × columns, so
// the rate is comparable across paths: MAC/s = bytes/s × n / row bytes.
func BenchmarkGEMM(b *testing.B) {
	const cols = 512
	for _, typ := range []DType{Q4_0, Q8_0, Q4_K, Q6_K} {
		for _, sh := range [][2]int{{2048, 2048}, {8192, 2048}, {2048, 8192}} {
			rows, n := sh[0], sh[1]
			c := newMatMulCase(typ, rows, n, cols, 5)
			dst := make([]float32, rows*cols)
			for _, path := range []string{"gemm", "vecdotn"} {
				b.Run(fmt.Sprintf("%v/%dx%d/%s", typ, rows, n, path), func(b *testing.B) {
					if path == "vecdotn" {
						defer disableGEMM()()
					}
					b.SetBytes(int64(len(c.w)) * cols)
					for b.Loop() {
						MatMul(nil, typ, dst, rows, c.w, rows, n, c.xq, c.xStride, cols)
					}
					b.ReportMetric(float64(rows*n*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
				})
			}
		}
	}
}
