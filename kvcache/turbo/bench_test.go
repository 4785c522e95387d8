package turbo

import (
	"math/rand/v2"
	"testing"
)

// Benchmarks run over benchRows rows of one 128-wide head, as attention
// streams over a cache, and report throughput in f32-equivalent bytes
// (4 bytes per value processed), so every type and an f32 cache compare on
// one scale. Run with -benchtime 200ms on shared machines.
const benchRows = 64

func benchData(b *testing.B, typ Type) (x []float32, rows []byte, q []float32) {
	r := rand.New(rand.NewPCG(41, 42))
	x = gaussianRow(r, benchRows*BlockSize)
	rows = make([]byte, benchRows*typ.BlockBytes())
	for i := range benchRows {
		if err := typ.Encode(rows[i*typ.BlockBytes():(i+1)*typ.BlockBytes()], x[i*BlockSize:(i+1)*BlockSize]); err != nil {
			b.Fatal(err)
		}
	}
	q = make([]float32, BlockSize)
	RotateQuery(q, gaussianRow(r, BlockSize))
	return x, rows, q
}

func forTypes(b *testing.B, f func(b *testing.B, typ Type, bb int)) {
	for _, typ := range Types {
		b.Run(typ.String()+"/128", func(b *testing.B) {
			b.SetBytes(benchRows * BlockSize * 4)
			f(b, typ, typ.BlockBytes())
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	forTypes(b, func(b *testing.B, typ Type, bb int) {
		x, rows, _ := benchData(b, typ)
		if typ.IsTCQ() {
			b.SetBytes(BlockSize * 4) // one row per op: the trellis is slow
			for b.Loop() {
				_ = typ.Encode(rows[:bb], x[:BlockSize])
			}
			return
		}
		for b.Loop() {
			for i := range benchRows {
				_ = typ.Encode(rows[i*bb:(i+1)*bb], x[i*BlockSize:(i+1)*BlockSize])
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	forTypes(b, func(b *testing.B, typ Type, bb int) {
		x, rows, _ := benchData(b, typ)
		for b.Loop() {
			for i := range benchRows {
				_ = typ.Decode(x[i*BlockSize:(i+1)*BlockSize], rows[i*bb:(i+1)*bb])
			}
		}
	})
}

func BenchmarkDotKey(b *testing.B) {
	forTypes(b, func(b *testing.B, typ Type, bb int) {
		_, rows, q := benchData(b, typ)
		var sink float32
		for b.Loop() {
			for i := range benchRows {
				sink += typ.DotKey(q, rows[i*bb:(i+1)*bb])
			}
		}
		_ = sink
	})
}

func BenchmarkAccumulateValue(b *testing.B) {
	forTypes(b, func(b *testing.B, typ Type, bb int) {
		_, rows, acc := benchData(b, typ)
		for b.Loop() {
			for i := range benchRows {
				typ.AccumulateValue(acc, 0.01, rows[i*bb:(i+1)*bb])
			}
		}
	})
}

// BenchmarkRotate is the per-head cost RotateQuery and UnrotateOutput add.
func BenchmarkRotate(b *testing.B) {
	x := make([]float32, BlockSize)
	b.SetBytes(BlockSize * 4)
	for b.Loop() {
		Rotate(x)
	}
}
