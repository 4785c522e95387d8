//go:build !purego

package turbo

import (
	"math/rand/v2"
	"testing"
)

// forNEON runs f as sub-benchmark "go" with the NEON kernels off and, when
// this CPU has them, as "neon". (ExpandRows has its levels in
// BenchmarkExpandRows.)
func forNEON(b *testing.B, name string, f func(b *testing.B)) {
	old := useNEON
	defer func() { useNEON = old }()
	useNEON = false
	b.Run(name+"/go", f)
	if old {
		useNEON = true
		b.Run(name+"/neon", f)
	}
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
