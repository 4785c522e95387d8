//go:build !purego

package kernels

import (
	"fmt"
	"testing"
)

// Benchmarks of the arm64 float kernels, with the names and byte counts of
// float_bench_amd64_test.go (<Op>/<impl>/<n>, b.SetBytes = the bytes of
// the inputs read), so benchstat output lines up across architectures.
// BenchmarkVecDot and BenchmarkDot (bench_test.go), BenchmarkVecDotNARM64
// and BenchmarkAttnValues/Scores (attn_test.go) cover the dots. Timings
// under qemu say nothing about speed; run these on arm64 hardware.

// neonBenchEach runs body for every implementation at 64 and 4096 values.
func neonBenchEach(b *testing.B, bytesPerValue int, body func(b *testing.B, kt *kernelTable, n int)) {
	for _, name := range Impls() {
		kt, _ := resolve(name)
		for _, n := range []int{64, 4096} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(bytesPerValue * n))
				body(b, &kt, n)
			})
		}
	}
}

func BenchmarkSwiGLU(b *testing.B) {
	neonBenchEach(b, 8, func(b *testing.B, kt *kernelTable, n int) {
		r := newRand(44)
		g, u, d := randomActs(r, n), randomActs(r, n), make([]float32, n)
		for b.Loop() {
			kt.swiGLU(d, g, u)
		}
	})
}

func BenchmarkRMSNorm(b *testing.B) {
	neonBenchEach(b, 4, func(b *testing.B, kt *kernelTable, n int) {
		x, d := randomActs(newRand(45), n), make([]float32, n)
		for b.Loop() {
			kt.rmsNorm(d, x, 1e-5)
		}
	})
}

func BenchmarkSoftMax(b *testing.B) {
	neonBenchEach(b, 4, func(b *testing.B, kt *kernelTable, n int) {
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
