//go:build !purego

package turbo

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fusedKernelBuilt: this build has the NEON scoring kernels, on at the NEON
// expansion level.
const fusedKernelBuilt = true

// fusedScoresWant: at the NEON level every type's scores are fused (the
// scalar types from row records, scalar_arm64.go); below it none.
func fusedScoresWant(typ Type) bool { return scoreImpl == levelNEON && typ.Valid() }

func init() { fusedScoresWantARM64 = fusedScoresWant }

// atNEON puts the expansion, scoring and value families on the NEON level
// (on which the fused kernels run) for the rest of the test, whatever
// level is selected.
func atNEON(t testing.TB) {
	setLevels(t, levelNEON, &expandImpl, &scoreImpl, &accumImpl)
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
				checkScores(t, fmt.Sprintf("neon special=%v", special), typ, scoreQueries(r, nq), nq, src[at:], stride, m)
			}
		}
	}
}

// TestScoreRows4NEONOff: below the NEON level (WAGGLE_KERNELS=generic)
// nothing is fused.
func TestScoreRows4NEONOff(t *testing.T) {
	setLevels(t, levelGo, &expandImpl, &scoreImpl, &accumImpl)
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
		qs := scoreQueries(rand.New(rand.NewPCG(uint64(len(data)), uint64(nRows))), q)
		checkScores(t, "fuzz", typ, qs, q, src, stride, m)
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
