//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// forViterbiImpls runs f once per assembly trellis search this CPU runs,
// with viterbiImpl set to it.
func forViterbiImpls(t testing.TB, f func(name string)) {
	forFamilyLevels(t, &viterbiImpl, func(name string) {
		if viterbiImpl != levelGo {
			f(name)
		}
	})
}

// TestViterbiImplsMatchGo: every assembly trellis search leaves the Go
// search's final costs (bit for bit) and best predecessors, for both codes,
// every length from 1 to 128 (odd and even step counts, the separate last
// step), Gaussian inputs at the encoder's scale and far off it, tiny
// (subnormal) values, exact ties (zeros, repeated values), huge values whose
// squares overflow, a NaN and an Inf.
func TestViterbiImplsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	gauss := func(int) float32 { return float32(r.NormFloat64() / 11.3) }
	inputs := map[string]func(i int) float32{
		"gauss": gauss,
		"wide":  func(int) float32 { return float32(r.NormFloat64() * 1e3) },
		"tiny":  func(int) float32 { return float32(r.NormFloat64() * 1e-39) },
		"zeros": func(int) float32 { return 0 },
		"ties":  func(i int) float32 { return float32(i%3) * 0.05 },
		"huge": func(i int) float32 {
			if i%17 == 3 {
				return float32(math.Copysign(3e38, r.NormFloat64()))
			}
			return gauss(i)
		},
		"nan": func(i int) float32 {
			if i == 5 {
				return float32(math.NaN())
			}
			return gauss(i)
		},
		"inf": func(i int) float32 {
			if i == 7 {
				return float32(math.Inf(-1))
			}
			return gauss(i)
		},
	}
	forViterbiImpls(t, func(impl string) {
		for _, c := range []*tcqCode{&tcq3, &tcq2} {
			for name, gen := range inputs {
				for n := 1; n <= BlockSize; n++ {
					z := make([]float32, n)
					for i := range z {
						z[i] = gen(i)
					}
					checkViterbi(t, impl+" "+name, c, z)
				}
			}
		}
	})
}

// TestTCQEncodeImplsMatchGo: whole blocks of every type encode to the same
// bytes with every kernel level as with the Go references (trellis search
// and rotation both switched).
func TestTCQEncodeImplsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	oldV, oldR := viterbiImpl, rotateImpl
	defer func() { viterbiImpl, rotateImpl = oldV, oldR }()
	asm := familyLevels(t, &viterbiImpl)[1:]
	for _, typ := range Types {
		for range 20 {
			x := gaussianRow(r, 2*BlockSize)
			viterbiImpl, rotateImpl = levelGo, levelGo
			want := mustEncode(t, typ, x)
			for _, impl := range asm {
				viterbiImpl, rotateImpl = impl, levelAVX2
				if got := mustEncode(t, typ, x); string(got) != string(want) {
					t.Fatalf("%s %s: encode differs from Go:\n%x\n%x", levelName(impl), typ, got, want)
				}
			}
		}
	}
}

// FuzzViterbiImpls: arbitrary float32 bit patterns (any length up to 128)
// give the Go search's costs and predecessors with every assembly search.
func FuzzViterbiImpls(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3d})
	f.Add(uint8(1), []byte{1, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x7f, 0xcd, 0xcc, 0x4c, 0x3d})
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3d, 0xcd, 0xcc, 0x4c, 0xbd, 0, 0, 0, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		n := min(len(data)/4, BlockSize)
		if n == 0 {
			return
		}
		z := make([]float32, n)
		for i := range z {
			z[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		c := []*tcqCode{&tcq3, &tcq2}[sel%2]
		forViterbiImpls(t, func(impl string) { checkViterbi(t, impl+" fuzz", c, z) })
	})
}
