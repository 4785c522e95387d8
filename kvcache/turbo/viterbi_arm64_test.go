//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// checkViterbiNEON compares the NEON trellis steps with viterbiStepsGo on z:
// final costs bit for bit and every step's best predecessors. When z holds
// two different NaNs a NaN cost matches any NaN (which payload an addition
// of two NaNs keeps follows operand order, the compiler's choice in the
// reference); the predecessors must still agree.
func checkViterbiNEON(t *testing.T, label string, c *tcqCode, z []float32) {
	t.Helper()
	nans := map[uint32]bool{}
	for _, v := range z {
		if v != v {
			nans[math.Float32bits(v)] = true
		}
	}
	var want, got, b [512]float32
	var best [64]float32
	var btWant, btGot [BlockSize][64]uint8
	for i := range btGot {
		for j := range btGot[i] {
			btGot[i][j] = 0xee // every row the kernel owns must be written
		}
	}
	wantCost := c.viterbiStepsGo(z, &want, &b, &best, &btWant)
	if !c.viterbiSteps(z, &got, &btGot) {
		t.Fatal("viterbiSteps did not run")
	}
	for s := range c.states() {
		g, w := got[s], wantCost[s]
		if math.Float32bits(g) != math.Float32bits(w) && !(len(nans) > 1 && g != g && w != w) {
			t.Fatalf("%s k=%d n=%d: cost[%d] = %#x (%v), Go %#x (%v)", label, c.k, len(z), s,
				math.Float32bits(g), g, math.Float32bits(w), w)
		}
	}
	for i := range len(z) {
		if btGot[i] != btWant[i] {
			t.Fatalf("%s k=%d n=%d: predecessors of step %d differ:\n%v\n%v", label, c.k, len(z), i, btGot[i], btWant[i])
		}
	}
	for i := len(z); i < BlockSize; i++ {
		if btGot[i][0] != 0xee || btGot[i][63] != 0xee {
			t.Fatalf("%s k=%d n=%d: bt[%d] written past the steps", label, c.k, len(z), i)
		}
	}
}

// TestViterbiNEONMatchesGo: for both codes and every length from 1 to 128
// (the last step is a separate pass), Gaussian inputs at the encoder's
// scale and far off it, exact ties (zeros, repeated values), a NaN, and
// Inf; then the full encoder gives the Go search's bytes.
func TestViterbiNEONMatchesGo(t *testing.T) {
	if !useNEON {
		t.Skip("NEON disabled")
	}
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
				checkViterbiNEON(t, name, c, z)
			}
		}
	}
}

// TestTCQEncodeNEONMatchesGo: whole TCQ blocks (rotation and trellis on
// NEON) have the bytes of the Go-only encoder.
func TestTCQEncodeNEONMatchesGo(t *testing.T) {
	if !useNEON {
		t.Skip("NEON disabled")
	}
	r := rand.New(rand.NewPCG(83, 84))
	for _, typ := range []Type{Turbo3TCQ, Turbo2TCQ, Turbo3, Turbo4, Turbo2} {
		for range 20 {
			x := gaussianRow(r, 2*BlockSize)
			got := mustEncode(t, typ, x)
			useNEON = false
			want := mustEncode(t, typ, x)
			useNEON = true
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
		if !useNEON || n == 0 {
			return
		}
		z := make([]float32, n)
		for i := range z {
			z[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		checkViterbiNEON(t, "fuzz", []*tcqCode{&tcq3, &tcq2}[sel%2], z)
	})
}
