//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// fusedDot4KCases are the four-row K-quant kernels with the one-row dot
// whose bits each result must have.
var fusedDot4KCases = []struct {
	typ DType
	k   fusedDotFunc
	one vecDotFunc
}{
	{Q4_K, fusedDot4Q4_KVNNI, vecDotQ4_KVNNI},
	{Q6_K, fusedDot4Q6_KVNNI, vecDotQ6_KVNNI},
}

func skipNoFused4K(t testing.TB) {
	t.Helper()
	testenv.NeedKernelLevel(t, AVX512VNNI.String(), AVX512VNNI.Available())
}

// checkFused4K runs k on the four rows at w (rb bytes apart) against x and
// compares each result's bits with one on that row.
func checkFused4K(t *testing.T, typ DType, k fusedDotFunc, one vecDotFunc, w []byte, rb int, x []byte, n int, what string) {
	t.Helper()
	var out [4]float32
	k(n/QK_K, w, rb, x, &out)
	row := typ.RowBytes(n)
	for r := range 4 {
		want := one(n, w[r*rb:r*rb+row], x)
		if math.Float32bits(out[r]) != math.Float32bits(want) {
			t.Fatalf("%v n=%d rb=%d %s: row %d = %g (%#x), one-row dot %g (%#x)",
				typ, n, rb, what, r, out[r], math.Float32bits(out[r]), want, math.Float32bits(want))
		}
	}
}

// TestFusedDot4KBitsMatchOneRow: every super-block count from 1 to 9 and a
// few larger, with the rows back to back or a misaligned stride apart, the
// last row and the activations ending right at an inaccessible page (a read
// past either faults), random and all-extreme weights.
func TestFusedDot4KBitsMatchOneRow(t *testing.T) {
	skipNoFused4K(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range fusedDot4KCases {
		for _, groups := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32} {
			n := groups * QK_K
			row := c.typ.RowBytes(n)
			for _, pad := range []int{0, 13, 64} {
				rb := row + pad
				w := guardedBytes(t, 3*rb+row, 0)
				for i := range 4 {
					copy(w[i*rb:], randomWeights(r, c.typ, n))
				}
				xq, _ := quantizeActs(c.typ, randomActs(r, n))
				x := guardedBytes(t, len(xq), 0)
				copy(x, xq)
				checkFused4K(t, c.typ, c.k, c.one, w, rb, x, n, "random")
				for _, fill := range []byte{0x00, 0xff, 0x80, 0x7f, 0x88} {
					fillQuants(c.typ, w, fill)
					for _, sign := range []float32{1, -1} {
						xs := make([]float32, n)
						for i := range xs {
							xs[i] = sign * float32(1-2*(i%2))
						}
						xq, _ := quantizeActs(c.typ, xs)
						copy(x, xq)
						checkFused4K(t, c.typ, c.k, c.one, w, rb, x, n, fmt.Sprintf("fill %#x sign %g", fill, sign))
					}
				}
			}
		}
	}
}

// fillQuants sets every byte of the K-quant blocks in w but the fp16
// scales to fill, so scales, mins and quants sit at their bounds.
func fillQuants(typ DType, w []byte, fill byte) {
	bb := typ.BlockBytes()
	for b := 0; b+bb <= len(w); b += bb {
		lo, hi := 4, bb // Q4_K: d, dmin first
		if typ == Q6_K {
			lo, hi = 0, bb-2 // Q6_K: d last
		}
		for i := b + lo; i < b+hi; i++ {
			w[i] = fill
		}
	}
}

// FuzzFusedDot4K: four rows of fuzzer-chosen weight bytes (fp16 scales made
// finite) against activations from a seed; every result must have the
// bits of the one-row dot.
func FuzzFusedDot4K(f *testing.F) {
	f.Add(uint8(0), uint8(1), []byte{0x3c, 0x11, 0xff, 0x80}, uint64(1))
	f.Add(uint8(1), uint8(3), []byte{0xff, 0x7b, 0x00, 0x04}, uint64(2))
	f.Fuzz(func(t *testing.T, ti, ng uint8, raw []byte, seed uint64) {
		skipNoFused4K(t)
		c := fusedDot4KCases[int(ti)%len(fusedDot4KCases)]
		n := (1 + int(ng)%6) * QK_K
		rb := c.typ.RowBytes(n)
		w := make([]byte, 4*rb)
		for i := range w {
			if len(raw) > 0 {
				w[i] = raw[i%len(raw)] ^ byte(i*7)
			}
		}
		finiteWeights(c.typ, w)
		xq, _ := quantizeActs(c.typ, randomActs(newRand(seed), n))
		checkFused4K(t, c.typ, c.k, c.one, w, rb, xq, n, "fuzz")
	})
}
