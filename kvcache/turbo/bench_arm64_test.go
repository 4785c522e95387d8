//go:build !purego

package turbo

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/waggle-llm/waggle/kernels"
)

// forNEON runs f as sub-benchmark "go" with the rotation and trellis
// search on the Go references and as "neon" with them on NEON. (ExpandRows
// has its levels in BenchmarkExpandRows.)
func forNEON(b *testing.B, name string, f func(b *testing.B)) {
	oldV, oldR := viterbiImpl, rotateImpl
	defer func() { viterbiImpl, rotateImpl = oldV, oldR }()
	viterbiImpl, rotateImpl = levelGo, levelGo
	b.Run(name+"/go", f)
	viterbiImpl, rotateImpl = levelNEON, levelNEON
	b.Run(name+"/neon", f)
}

// BenchmarkRotateNEON: one 128-value rotation (RotateQuery, UnrotateOutput
// and every encoded group pay it), in f32 bytes rotated.
func BenchmarkRotateNEON(b *testing.B) {
	x := gaussianRow(rand.New(rand.NewPCG(91, 92)), BlockSize)
	forNEON(b, "128", func(b *testing.B) {
		b.SetBytes(BlockSize * 4)
		for b.Loop() {
			Rotate(x)
		}
	})
}

// BenchmarkViterbiNEON: the trellis search of one 128-value group, in f32
// bytes searched.
func BenchmarkViterbiNEON(b *testing.B) {
	z := gaussianRow(rand.New(rand.NewPCG(93, 94)), BlockSize)
	for i := range z {
		z[i] /= 11.3
	}
	for _, c := range []*tcqCode{&tcq3, &tcq2} {
		var path [BlockSize]uint16
		forNEON(b, "k="+string(rune('0'+c.k)), func(b *testing.B) {
			b.SetBytes(BlockSize * 4)
			for b.Loop() {
				c.viterbi(z, path[:])
			}
		})
	}
}

// BenchmarkEncodeNEON: Encode of one 128-value row per type, Go against
// NEON (rotation, and the trellis for TCQ), in f32 bytes encoded.
func BenchmarkEncodeNEON(b *testing.B) {
	x := gaussianRow(rand.New(rand.NewPCG(95, 96)), BlockSize)
	for _, typ := range Types {
		row := make([]byte, typ.BlockBytes())
		forNEON(b, typ.String(), func(b *testing.B) {
			b.SetBytes(BlockSize * 4)
			for b.Loop() {
				_ = typ.Encode(row, x)
			}
		})
	}
}

// BenchmarkFusedNEON: one KV head's 4096 rows (8 heads interleaved, as in
// a cache) for four query heads, in the engine's chunks of 64 rows: scores
// and value sums, fused from the blocks against expanding each chunk
// (ExpandRows) and running the float32 kernels on it; bytes are the blocks
// read, for every type (the scalar value kernel switched on for it). (Speed
// cannot be measured under qemu; run on arm64 hardware.)
func BenchmarkFusedNEON(b *testing.B) {
	const rows, heads, chunk = 4096, 8, 64
	r := rand.New(rand.NewPCG(97, 98))
	q := gaussianRow(r, 4*BlockSize)
	p := make([]float32, 4*chunk)
	for i := range p {
		p[i] = r.Float32() / chunk
	}
	scores := make([]float32, 4*chunk)
	acc := make([]float32, 4*BlockSize)
	exp := make([]float32, chunk*BlockSize)
	expBytes := unsafe.Slice((*byte)(unsafe.Pointer(&exp[0])), 4*len(exp))
	qBytes := unsafe.Slice((*byte)(unsafe.Pointer(&q[0])), 4*len(q))
	defer func(old bool) { fusedScalarValues = old }(fusedScalarValues)
	fusedScalarValues = true // measure the scalar value kernel too (off in production)
	for _, typ := range Types {
		bb := typ.BlockBytes()
		stride := heads * bb
		src := make([]byte, rows*stride)
		for i := range rows {
			copy(src[i*stride:], mustEncode(b, typ, gaussianRow(r, BlockSize)))
		}
		run := func(name string, f func(blocks []byte)) {
			b.Run(typ.String()+"/"+name, func(b *testing.B) {
				b.SetBytes(rows * int64(bb))
				for b.Loop() {
					for at := 0; at < rows; at += chunk {
						f(src[at*stride:])
					}
				}
			})
		}
		run("scores/fused", func(s []byte) { typ.ScoreRows4(scores, chunk, q, 4, s, stride, chunk) })
		run("scores/expand", func(s []byte) {
			typ.ExpandRows(exp, s, stride, chunk)
			for j := range 4 {
				kernels.AttnScores(kernels.F32, scores[j*chunk:(j+1)*chunk], expBytes, 4*BlockSize, qBytes[j*4*BlockSize:(j+1)*4*BlockSize], BlockSize)
			}
		})
		run("values/fused", func(s []byte) { typ.AccumulateRows4(acc, BlockSize, p, chunk, 4, s, stride, chunk) })
		run("values/expand", func(s []byte) {
			typ.ExpandRows(exp, s, stride, chunk)
			for j := range 4 {
				kernels.AttnValues(kernels.F32, acc[j*BlockSize:(j+1)*BlockSize], p[j*chunk:(j+1)*chunk], expBytes, 4*BlockSize)
			}
		})
	}
}
