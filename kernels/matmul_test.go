package kernels

import (
	"fmt"
	"math"
	"testing"
)

// matMulCase is one weight matrix and a batch of quantized activation
// columns, stored with strides wider than a row so that stride bugs show.
type matMulCase struct {
	t             DType
	rows, n, cols int
	w, xq         []byte
	xStride       int
	wd, xd        []float32 // dequantized weights and activations
	off           []float32 // weight block offsets (see minOffsets)
}

func newMatMulCase(t DType, rows, n, cols int, seed uint64) *matMulCase {
	r := newRand(seed)
	c := &matMulCase{t: t, rows: rows, n: n, cols: cols}
	for range rows {
		c.w = append(c.w, randomWeights(r, t, n)...)
	}
	vt := t.VecDotType()
	c.xStride = vt.RowBytes(n) + vt.BlockBytes() // one spare block per column
	acts := make([]float32, cols*(n+3))
	for i := range cols {
		copy(acts[i*(n+3):], randomActs(r, n))
	}
	c.xq = make([]byte, cols*c.xStride)
	QuantizeRows(nil, vt, c.xq, c.xStride, acts, n+3, n, cols)
	c.wd = make([]float32, rows*n)
	DequantizeRow(t, c.wd, c.w)
	c.xd = make([]float32, cols*n)
	for i := range cols {
		DequantizeRow(vt, c.xd[i*n:(i+1)*n], c.xq[i*c.xStride:])
	}
	c.off = make([]float32, rows*n)
	for row := range rows {
		if o := minOffsets(t, c.w[row*t.RowBytes(n):(row+1)*t.RowBytes(n)], n); o != nil {
			copy(c.off[row*n:], o)
		}
	}
	return c
}

// want returns VecDot of row r and column col, the plain loop MatMul must
// reproduce, and the normalised error bound tolVecDotImpl allows VecDotN.
func (c *matMulCase) want(row, col int) (float32, float64) {
	rb := c.t.RowBytes(c.n)
	v := VecDot(c.t, c.n, c.w[row*rb:(row+1)*rb], c.xq[col*c.xStride:])
	var scale float64
	for i := range c.n {
		mag := math.Abs(float64(c.wd[row*c.n+i])) + 2*math.Abs(float64(c.off[row*c.n+i]))
		scale += mag * math.Abs(float64(c.xd[col*c.n+i]))
	}
	return v, tolVecDotImpl*scale + float64(c.n+1)*math.Ldexp(1, -149)
}

// check runs MatMul on p into a guarded, strided dst and compares every
// element with the plain VecDot loop: exactly when this implementation has
// no VecDotN kernel for t (MatMul then loops over VecDot), within
// tolVecDotImpl otherwise. Guard values between and after the columns
// must survive.
func (c *matMulCase) check(t *testing.T, p *Pool) {
	t.Helper()
	const guard = -12345.5
	dstStride := c.rows + 3
	dst := make([]float32, c.cols*dstStride+5)
	for i := range dst {
		dst[i] = guard
	}
	MatMul(p, c.t, dst, dstStride, c.w, c.rows, c.n, c.xq, c.xStride, c.cols)
	exact := active.vecDotN[c.t] == nil || c.cols == 1
	for i, v := range dst {
		col, row := i/dstStride, i%dstStride
		if col >= c.cols || row >= c.rows {
			if v != guard {
				t.Fatalf("%v: MatMul wrote %g outside the result at index %d", c.t, v, i)
			}
			continue
		}
		want, tol := c.want(row, col)
		if exact && v != want || math.Abs(float64(v-want)) > tol {
			t.Fatalf("%v rows=%d cols=%d threads=%d: [col %d, row %d] = %g, VecDot gives %g (exact=%v, tol %g)",
				c.t, c.rows, c.cols, p.Threads(), col, row, v, want, exact, tol)
		}
	}
}

// TestMatMulMatchesVecDotLoop sweeps every weight type, odd row counts,
// 1..9 columns and 1..3 threads (every call forced onto the pool), on every
// implementation this CPU runs.
func TestMatMulMatchesVecDotLoop(t *testing.T) {
	defer ForceParallel()()
	pools := []*Pool{nil, NewPool(1), NewPool(2), NewPool(3)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, impl := range Impls() {
		restore, err := SelectImpl(impl)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(impl, func(t *testing.T) {
			for i, typ := range weightTypes {
				n := 2 * typ.BlockSize()
				if typ.BlockSize() == 1 {
					n = 67
				}
				for _, rows := range []int{1, 7, 67} {
					for cols := 1; cols <= 9; cols++ {
						c := newMatMulCase(typ, rows, n, cols, uint64(100*i+rows+cols))
						for _, p := range pools {
							c.check(t, p)
						}
					}
				}
			}
		})
		restore()
	}
}

// TestMatMulLargeSplits uses enough rows that chunks, tiles and the
// dynamic chunk counter all come into play without ForceParallel.
func TestMatMulLargeSplits(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	for _, typ := range []DType{Q4_K, Q8_0, F16} {
		n := 512
		c := newMatMulCase(typ, 1000, n, 6, 7)
		c.check(t, p)
		c1 := newMatMulCase(typ, 2003, n, 1, 8)
		c1.check(t, p)
	}
}

func TestMatMulPanicsOnBadArguments(t *testing.T) {
	c := newMatMulCase(Q8_0, 4, 64, 2, 1)
	dst := make([]float32, 8)
	cases := map[string]func(){
		"short weights": func() { MatMul(nil, Q8_0, dst, 4, c.w[:10], 4, 64, c.xq, c.xStride, 2) },
		"short x":       func() { MatMul(nil, Q8_0, dst, 4, c.w, 4, 64, c.xq[:c.xStride], c.xStride, 2) },
		"short dst":     func() { MatMul(nil, Q8_0, dst[:7], 4, c.w, 4, 64, c.xq, c.xStride, 2) },
		"dst stride":    func() { MatMul(nil, Q8_0, dst, 3, c.w, 4, 64, c.xq, c.xStride, 2) },
		"x stride":      func() { MatMul(nil, Q8_0, dst, 4, c.w, 4, 64, c.xq, 10, 2) },
		"bad n":         func() { MatMul(nil, Q8_0, dst, 4, c.w, 4, 63, c.xq, c.xStride, 2) },
		"activation":    func() { MatMul(nil, Q8_K, dst, 4, c.w, 4, 256, c.xq, c.xStride, 2) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
	MatMul(nil, Q8_0, nil, 0, nil, 0, 64, c.xq, c.xStride, 0) // empty: no panic
}

func TestMatVecPoolEqualsMatVec(t *testing.T) {
	defer ForceParallel()()
	p := NewPool(2)
	defer p.Close()
	c := newMatMulCase(Q6_K, 37, 512, 1, 3)
	want := make([]float32, c.rows)
	MatVec(c.t, want, c.w, c.xq, c.n)
	got := make([]float32, c.rows)
	MatVecPool(p, c.t, got, c.w, c.xq, c.n)
	for r := range want {
		if got[r] != want[r] {
			t.Fatalf("row %d: MatVecPool %g, MatVec %g", r, got[r], want[r])
		}
	}
}

func TestMatMulAllocatesNothing(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	c := newMatMulCase(Q4_K, 300, 512, 5, 4)
	dst := make([]float32, c.rows*c.cols)
	f := func() { MatMul(p, c.t, dst, c.rows, c.w, c.rows, c.n, c.xq, c.xStride, c.cols) }
	f() // the first call sizes the pool's per-worker buffers
	if a := testing.AllocsPerRun(50, f); a != 0 {
		t.Fatalf("MatMul allocates %.1f times", a)
	}
}

// BenchmarkMatMul times a 4096×1024 weight against 1 and 16 columns: the
// threaded MatMul on 1 and 2 threads, and the plain VecDot loop as the
// baseline of the same run. Bytes are the weight bytes per call.
func BenchmarkMatMul(b *testing.B) {
	for _, typ := range []DType{Q4_K, Q8_0} {
		for _, cols := range []int{1, 16} {
			c := newMatMulCase(typ, 1024, 4096, cols, 9)
			dst := make([]float32, c.rows*cols)
			b.Run(fmt.Sprintf("%v/loop/cols=%d", typ, cols), func(b *testing.B) {
				b.SetBytes(int64(len(c.w)))
				rb := typ.RowBytes(c.n)
				for b.Loop() {
					for col := range cols {
						for r := range c.rows {
							dst[col*c.rows+r] = VecDot(typ, c.n, c.w[r*rb:], c.xq[col*c.xStride:])
						}
					}
				}
			})
			for _, n := range []int{1, 2} {
				p := NewPool(n)
				b.Run(fmt.Sprintf("%v/matmul-t%d/cols=%d", typ, n, cols), func(b *testing.B) {
					b.SetBytes(int64(len(c.w)))
					for b.Loop() {
						MatMul(p, typ, dst, c.rows, c.w, c.rows, c.n, c.xq, c.xStride, cols)
					}
				})
				p.Close()
			}
		}
	}
}
