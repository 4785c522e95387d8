package turbo

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkScores runs ScoreRows4 on m rows of src (stride bytes apart) into a
// dst of four strided score rows between guard bands, and compares it with
// scoreRowsGo: within tolScore of the terms' magnitude where both are
// finite, the same bits where either is not (an Inf or NaN term makes both
// Inf or NaN whatever the order; NaNs may differ in payload), and nothing
// written outside the first nq score rows' first m entries.
func checkScores(t testing.TB, label string, typ Type, q []float32, nq int, src []byte, stride, m int) {
	const guard = 11
	ds := m + 3                                  // score rows with a gap between them
	sentinel := math.Float32frombits(0x7fa5a5a5) // a NaN no kernel produces
	buf := make([]float32, guard+4*ds+guard)
	for i := range buf {
		buf[i] = sentinel
	}
	end := guard + max((nq-1)*ds+m, 0)
	dst := buf[guard:end:end]
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
		if isFinite32(g) && isFinite32(w) && !math.IsInf(mag, 0) {
			bad = math.Abs(float64(g)-float64(w)) > tolScore*mag
		}
		if bad {
			t.Fatalf("%s: %s nq=%d m=%d: query %d row %d: %v, reference %v (terms' magnitude %g)", label, typ, nq, m, j, row, g, w, mag)
		}
	}
}

func isFinite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// scoreQueries returns four queries of Gaussian values, those from nq on
// zero (as the engine passes them).
func scoreQueries(r *rand.Rand, nq int) []float32 {
	q := gaussianRow(r, 4*BlockSize)
	clear(q[nq*BlockSize:])
	return q
}

// scoreRows fills m rows (stride bytes apart) with encoded Gaussian rows
// and arbitrary bytes; with special, randomRows' mix of special norms (±0,
// subnormal, Inf, NaN), else finite norms only (a NaN row's scores are NaN
// in any order, so finite rows are what tells kernels apart).
func scoreRows(t testing.TB, r *rand.Rand, typ Type, src []byte, stride, m int, special bool) {
	if special {
		randomRows(t, r, typ, src, BlockSize, stride, m)
		return
	}
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	for row := range m {
		b := src[row*stride : row*stride+typ.BlockBytes()]
		if r.IntN(2) == 0 {
			copy(b, mustEncode(t, typ, gaussianRow(r, BlockSize)))
			continue
		}
		binary.LittleEndian.PutUint16(b, uint16(r.IntN(0x7c00))) // finite, positive
	}
}

// TestScoreRows4Kernels: every type at every kernel level against the
// reference: 1..4 queries for each of 0..9, 63..65 and 70 rows, strides of
// a block and beyond, misaligned source starts, guard bands around dst;
// finite norms in one pass, special ones in another.
func TestScoreRows4Kernels(t *testing.T) {
	forExpandImpls(t, func(impl string) {
		r := rand.New(rand.NewPCG(81, 82))
		for _, typ := range Types {
			bb := typ.BlockBytes()
			for _, special := range []bool{false, true} {
				for _, m := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65, 70} {
					for trial, extra := range []int{0, 1, 3 * bb, 7} {
						stride := bb + extra
						at := trial%4 + 1
						src := make([]byte, at+max(m-1, 0)*stride+bb)
						scoreRows(t, r, typ, src[at:], stride, max(m, 1), special)
						for nq := 1; nq <= 4; nq++ {
							label := fmt.Sprintf("%s special=%v stride=%d at=%d", impl, special, stride, at)
							checkScores(t, label, typ, scoreQueries(r, nq), nq, src[at:], stride, m)
						}
					}
				}
			}
		}
	})
}

// FuzzScoreRows4: arbitrary blocks, row counts, strides and query counts,
// every type at every kernel level, score within tolScore of the reference
// (norms forced finite for even seeds, so that NaN rows do not hide the
// rest).
func FuzzScoreRows4(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(0), uint8(0), make([]byte, 60))
	f.Add(uint8(1), uint8(66), uint8(5), uint8(3), []byte{0x01, 0x7e, 0xff, 0x00})
	f.Add(uint8(2), uint8(9), uint8(1), uint8(2), []byte{0x00, 0x7c, 0x12, 0x34, 0x56})
	f.Add(uint8(4), uint8(64), uint8(2), uint8(5), []byte{0x00, 0x3c, 0x9a, 0xbc})
	f.Fuzz(func(t *testing.T, sel, nRows, extra, nq uint8, data []byte) {
		typ := Types[int(sel)%len(Types)]
		bb := typ.BlockBytes()
		m, stride, q := int(nRows)%80, bb+int(extra)%64, 1+int(nq)%4
		src := make([]byte, max(m-1, 0)*stride+bb)
		for i := range src {
			if len(data) > 0 {
				src[i] = data[i%len(data)] ^ byte(i/len(data))
			}
		}
		if nq%2 == 0 {
			for row := range max(m, 1) {
				src[row*stride+1] &= 0x7b // exponent below 31: finite
			}
		}
		qs := scoreQueries(rand.New(rand.NewPCG(uint64(len(data)), uint64(nRows))), q)
		forExpandImpls(t, func(impl string) { checkScores(t, impl, typ, qs, q, src, stride, m) })
	})
}
