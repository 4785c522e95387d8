//go:build !purego

package turbo

import (
	"math/rand/v2"
	"testing"
)

// forLevels runs f as sub-benchmark name/<level> for every kernel level
// this CPU has, with the trellis search and the rotation set to it
// (ExpandRows has its levels in BenchmarkExpandRows). Levels of one name
// run back to back, so -count interleaves them.
func forLevels(b *testing.B, name string, f func(b *testing.B)) {
	oldV, oldR := viterbiImpl, rotateImpl
	defer func() { viterbiImpl, rotateImpl = oldV, oldR }()
	for _, impl := range familyLevels(b, &viterbiImpl) {
		viterbiImpl, rotateImpl = impl, min(impl, levelAVX2)
		b.Run(name+"/"+levelName(impl), f)
	}
}

// BenchmarkRotateImpls: one 128-value rotation (RotateQuery,
// UnrotateOutput and every encoded group pay it), in f32 bytes rotated.
func BenchmarkRotateImpls(b *testing.B) {
	x := gaussianRow(rand.New(rand.NewPCG(91, 92)), BlockSize)
	forLevels(b, "128", func(b *testing.B) {
		b.SetBytes(BlockSize * 4)
		for b.Loop() {
			Rotate(x)
		}
	})
}

// BenchmarkViterbiImpls: the trellis search of one 128-value group (steps,
// final argmin and backtrack), in f32 bytes searched.
func BenchmarkViterbiImpls(b *testing.B) {
	z := gaussianRow(rand.New(rand.NewPCG(93, 94)), BlockSize)
	for i := range z {
		z[i] /= 11.3
	}
	for _, c := range []*tcqCode{&tcq3, &tcq2} {
		var path [BlockSize]uint16
		forLevels(b, "k="+string(rune('0'+c.k)), func(b *testing.B) {
			b.SetBytes(BlockSize * 4)
			for b.Loop() {
				c.viterbi(z, path[:])
			}
		})
	}
}

// BenchmarkEncodeImpls: Encode of one 128-value row per type at every
// level (rotation, and the trellis for TCQ), in f32 bytes encoded.
func BenchmarkEncodeImpls(b *testing.B) {
	x := gaussianRow(rand.New(rand.NewPCG(95, 96)), BlockSize)
	for _, typ := range Types {
		row := make([]byte, typ.BlockBytes())
		forLevels(b, typ.String(), func(b *testing.B) {
			b.SetBytes(BlockSize * 4)
			for b.Loop() {
				_ = typ.Encode(row, x)
			}
		})
	}
}
