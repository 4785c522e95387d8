//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// checkAccumNEON runs AccumulateRows4 (the fused kernel where FusedValues)
// and accumulateRowsGo from the same starting sums: nq heads' sums accStride
// apart at offset off of a buffer with guard bands, weights pStride apart,
// m rows of src stride bytes apart. Every element must have the
// reference's bits (NaN payloads included) and nothing outside the nq
// heads' 128 sums may change.
func checkAccumNEON(t testing.TB, label string, r *rand.Rand, typ Type, nq, m int, p []float32, pStride int, src []byte, stride, off int) {
	const guard, accStride = 13, BlockSize + 9
	sentinel := math.Float32frombits(0x7fa5a5a5) // a NaN no kernel produces
	got := make([]float32, guard+off+4*accStride+guard)
	for i := range got {
		got[i] = sentinel
	}
	n := (nq-1)*accStride + BlockSize
	for j := range nq {
		for i := range BlockSize {
			got[guard+off+j*accStride+i] = float32(r.NormFloat64()) // sums carried over from earlier rows
		}
	}
	want := append([]float32(nil), got...)
	typ.AccumulateRows4(got[guard+off:guard+off+n:guard+off+n], accStride, p, pStride, nq, src, stride, m)
	accumulateRowsGo(typ, want[guard+off:guard+off+n], accStride, p, pStride, nq, src, stride, m)
	for i := range got {
		at := i - guard - off
		if at >= 0 && at/accStride < nq && at%accStride < BlockSize {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: %s nq=%d m=%d: head %d sum %d = %#x (%v), reference %#x (%v)", label, typ, nq, m,
					at/accStride, at%accStride, math.Float32bits(got[i]), got[i], math.Float32bits(want[i]), want[i])
			}
		} else if math.Float32bits(got[i]) != math.Float32bits(sentinel) {
			t.Fatalf("%s: %s nq=%d m=%d: element %d outside the sums written: %v", label, typ, nq, m, at, got[i])
		}
	}
}

// randomWeights returns nq heads' weights for m rows, pStride apart:
// probabilities with exact zeros and ones among them.
func randomWeights(r *rand.Rand, nq, m, pStride int) []float32 {
	p := make([]float32, (nq-1)*pStride+m)
	for i := range p {
		switch r.IntN(8) {
		case 0:
			p[i] = 0
		case 1:
			p[i] = 1
		default:
			p[i] = r.Float32()
		}
	}
	return p
}

// finiteNorms replaces each Inf or NaN norm of m one-block rows by a finite
// one: one such row makes every sum Inf or NaN, hiding all the others.
func finiteNorms(src []byte, stride, m int) {
	for r := range m {
		if b := src[r*stride:]; binary.LittleEndian.Uint16(b)&0x7c00 == 0x7c00 {
			b[1] &^= 0x40 // exponent 0b01111 at most: |N| < 2
		}
	}
}

// withScalarValues turns the scalar value kernel on for the rest of the
// test (production keeps it off: scalar_arm64.go).
func withScalarValues(t testing.TB) {
	old := fusedScalarValues
	t.Cleanup(func() { fusedScalarValues = old })
	fusedScalarValues = true
}

// TestAccumulateRows4NEON: the fused kernels (TCQ, and the scalar types
// from row records) give the reference's bits on rows of encoded values,
// arbitrary bytes and special norms (±0, subnormal; Inf and NaN in a
// second pass, as they reach every sum), 1..4 heads, 1..9, 31..33 (the
// scalar record passes), 64, 65, 70 and 129 rows (the wrapper's chunks of
// 64), strides equal to and beyond a block, misaligned source and sum
// starts, guard bands around the sums.
func TestAccumulateRows4NEON(t *testing.T) {
	atNEON(t)
	withScalarValues(t)
	r := rand.New(rand.NewPCG(73, 74))
	for _, typ := range Types {
		if !typ.FusedValues() {
			t.Fatalf("%s: no fused values at the NEON level", typ)
		}
		bb := typ.BlockBytes()
		for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 64, 65, 70, 129} {
			for try := range 8 {
				nq, special := 1+try%4, try >= 4
				trial := m + nq
				stride := bb + []int{0, 1, 3 * bb, 7}[trial%4]
				at := trial % 3
				src := make([]byte, at+(m-1)*stride+bb)
				randomRows(t, r, typ, src[at:], BlockSize, stride, m)
				if !special {
					finiteNorms(src[at:], stride, m)
				}
				pStride := m + trial%5
				p := randomWeights(r, nq, m, pStride)
				checkAccumNEON(t, "neon", r, typ, nq, m, p, pStride, src[at:], stride, trial%4)
			}
		}
	}
}

// TestAccumulateRows4NEONNoAlloc: the wrapper's packing stays on the stack.
func TestAccumulateRows4NEONNoAlloc(t *testing.T) {
	atNEON(t)
	withScalarValues(t)
	for _, typ := range Types {
		const m = 70
		src := make([]byte, m*typ.BlockBytes())
		acc := make([]float32, 4*BlockSize)
		p := make([]float32, 4*m)
		q := make([]float32, 4*BlockSize)
		dst := make([]float32, 4*m)
		for nq := 1; nq <= 4; nq++ {
			if a := testing.AllocsPerRun(10, func() {
				typ.AccumulateRows4(acc, BlockSize, p, m, nq, src, typ.BlockBytes(), m)
				typ.ScoreRows4(dst, m, q, nq, src, typ.BlockBytes(), m)
			}); a != 0 {
				t.Errorf("%s nq=%d: %v allocations", typ, nq, a)
			}
		}
	}
}

// FuzzAccumulateRows4NEON: arbitrary blocks of every type, row counts, strides and head
// counts accumulate to the reference's bits (Inf and NaN norms only when
// extra has bit 6 set, as one reaches every sum).
func FuzzAccumulateRows4NEON(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(0), uint8(0), make([]byte, 60))
	f.Add(uint8(1), uint8(66), uint8(5), uint8(3), []byte{0x01, 0x7e, 0xff, 0x00})
	f.Add(uint8(0), uint8(9), uint8(1), uint8(2), []byte{0x00, 0x7c, 0x12, 0x34, 0x56})
	f.Add(uint8(1), uint8(20), uint8(64+3), uint8(1), []byte{0x00, 0x7c, 0x01, 0x7e, 0x55}) // Inf and NaN norms kept
	f.Add(uint8(2), uint8(33), uint8(2), uint8(3), []byte{0x31, 0x2c, 0xe4, 0x1b, 0x9c})    // turbo2 over two record passes
	f.Add(uint8(3), uint8(70), uint8(64), uint8(2), []byte{0x01, 0x7c, 0x0f, 0xf0})         // turbo4, an Inf norm
	f.Add(uint8(4), uint8(40), uint8(9), uint8(0), []byte{0x55, 0x3a, 0xa5, 0x81, 0x7e})    // turbo3
	f.Fuzz(func(t *testing.T, sel, nRows, extra, nq uint8, data []byte) {
		atNEON(t)
		withScalarValues(t)
		typ := Types[int(sel)%len(Types)]
		bb := typ.BlockBytes()
		m, stride, heads := 1+int(nRows)%140, bb+int(extra)%64, 1+int(nq)%4
		src := fuzzRows(data, (m-1)*stride+bb)
		if extra&64 == 0 {
			finiteNorms(src, stride, m)
		}
		r := rand.New(rand.NewPCG(uint64(len(data)), uint64(nRows)))
		pStride := m + int(extra)%3
		checkAccumNEON(t, "fuzz", r, typ, heads, m, randomWeights(r, heads, m, pStride), pStride, src, stride, int(extra)%4)
	})
}
