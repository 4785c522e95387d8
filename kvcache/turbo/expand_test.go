package turbo

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// forExpandImpls runs f once per ExpandRows kernel level this CPU runs
// (the Go reference first), with expandImpl set to it; the fused scoring
// and value families take the same levels (levels_<arch>.go), so the
// tests of FusedScores and FusedValues set them too.
func forExpandImpls(t testing.TB, f func(name string)) {
	old := [3]int{expandImpl, scoreImpl, accumImpl}
	defer func() { expandImpl, scoreImpl, accumImpl = old[0], old[1], old[2] }()
	for _, l := range familyLevels(t, &expandImpl) {
		expandImpl, scoreImpl, accumImpl = l, l, l
		f(levelName(l))
	}
}

// randomRows fills n rows of w values, stride bytes apart, with a mix of
// encoded Gaussian rows, arbitrary bytes, and special norms (±0, subnormal,
// Inf, NaN, quiet and signalling).
func randomRows(t testing.TB, r *rand.Rand, typ Type, src []byte, w, stride, n int) {
	rb := typ.RowBytes(w)
	special := []uint16{0x0000, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfd55, 0x7bff}
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	for row := range n {
		b := src[row*stride : row*stride+rb]
		switch r.IntN(3) {
		case 0:
			copy(b, mustEncode(t, typ, gaussianRow(r, w)))
		case 1:
			for g := 0; g < len(b); g += typ.BlockBytes() {
				binary.LittleEndian.PutUint16(b[g:], special[r.IntN(len(special))])
			}
		}
	}
}

// expandWant is the reference: DecodeRotated of each row.
func expandWant(t testing.TB, typ Type, src []byte, w, stride, n int) []float32 {
	want := make([]float32, n*w)
	rb := typ.RowBytes(w)
	for row := range n {
		if err := typ.DecodeRotated(want[row*w:(row+1)*w], src[row*stride:row*stride+rb]); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// checkExpand runs ExpandRows into dst at offset off of a buffer with guard
// bands and compares it bit for bit with want.
func checkExpand(t testing.TB, label string, typ Type, src []byte, w, stride, n, off int, want []float32) {
	const guard = 19
	sentinel := math.Float32frombits(0x7fa5a5a5) // a NaN no kernel produces
	buf := make([]float32, guard+off+n*w+guard)
	for i := range buf {
		buf[i] = sentinel
	}
	dst := buf[guard+off : guard+off+n*w : guard+off+n*w]
	typ.ExpandRows(dst, src, stride, n)
	for i, v := range dst {
		if math.Float32bits(v) != math.Float32bits(want[i]) {
			t.Fatalf("%s: %s n=%d w=%d stride=%d: dst[%d] = %#x (%g), DecodeRotated %#x (%g)",
				label, typ, n, w, stride, i, math.Float32bits(v), v, math.Float32bits(want[i]), want[i])
		}
	}
	for i, v := range buf {
		if (i < guard+off || i >= guard+off+n*w) && math.Float32bits(v) != math.Float32bits(sentinel) {
			t.Fatalf("%s: %s n=%d w=%d: guard element %d overwritten", label, typ, n, w, i)
		}
	}
}

// TestExpandRowsMatchesDecodeRotated: every kernel level gives DecodeRotated's
// bits for every type, row counts 0..9 (around the unrolled block), widths of
// 1..3 blocks, strides equal to and larger than the row, misaligned source
// and destination starts, and guard bands on both sides of dst.
func TestExpandRowsMatchesDecodeRotated(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	forExpandImpls(t, func(name string) {
		for _, typ := range Types {
			for _, w := range []int{128, 256, 384} {
				rb := typ.RowBytes(w)
				for n := 0; n <= 9; n++ {
					for trial, extra := range []int{0, 1, 3, 7, 2 * rb} {
						stride := rb + extra
						at := trial % 4 // misaligned row start
						src := make([]byte, at+max(n-1, 0)*stride+rb)
						randomRows(t, r, typ, src[at:], w, stride, n)
						want := expandWant(t, typ, src[at:], w, stride, n)
						checkExpand(t, name, typ, src[at:], w, stride, n, trial%5, want)
					}
				}
			}
		}
	})
}

// TestExpandRowsPanics: inconsistent lengths are programmer errors.
func TestExpandRowsPanics(t *testing.T) {
	rb := Turbo3.RowBytes(128)
	cases := []struct {
		typ            Type
		dst, src       int
		stride, n      int
		name           string
		shouldNotPanic bool
	}{
		{Turbo3, 128, rb, rb, 1, "ok", true},
		{Turbo3, 0, 0, 0, 0, "empty", true},
		{Turbo3, 256, 2 * rb, rb, 2, "two rows", true},
		{Type(7), 128, rb, rb, 1, "bad type", false},
		{Turbo3, 100, rb, rb, 1, "width not a block multiple", false},
		{Turbo3, 257, 2 * rb, rb, 2, "dst not n rows", false},
		{Turbo3, 128, rb - 1, rb, 1, "short src", false},
		{Turbo3, 256, 2*rb - 1, rb, 2, "short src, two rows", false},
		{Turbo3, 256, 2 * rb, rb - 1, 2, "overlapping rows", false},
		{Turbo3, 256, 2 * rb, math.MaxInt, 2, "huge stride", false},
		{Turbo3, 128, rb, rb, -1, "negative n", false},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if p := recover(); (p == nil) != c.shouldNotPanic {
					t.Errorf("%s: panic = %v", c.name, p)
				}
			}()
			c.typ.ExpandRows(make([]float32, c.dst), make([]byte, c.src), c.stride, c.n)
		}()
	}
}

// TestExpandRowsNoAlloc: the expansion allocates nothing.
func TestExpandRowsNoAlloc(t *testing.T) {
	forExpandImpls(t, func(name string) {
		for _, typ := range Types {
			src := make([]byte, 9*typ.RowBytes(256))
			dst := make([]float32, 9*256)
			if a := testing.AllocsPerRun(10, func() { typ.ExpandRows(dst, src, typ.RowBytes(256), 9) }); a != 0 {
				t.Errorf("%s %s: %v allocations", name, typ, a)
			}
		}
	})
}

// FuzzExpandRows: arbitrary bytes, row counts and strides expand to
// DecodeRotated's bits with every kernel level.
func FuzzExpandRows(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(0), uint8(0), make([]byte, 60))
	f.Add(uint8(3), uint8(3), uint8(5), uint8(1), make([]byte, 400))
	f.Add(uint8(4), uint8(9), uint8(0), uint8(0), []byte{0x01, 0x7e, 0xff, 0x00})
	f.Fuzz(func(t *testing.T, sel, nRows, extra, wide uint8, data []byte) {
		typ := Types[int(sel)%len(Types)]
		w := BlockSize * (1 + int(wide)%2)
		rb := typ.RowBytes(w)
		n := int(nRows) % 10
		stride := rb + int(extra)%32
		need := max(n-1, 0)*stride + rb
		if n == 0 {
			need = 0
		}
		src := make([]byte, need)
		for i := range src {
			if len(data) > 0 {
				src[i] = data[i%len(data)] ^ byte(i/len(data))
			}
		}
		want := expandWant(t, typ, src, w, stride, n)
		forExpandImpls(t, func(name string) {
			checkExpand(t, name, typ, src, w, stride, n, int(extra)%3, want)
		})
	})
}

func BenchmarkExpandRows(b *testing.B) {
	const rows, chunk, heads = 4096, 64, 8 // the engine's chunking; 8 KV heads interleaved
	r := rand.New(rand.NewPCG(63, 64))
	for _, typ := range Types {
		bb := typ.BlockBytes()
		stride := heads * bb
		src := make([]byte, rows*stride)
		for i := range rows {
			copy(src[i*stride:], mustEncode(b, typ, gaussianRow(r, BlockSize)))
		}
		dst := make([]float32, chunk*BlockSize)
		bench := func(name string, f func(off int)) {
			b.Run(fmt.Sprintf("%s/%s/%d", typ, name, rows), func(b *testing.B) {
				b.SetBytes(rows * BlockSize * 4) // float32 bytes written
				for b.Loop() {
					for off := 0; off < rows; off += chunk {
						f(off)
					}
				}
				b.ReportMetric(float64(b.N)*rows*BlockSize/b.Elapsed().Seconds(), "values/s")
			})
		}
		// The engine's expansion before ExpandRows: a zeroed row plus
		// AccumulateValue(row, 1, block), with the kernels of the day.
		bench("accumulate", func(off int) {
			clear(dst)
			for i := range chunk {
				at := (off + i) * stride
				typ.AccumulateValue(dst[i*BlockSize:(i+1)*BlockSize], 1, src[at:at+bb])
			}
		})
		old := expandImpl
		for _, impl := range familyLevels(b, &expandImpl) {
			expandImpl = impl
			bench(levelName(impl), func(off int) { typ.ExpandRows(dst, src[off*stride:], stride, chunk) })
		}
		expandImpl = old
	}
}
