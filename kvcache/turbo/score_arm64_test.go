//go:build !purego

package turbo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// fusedKernelBuilt: this build has the NEON scoring kernels, on at the NEON
// expansion level.
const fusedKernelBuilt = true

// fusedScoresWant: at the NEON level every type's scores are fused (the
// scalar types from row records, scalar_arm64.go); below it none.
func fusedScoresWant(typ Type) bool { return expandImpl == expandNEON && typ.Valid() }

func init() { fusedScoresWantARM64 = fusedScoresWant }

// atNEON sets the NEON expansion level (on which the fused kernels run)
// for the rest of the test, or skips it on a CPU without NEON or under
// WAGGLE_KERNELS=generic.
func atNEON(t testing.TB) {
	if expandBest < expandNEON {
		t.Skip("no NEON level here (WAGGLE_KERNELS=generic?)")
	}
	old := expandImpl
	t.Cleanup(func() { expandImpl = old })
	expandImpl = expandNEON
}

// checkScoreNEON runs ScoreRows4 on m rows of src (stride bytes apart) into
// a dst of four strided score rows between guard bands, and compares it
// with scoreRowsGo: within tolScore of the terms' magnitude where the
// reference is finite, the same bits where either is not (an Inf or NaN
// term makes both Inf or NaN whatever the order), and nothing written
// outside the first nq score rows' first m entries.
func checkScoreNEON(t testing.TB, label string, typ Type, q []float32, nq int, src []byte, stride, m int) {
	const guard = 11
	ds := m + 3                                  // score rows with a gap between them
	sentinel := math.Float32frombits(0x7fa5a5a5) // a NaN no kernel produces
	buf := make([]float32, guard+4*ds+guard)
	for i := range buf {
		buf[i] = sentinel
	}
	dst := buf[guard : guard+(nq-1)*ds+m : guard+(nq-1)*ds+m]
	want := make([]float32, len(dst))
	typ.ScoreRows4(dst, ds, q, nq, src, stride, m)
	scoreRowsGo(typ, want, ds, q, nq, src, stride, m)
	bb := typ.BlockBytes()
	var v [BlockSize]float32
	for i, g := range buf {
		at := i - guard
		j, row := at/ds, at%ds
		if at < 0 || j >= nq || row >= m {
			if math.Float32bits(g) != math.Float32bits(sentinel) {
				t.Fatalf("%s: %s nq=%d m=%d: element %d outside the scores written: %v", label, typ, nq, m, at, g)
			}
			continue
		}
		w := want[at]
		decodeBlock(typ, &v, src[row*stride:row*stride+bb])
		var mag float64
		for i := range v {
			mag += math.Abs(float64(q[j*BlockSize+i]) * float64(v[i]))
		}
		bad := math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w)
		if finite(g) && finite(w) && !math.IsInf(mag, 0) {
			bad = math.Abs(float64(g)-float64(w)) > tolScore*mag
		}
		if bad {
			t.Fatalf("%s: %s nq=%d m=%d: query %d row %d: %v, reference %v (terms' magnitude %g)", label, typ, nq, m, j, row, g, w, mag)
		}
	}
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// randomQueries returns four queries of Gaussian values, those from nq on
// zero (as the engine passes them).
func randomQueries(r *rand.Rand, nq int) []float32 {
	q := gaussianRow(r, 4*BlockSize)
	clear(q[nq*BlockSize:])
	return q
}

// TestScoreRows4NEON: the fused kernels (TCQ, and the scalar types from
// row records) against the reference, 1..4 queries, 0..9, 31..33 (the
// record passes), 64, 65 and 70 rows, strides equal to and beyond a
// block, misaligned source starts, guard bands around dst; rows of encoded
// values and arbitrary bytes with finite norms, then in a pass of their
// own with special norms too (±0, subnormal, Inf, NaN).
func TestScoreRows4NEON(t *testing.T) {
	atNEON(t)
	r := rand.New(rand.NewPCG(71, 72))
	for _, typ := range Types {
		if !typ.FusedScores() {
			t.Fatalf("%s: no fused scores at the NEON level", typ)
		}
		bb := typ.BlockBytes()
		for _, m := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 64, 65, 70} {
			for try := range 8 {
				nq, special := 1+try%4, try >= 4
				trial := m + try
				stride := bb + []int{0, 1, 3 * bb, 7}[trial%4]
				at := trial % 4
				src := make([]byte, at+max(m-1, 0)*stride+bb)
				randomRows(t, r, typ, src[at:], BlockSize, stride, max(m, 1))
				if !special {
					finiteNorms(src[at:], stride, max(m, 1))
				}
				checkScoreNEON(t, fmt.Sprintf("neon special=%v", special), typ, randomQueries(r, nq), nq, src[at:], stride, m)
			}
		}
	}
}

// TestScoreRows4NEONOff: below the NEON level (WAGGLE_KERNELS=generic)
// nothing is fused.
func TestScoreRows4NEONOff(t *testing.T) {
	old := expandImpl
	defer func() { expandImpl = old }()
	expandImpl = expandGo
	for _, typ := range Types {
		if typ.FusedScores() || typ.FusedValues() {
			t.Errorf("%s fused at the Go level", typ)
		}
	}
}

// FuzzScoreRows4NEON: arbitrary blocks of every type, row counts, strides
// and query counts score within tolScore of the reference.
func FuzzScoreRows4NEON(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(0), uint8(0), make([]byte, 60))
	f.Add(uint8(1), uint8(66), uint8(5), uint8(3), []byte{0x01, 0x7e, 0xff, 0x00})
	f.Add(uint8(0), uint8(9), uint8(1), uint8(2), []byte{0x00, 0x7c, 0x12, 0x34, 0x56})
	f.Add(uint8(2), uint8(33), uint8(2), uint8(1), []byte{0x31, 0x2c, 0xe4, 0x1b, 0x9c}) // turbo2 over two record passes
	f.Add(uint8(3), uint8(70), uint8(0), uint8(3), []byte{0x01, 0x7c, 0x0f, 0xf0})       // turbo4, an Inf norm
	f.Add(uint8(4), uint8(40), uint8(9), uint8(0), []byte{0x55, 0x3a, 0xa5, 0x81, 0x7e}) // turbo3
	f.Fuzz(func(t *testing.T, sel, nRows, extra, nq uint8, data []byte) {
		atNEON(t)
		typ := Types[int(sel)%len(Types)]
		bb := typ.BlockBytes()
		m, stride, q := int(nRows)%80, bb+int(extra)%64, 1+int(nq)%4
		src := fuzzRows(data, max(m-1, 0)*stride+bb)
		qs := randomQueries(rand.New(rand.NewPCG(uint64(len(data)), uint64(nRows))), q)
		checkScoreNEON(t, "fuzz", typ, qs, q, src, stride, m)
	})
}

// fuzzRows spreads data over n bytes (each repeat XORed with its count, so
// a short input still gives varied blocks).
func fuzzRows(data []byte, n int) []byte {
	src := make([]byte, n)
	for i := range src {
		if len(data) > 0 {
			src[i] = data[i%len(data)] ^ byte(i/len(data))
		}
	}
	return src
}
