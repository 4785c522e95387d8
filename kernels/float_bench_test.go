package kernels

import (
	"fmt"
	"testing"
)

// Benchmarks of the float kernels, named <Op>/<impl>/<n> or
// <Op>/<type>/<impl>/<n> like bench_test.go, with b.SetBytes set to the
// bytes read (weights for the dots, inputs for the vector ops) so that
// benchstat shows GB/s per implementation. BenchmarkVecDot, BenchmarkDot
// and BenchmarkQuantizeRow (bench_test.go) cover the single dots and the
// F16 quantizer. They run on every architecture (the implementations
// listed by Impls), so benchstat lines up across amd64 and arm64; timings
// under qemu say nothing about speed.

var fltBenchSizes = []int{64, 4096}

// BenchmarkFloatVecDotN times one weight row against cols activation
// columns, and (the "-loop" rows) the same work as cols single dots.
func BenchmarkFloatVecDotN(b *testing.B) {
	const n = 4096
	for _, typ := range []DType{F32, F16, BF16} {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			r := newRand(40)
			w := randomWeights(r, typ, n)
			xn := typ.RowBytes(n)
			x := make([]byte, MaxDotCols*xn)
			for c := range MaxDotCols {
				QuantizeRow(typ, x[c*xn:], randomActs(r, n))
			}
			out := make([]float32, MaxDotCols)
			for _, cols := range []int{2, 4} {
				if f := kt.vecDotN[typ]; f != nil {
					b.Run(fmt.Sprintf("%v/%s/%d/cols=%d", typ, name, n, cols), func(b *testing.B) {
						b.SetBytes(int64(cols * len(w)))
						for b.Loop() {
							f(n, w, x, xn, out[:cols])
						}
					})
				}
				b.Run(fmt.Sprintf("%v/%s-loop/%d/cols=%d", typ, name, n, cols), func(b *testing.B) {
					b.SetBytes(int64(cols * len(w)))
					for b.Loop() {
						vecDotNLoop(kt.vecDot[typ], n, w, x, xn, xn, out[:cols])
					}
				})
			}
		}
	}
}

// fltBenchEach runs body for every implementation and size.
func fltBenchEach(b *testing.B, bytesPerValue int, body func(b *testing.B, kt *kernelTable, n int)) {
	for _, name := range Impls() {
		kt, _ := resolve(name)
		for _, n := range fltBenchSizes {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(bytesPerValue * n))
				body(b, &kt, n)
			})
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	fltBenchEach(b, 8, func(b *testing.B, kt *kernelTable, n int) {
		r := newRand(41)
		x, y, d := randomActs(r, n), randomActs(r, n), make([]float32, n)
		for b.Loop() {
			kt.add(d, x, y)
		}
	})
}

func BenchmarkMul(b *testing.B) {
	fltBenchEach(b, 8, func(b *testing.B, kt *kernelTable, n int) {
		r := newRand(42)
		x, y, d := randomActs(r, n), randomActs(r, n), make([]float32, n)
		for b.Loop() {
			kt.mul(d, x, y)
		}
	})
}

func BenchmarkScale(b *testing.B) {
	fltBenchEach(b, 4, func(b *testing.B, kt *kernelTable, n int) {
		x := randomActs(newRand(43), n)
		for b.Loop() {
			kt.scale(x, 1)
		}
	})
}

func BenchmarkSwiGLU(b *testing.B) {
	fltBenchEach(b, 8, func(b *testing.B, kt *kernelTable, n int) {
		r := newRand(44)
		g, u, d := randomActs(r, n), randomActs(r, n), make([]float32, n)
		for b.Loop() {
			kt.swiGLU(d, g, u)
		}
	})
}

func BenchmarkRMSNorm(b *testing.B) {
	fltBenchEach(b, 4, func(b *testing.B, kt *kernelTable, n int) {
		x, d := randomActs(newRand(45), n), make([]float32, n)
		for b.Loop() {
			kt.rmsNorm(d, x, 1e-5)
		}
	})
}

func BenchmarkSoftMax(b *testing.B) {
	fltBenchEach(b, 4, func(b *testing.B, kt *kernelTable, n int) {
		src := randomActs(newRand(46), n)
		x := make([]float32, n)
		for b.Loop() {
			copy(x, src) // softmax of a softmax would flatten the input
			kt.softMax(x)
		}
	})
}

// BenchmarkConvertRow times F32 -> F16/BF16 (QuantizeRow) and back
// (DequantizeRow); bytes are those of the float32 side.
func BenchmarkConvertRow(b *testing.B) {
	const n = 4096
	for _, typ := range []DType{F16, BF16} {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			x := randomActs(newRand(47), n)
			q := make([]byte, typ.RowBytes(n))
			b.Run(fmt.Sprintf("to-%v/%s/%d", typ, name, n), func(b *testing.B) {
				b.SetBytes(4 * n)
				for b.Loop() {
					kt.quantize[typ](q, x)
				}
			})
			b.Run(fmt.Sprintf("from-%v/%s/%d", typ, name, n), func(b *testing.B) {
				b.SetBytes(4 * n)
				for b.Loop() {
					kt.dequantize[typ](x, q)
				}
			})
		}
	}
}
