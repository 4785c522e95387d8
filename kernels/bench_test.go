package kernels

import (
	"fmt"
	"testing"
)

// Benchmarks are named Benchmark<Op>/<type>/<impl>/<n> (or <Op>/<impl>/<n>)
// and report bytes per second of the weights (or inputs) read, so that
// benchstat shows GB/s per implementation.

var benchSink float32

func BenchmarkVecDot(b *testing.B) {
	for _, typ := range weightTypes {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			for _, n := range []int{4096} {
				r := newRand(20)
				w := randomWeights(r, typ, n)
				xq, _ := quantizeActs(typ, randomActs(r, n))
				f := kt.vecDot[typ]
				b.Run(fmt.Sprintf("%v/%s/%d", typ, name, n), func(b *testing.B) {
					b.SetBytes(int64(len(w)))
					for b.Loop() {
						benchSink += f(n, w, xq)
					}
				})
			}
		}
	}
}

func BenchmarkQuantizeRow(b *testing.B) {
	for _, typ := range []DType{Q8_0, Q8_1, Q8_K, F16} {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			const n = 4096
			x := randomActs(newRand(21), n)
			dst := make([]byte, typ.RowBytes(n))
			f := kt.quantize[typ]
			b.Run(fmt.Sprintf("%v/%s/%d", typ, name, n), func(b *testing.B) {
				b.SetBytes(4 * n)
				for b.Loop() {
					f(dst, x)
				}
			})
		}
	}
}

func BenchmarkDot(b *testing.B) {
	for _, name := range Impls() {
		kt, _ := resolve(name)
		for _, n := range []int{64, 4096} {
			r := newRand(22)
			x, y := randomActs(r, n), randomActs(r, n)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					benchSink += kt.dot(x, y)
				}
			})
		}
	}
}
