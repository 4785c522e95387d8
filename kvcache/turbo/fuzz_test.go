package turbo

import (
	"encoding/binary"
	"math"
	"testing"
)

// maxLevel bounds |level| over every table (the largest is tcq3's 0.2861),
// so a block with a finite norm N decodes to values within maxLevel·|N|.
const maxLevel = 0.29

// FuzzDecode feeds arbitrary bytes to Decode, DecodeRotated, DotKey and
// AccumulateValue: none may panic, a length mismatch is an error, and every
// value of a block with a finite norm is bounded by maxLevel·|N|.
func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{})
	f.Add(uint8(3), uint8(48), make([]byte, 52))
	f.Add(uint8(4), uint8(0), []byte{0xff, 0x7b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(1), uint8(127), append([]byte{0x00, 0x7c}, make([]byte, 130)...)) // Inf norm, two blocks
	f.Add(uint8(2), uint8(5), []byte{0x01, 0x7e, 0xE4, 0x1B})                     // NaN norm, short
	f.Add(uint8(0), uint8(1), append([]byte{0x01, 0x00}, make([]byte, 48)...))    // subnormal norm
	f.Fuzz(func(t *testing.T, sel, cut uint8, data []byte) {
		typ := Types[int(sel)%len(Types)]
		bb := typ.BlockBytes()
		blocks := len(data) / bb
		if blocks == 0 {
			if typ.Decode(make([]float32, 1+int(cut)), data) == nil {
				t.Fatalf("%s: Decode accepted %d bytes", typ, len(data))
			}
			return
		}
		blocks = min(blocks, 8)
		row := data[:blocks*bb]
		n := blocks*BlockSize - int(cut)%BlockSize
		if typ.Decode(make([]float32, n), data[:len(row)-1]) == nil {
			t.Fatalf("%s: Decode accepted a short row", typ)
		}
		dst := make([]float32, n)
		if err := typ.Decode(dst, row); err != nil {
			t.Fatalf("%s: Decode(%d values, %d bytes): %v", typ, n, len(row), err)
		}
		z := make([]float32, blocks*BlockSize)
		if err := typ.DecodeRotated(z, row); err != nil {
			t.Fatal(err)
		}
		for g := range blocks {
			nrm := float64(blockNorm(row[g*bb:]))
			if math.IsInf(nrm, 0) || math.IsNaN(nrm) {
				continue
			}
			for _, v := range z[g*BlockSize : (g+1)*BlockSize] {
				if math.Abs(float64(v)) > maxLevel*math.Abs(nrm) {
					t.Fatalf("%s: value %g exceeds %g·|N| with N = %g", typ, v, maxLevel, nrm)
				}
			}
		}
		ones := make([]float32, len(z))
		for i := range ones {
			ones[i] = 1
		}
		_ = typ.DotKey(ones, row)
		typ.AccumulateValue(ones, 0.25, row)
	})
}

// FuzzEncode encodes arbitrary float32 bit patterns (NaN, Inf, subnormals,
// huge values) and decodes them back: nothing may panic, and a row of finite
// values whose group norms are well inside fp16 decodes to finite values.
func FuzzEncode(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0x80, 0x3f})
	f.Add(uint8(3), []byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f})
	f.Add(uint8(4), []byte{1, 0, 0, 0, 0xff, 0xff, 0x7f, 0x7f})
	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		typ := Types[int(sel)%len(Types)]
		n := min(len(data)/4, 300)
		if n == 0 {
			return
		}
		x := make([]float32, n)
		finite := true
		var groupSq [3]float64
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			v := float64(x[i])
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
			groupSq[i/BlockSize] += v * v
		}
		row := mustEncode(t, typ, x)
		y := mustDecode(t, typ, row, n)
		for _, s := range groupSq {
			// The stored norm is n/r, r = ||levels|| (about 0.74 for a single
			// spike under turbo3), so norms within a factor of 3 of fp16's top
			// may saturate to Inf, like on the GPU; skip those.
			finite = finite && math.Sqrt(s) < 2e4
		}
		if !finite {
			return
		}
		for i, v := range y {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s: finite input decoded to %g at %d", typ, v, i)
			}
		}
	})
}
