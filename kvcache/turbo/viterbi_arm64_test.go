//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestViterbiNEONMatchesGo: for both codes and every length from 1 to 128
// (the last step is a separate pass), Gaussian inputs at the encoder's
// scale and far off it, exact ties (zeros, repeated values), a NaN, and
// Inf; then the full encoder gives the Go search's bytes.
func TestViterbiNEONMatchesGo(t *testing.T) {
	setLevels(t, levelNEON, &viterbiImpl)
	r := rand.New(rand.NewPCG(81, 82))
	inputs := map[string]func(i int) float32{
		"gauss": func(int) float32 { return float32(r.NormFloat64() / 11.3) },
		"wide":  func(int) float32 { return float32(r.NormFloat64() * 1e3) },
		"zeros": func(int) float32 { return 0 },
		"ties":  func(i int) float32 { return float32(i%3) * 0.05 },
		"nan": func(i int) float32 {
			if i == 5 {
				return float32(math.NaN())
			}
			return float32(r.NormFloat64() / 11.3)
		},
		"inf": func(i int) float32 {
			if i == 7 {
				return float32(math.Inf(-1))
			}
			return float32(r.NormFloat64() / 11.3)
		},
	}
	for _, c := range []*tcqCode{&tcq3, &tcq2} {
		for name, gen := range inputs {
			for n := 1; n <= BlockSize; n++ {
				z := make([]float32, n)
				for i := range z {
					z[i] = gen(i)
				}
				checkViterbi(t, name, c, z)
			}
		}
	}
}

// TestTCQEncodeNEONMatchesGo: whole TCQ blocks (rotation and trellis on
// NEON) have the bytes of the Go-only encoder.
func TestTCQEncodeNEONMatchesGo(t *testing.T) {
	setLevels(t, levelNEON, &viterbiImpl, &rotateImpl)
	r := rand.New(rand.NewPCG(83, 84))
	for _, typ := range []Type{Turbo3TCQ, Turbo2TCQ, Turbo3, Turbo4, Turbo2} {
		for range 20 {
			x := gaussianRow(r, 2*BlockSize)
			got := mustEncode(t, typ, x)
			viterbiImpl, rotateImpl = levelGo, levelGo
			want := mustEncode(t, typ, x)
			viterbiImpl, rotateImpl = levelNEON, levelNEON
			if string(got) != string(want) {
				t.Fatalf("%s: NEON encode differs from Go:\n%x\n%x", typ, got, want)
			}
		}
	}
}

// FuzzViterbiNEON: arbitrary float32 bit patterns (any length up to 128)
// give the Go search's costs and predecessors.
func FuzzViterbiNEON(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3d})
	f.Add(uint8(1), []byte{1, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x7f, 0xcd, 0xcc, 0x4c, 0x3d})
	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		n := min(len(data)/4, BlockSize)
		if n == 0 {
			return
		}
		setLevels(t, levelNEON, &viterbiImpl)
		z := make([]float32, n)
		for i := range z {
			z[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		checkViterbi(t, "fuzz", []*tcqCode{&tcq3, &tcq2}[sel%2], z)
	})
}
