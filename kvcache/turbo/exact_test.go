package turbo

import (
	"bytes"
	"math"
	"testing"
)

// The cases below build an input whose rotated, normalised form is
// levels[idx_j]/r (r = ||levels[idx]||) via an independent float64
// rotation, so every element sits well inside its quantisation cell (the
// patterns keep r between 0.88 and 1.12, inside every cell's margin) and the
// corrected norm n/r is the chosen scale exactly, whatever r is. The
// expected bytes are worked out by hand from the layout in kv-turboquant.md
// §2.1 and §4.3, not by the package's packers.

// rep returns b repeated n times.
func rep(n int, b ...byte) []byte { return bytes.Repeat(b, n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// periodic returns 128 indices repeating p.
func periodic(p ...int) []int {
	idx := make([]int, BlockSize)
	for j := range idx {
		idx[j] = p[j%len(p)]
	}
	return idx
}

// tcqPath returns the 128 states visited from prefix (the 6 memory bits of
// s₋₁) when emitting the periodic symbols sym, per §4.2.
func tcqPath(k uint, prefix uint, sym ...uint) []int {
	idx := make([]int, BlockSize)
	s := prefix << k
	for t := range idx {
		s = s>>k | sym[t%len(sym)]<<6
		idx[t] = int(s)
	}
	return idx
}

func TestEncodeExactBytes(t *testing.T) {
	cases := []struct {
		name   string
		typ    Type
		levels []float32
		idx    []int
		scale  float64
		want   []byte
	}{
		{
			// idx_j = j%4: each qs byte holds 0,1,2,3 from bit 0 up = 0b11_10_01_00.
			name: "turbo2 0123", typ: Turbo2, levels: centroids2[:], idx: periodic(0, 1, 2, 3), scale: 2,
			want: cat([]byte{0x00, 0x40}, rep(32, 0xE4)), // norm 2.0 = fp16 0x4000
		},
		{
			// Per 16 values: low bits 0,1,2,2 -> 0xA4; 3,3,3,3 -> 0xFF; 4,4,4,4 -> 0x00;
			// 5,5,6,7 -> 1,1,2,3 -> 0xE5. Bit 2 is 0 for j%16 < 8 and 1 above: 0x00, 0xFF.
			name: "turbo3 gaussian-ish", typ: Turbo3, levels: centroids3[:],
			idx: periodic(0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 6, 7), scale: 0.5,
			want: cat([]byte{0x00, 0x38}, rep(8, 0xA4, 0xFF, 0x00, 0xE5), rep(8, 0x00, 0xFF)), // 0.5 = 0x3800
		},
		{
			// Pairs (even, odd) -> (odd<<4 | even): (1,14) E1, (4,11) B4, (5,10) A5, (6,9) 96, (7,8) 87.
			name: "turbo4 pairs", typ: Turbo4, levels: centroids4[:],
			idx: periodic(1, 14, 4, 11, 5, 10, 6, 9, 7, 8, 5, 10, 4, 11, 6, 9), scale: 3,
			want: cat([]byte{0x00, 0x42}, rep(8, 0xE1, 0xB4, 0xA5, 0x96, 0x87, 0xA5, 0xB4, 0x96)), // 3.0 = 0x4200
		},
		{
			// Prefix 45 = 0b101101 in bits 0-5; symbol 4 = 0b100 at bit 6+3t, so bits
			// 8+3t are set: byte 0 = 0x2D, then bits 0,3,6 | 1,4,7 | 2,5 of each
			// 3-byte period = 49 92 24, 16 times; the trailing 2 bits and pad are 0.
			name: "turbo3_tcq prefix45 sym4", typ: Turbo3TCQ, levels: tcq3Codebook[:],
			idx: tcqPath(3, 45, 4), scale: 2,
			want: cat([]byte{0x00, 0x40, 0x2D}, rep(16, 0x49, 0x92, 0x24), []byte{0x00}),
		},
		{
			// Prefix 51 = 0b110011, then symbols 1,2,1,2,... (bits 01 / 10 LSB-first):
			// bits 6+4u and 9+4u set. Byte 0 = 0x33|0x40 = 0x73, bytes 1-31 = 0x66,
			// byte 32 has bits 257, 258, 261 = 0x26; pad 0.
			name: "turbo2_tcq prefix51 sym12", typ: Turbo2TCQ, levels: tcq2Codebook[:],
			idx: tcqPath(2, 51, 1, 2), scale: 2,
			want: cat([]byte{0x00, 0x40, 0x73}, rep(31, 0x66), []byte{0x26, 0x00}),
		},
		// A zero vector: n = 0 gives inv = 0, every rotated value is 0.0, which
		// takes the first positive level (strict "<"), and N = 0/r = 0.
		{name: "turbo2 zero", typ: Turbo2, idx: nil, want: cat([]byte{0, 0}, rep(32, 0xAA))},                // idx 2
		{name: "turbo3 zero", typ: Turbo3, idx: nil, want: cat([]byte{0, 0}, rep(32, 0x00), rep(16, 0xFF))}, // idx 4
		{name: "turbo4 zero", typ: Turbo4, idx: nil, want: cat([]byte{0, 0}, rep(64, 0x88))},                // idx 8
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float32, BlockSize)
			if c.idx != nil {
				x = inputFromRotated(c.levels, c.idx, c.scale)
			}
			got := mustEncode(t, c.typ, x)
			if !bytes.Equal(got, c.want) {
				t.Fatalf("bytes\n got % x\nwant % x", got, c.want)
			}
			// Decoding gives back exactly scale·level[idx] in the rotated domain.
			z := make([]float32, BlockSize)
			if err := c.typ.DecodeRotated(z, got); err != nil {
				t.Fatal(err)
			}
			for j := range z {
				want := float32(0)
				if c.idx != nil {
					want = c.levels[c.idx[j]] * float32(c.scale)
				}
				if z[j] != want {
					t.Fatalf("rotated value %d = %g, want %g", j, z[j], want)
				}
			}
		})
	}
}

// TestTCQZeroVector: a zero group has a zero norm, decodes to zeros, and its
// pad byte is written as 0 (the [inferred] rule of §2.1).
func TestTCQZeroVector(t *testing.T) {
	for _, typ := range []Type{Turbo3TCQ, Turbo2TCQ} {
		row := mustEncode(t, typ, make([]float32, 80))
		if row[0] != 0 || row[1] != 0 || row[len(row)-1] != 0 {
			t.Errorf("%s: norm % x, pad %#x; want zeros", typ, row[:2], row[len(row)-1])
		}
		for i, v := range mustDecode(t, typ, row, 80) {
			if v != 0 {
				t.Fatalf("%s: value %d = %g", typ, i, v)
			}
		}
	}
}

// TestLevelIndexTies checks the strict "<" rule at every threshold: a value
// on a threshold takes the higher index, the float just below it the lower,
// 0.0 the first positive level, and NaN the top index.
func TestLevelIndexTies(t *testing.T) {
	for _, typ := range []Type{Turbo2, Turbo3, Turbo4} {
		levels, th := scalarTables(typ)
		for i, v := range th {
			if got := levelIndex(v, th); got != i+1 {
				t.Errorf("%s: levelIndex(th[%d]=%g) = %d, want %d", typ, i, v, got, i+1)
			}
			below := math.Nextafter32(v, float32(math.Inf(-1)))
			if got := levelIndex(below, th); got != i {
				t.Errorf("%s: levelIndex(%g) = %d, want %d", typ, below, got, i)
			}
		}
		if got := levelIndex(0, th); levels[got] <= 0 || levels[got-1] >= 0 {
			t.Errorf("%s: 0.0 maps to index %d (%g), want the first positive level", typ, got, levels[got])
		}
		if got := levelIndex(float32(math.NaN()), th); got != len(levels)-1 {
			t.Errorf("%s: NaN maps to %d, want %d", typ, got, len(levels)-1)
		}
		if levelIndex(-1, th) != 0 || levelIndex(1, th) != len(levels)-1 {
			t.Errorf("%s: extremes do not map to the end levels", typ)
		}
	}
}
