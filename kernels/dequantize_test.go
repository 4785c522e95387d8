package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

// The packers below write blocks from chosen integer quants and scales by
// following the layout text of ggml-common.h (the encode direction), so the
// dequantizers (the decode direction) are checked against an independent
// reading of the format. Scales are powers of two, so every expected value
// is exact.

func halfBytes(v float32) []byte { return binary.LittleEndian.AppendUint16(nil, F32ToF16(v)) }

// packNibbles32 puts q[j] in the low nibble and q[j+16] in the high nibble
// of byte j, and returns the 5th bits as the little-endian qh word.
func packNibbles32(q []int) (qs []byte, qh uint32) {
	qs = make([]byte, 16)
	for j := 0; j < 16; j++ {
		qs[j] = byte(q[j]&15) | byte(q[j+16]&15)<<4
	}
	for j := 0; j < 32; j++ {
		qh |= uint32(q[j]>>4&1) << j
	}
	return qs, qh
}

func checkDequant(t *testing.T, typ DType, blk []byte, want []float64) {
	t.Helper()
	if len(blk) != typ.BlockBytes() {
		t.Fatalf("%v: test block has %d bytes, BlockBytes is %d", typ, len(blk), typ.BlockBytes())
	}
	got := make([]float32, len(want))
	DequantizeRow(typ, got, blk)
	for i := range want {
		if float64(got[i]) != want[i] {
			t.Fatalf("%v value %d: got %v want %v", typ, i, got[i], want[i])
		}
	}
}

func TestDequantizeLegacyHandBuilt(t *testing.T) {
	q4 := make([]int, 32)
	q5 := make([]int, 32)
	q8 := make([]int, 32)
	for j := range q4 {
		q4[j] = (j*7 + 3) % 16
		q5[j] = (j*11 + 5) % 32
		q8[j] = (j*37)%255 - 127
	}
	const d, m = 0.5, -1.25
	t.Run("q4_0", func(t *testing.T) {
		qs, _ := packNibbles32(q4)
		want := make([]float64, 32)
		for j := range want {
			want[j] = float64(q4[j]-8) * d
		}
		checkDequant(t, Q4_0, append(halfBytes(d), qs...), want)
	})
	t.Run("q4_0 literal", func(t *testing.T) {
		blk := make([]byte, 18)
		blk[0], blk[1] = 0x00, 0x40 // fp16 2.0
		blk[2] = 0x9f               // value 0: 15-8 = 7; value 16: 9-8 = 1
		blk[17] = 0x01              // value 15: 1-8 = -7; value 31: 0-8 = -8
		got := make([]float32, 32)
		DequantizeRow(Q4_0, got, blk)
		if got[0] != 14 || got[16] != 2 || got[15] != -14 || got[31] != -16 || got[1] != -16 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("q4_1", func(t *testing.T) {
		qs, _ := packNibbles32(q4)
		want := make([]float64, 32)
		for j := range want {
			want[j] = float64(q4[j])*d + m
		}
		checkDequant(t, Q4_1, append(append(halfBytes(d), halfBytes(m)...), qs...), want)
	})
	t.Run("q5_0", func(t *testing.T) {
		qs, qh := packNibbles32(q5)
		blk := binary.LittleEndian.AppendUint32(halfBytes(d), qh)
		want := make([]float64, 32)
		for j := range want {
			want[j] = float64(q5[j]-16) * d
		}
		checkDequant(t, Q5_0, append(blk, qs...), want)
	})
	t.Run("q5_1", func(t *testing.T) {
		qs, qh := packNibbles32(q5)
		blk := binary.LittleEndian.AppendUint32(append(halfBytes(d), halfBytes(m)...), qh)
		want := make([]float64, 32)
		for j := range want {
			want[j] = float64(q5[j])*d + m
		}
		checkDequant(t, Q5_1, append(blk, qs...), want)
	})
	t.Run("q8_0 and q8_1", func(t *testing.T) {
		blk0, blk1 := halfBytes(d), append(halfBytes(d), halfBytes(123)...)
		want := make([]float64, 32)
		for j := range want {
			blk0 = append(blk0, byte(int8(q8[j])))
			blk1 = append(blk1, byte(int8(q8[j])))
			want[j] = float64(q8[j]) * d
		}
		checkDequant(t, Q8_0, blk0, want)
		checkDequant(t, Q8_1, blk1, want)
	})
}

// packQ2K: scales[s] = scale | min<<4; value i = 128h + 32k + l sits in
// qs[32h + l] at bits 2k.
func packQ2K(d, dmin float32, sc, mn []int, q []int) []byte {
	blk := make([]byte, 84)
	for s := 0; s < 16; s++ {
		blk[s] = byte(sc[s] | mn[s]<<4)
	}
	for i, v := range q {
		h, k, l := i/128, i%128/32, i%32
		blk[16+32*h+l] |= byte(v) << (2 * k)
	}
	copy(blk[80:], halfBytes(d))
	copy(blk[82:], halfBytes(dmin))
	return blk
}

// packQ3K: 6-bit scales stored as s+32: low nibble in byte s (s < 8) or the
// high nibble of byte s-8, top 2 bits in byte 8+s%4 at bits 2*(s/4); quant
// v+4 (0..7): low 2 bits like q2_K, bit 2 in hmask[i%32] at bit i/32.
func packQ3K(d float32, sc []int, q []int) []byte {
	blk := make([]byte, 110)
	hm, qs, scales := blk[0:32], blk[32:96], blk[96:108]
	for s := 0; s < 16; s++ {
		u := sc[s] + 32
		if s < 8 {
			scales[s] |= byte(u & 15)
		} else {
			scales[s-8] |= byte(u&15) << 4
		}
		scales[8+s%4] |= byte(u>>4) << (2 * (s / 4))
	}
	for i, v := range q {
		u := v + 4
		qs[32*(i/128)+i%32] |= byte(u&3) << (2 * (i % 128 / 32))
		hm[i%32] |= byte(u>>2) << (i / 32)
	}
	copy(blk[108:], halfBytes(d))
	return blk
}

// packScaleMin6 packs eight 6-bit scales and mins the q4_K/q5_K way.
func packScaleMin6(sc, mn []int) []byte {
	b := make([]byte, 12)
	for j := 0; j < 4; j++ {
		b[j] = byte(sc[j]) | byte(sc[j+4]>>4)<<6
		b[j+4] = byte(mn[j]) | byte(mn[j+4]>>4)<<6
		b[j+8] = byte(sc[j+4]&15) | byte(mn[j+4]&15)<<4
	}
	return b
}

// packQ45K: sub-block s (32 values) is nibble s&1 of qs[32*(s/2) + l]; for
// q5_K the fifth bit is bit s of qh[l].
func packQ45K(typ DType, d, dmin float32, sc, mn []int, q []int) []byte {
	blk := append(append(halfBytes(d), halfBytes(dmin)...), packScaleMin6(sc, mn)...)
	qh := make([]byte, 32)
	qs := make([]byte, 128)
	for i, v := range q {
		s, l := i/32, i%32
		qs[32*(s/2)+l] |= byte(v&15) << (4 * (s & 1))
		qh[l] |= byte(v>>4&1) << s
	}
	if typ == Q5_K {
		blk = append(blk, qh...)
	}
	return append(blk, qs...)
}

// packQ6K: quant v+32 (0..63) of value i = 128h + r: low nibble in
// ql[64h + r%64] (high nibble when r >= 64), top 2 bits in qh[32h + r%32]
// at bits 2*(r/32); int8 scales per 16 values.
func packQ6K(d float32, sc []int, q []int) []byte {
	blk := make([]byte, 210)
	for i, v := range q {
		u := v + 32
		h, r := i/128, i%128
		blk[64*h+r%64] |= byte(u&15) << (4 * (r / 64))
		blk[128+32*h+r%32] |= byte(u>>4) << (2 * (r / 32))
	}
	for s := 0; s < 16; s++ {
		blk[192+s] = byte(int8(sc[s]))
	}
	copy(blk[208:], halfBytes(d))
	return blk
}

func TestDequantizeKHandBuilt(t *testing.T) {
	q := make([]int, QK_K)
	const d, dmin = 0.25, 0.125
	t.Run("q2_K", func(t *testing.T) {
		sc, mn := make([]int, 16), make([]int, 16)
		for s := range sc {
			sc[s], mn[s] = (s*5+1)%16, (s*3+2)%16
		}
		want := make([]float64, QK_K)
		for i := range q {
			q[i] = (i*7 + i/64) % 4
			want[i] = d*float64(sc[i/16])*float64(q[i]) - dmin*float64(mn[i/16])
		}
		checkDequant(t, Q2_K, packQ2K(d, dmin, sc, mn, q), want)
	})
	t.Run("q3_K", func(t *testing.T) {
		sc := make([]int, 16)
		for s := range sc {
			sc[s] = (s*13+7)%64 - 32
		}
		want := make([]float64, QK_K)
		for i := range q {
			q[i] = (i*5+i/32)%8 - 4
			want[i] = d * float64(sc[i/16]) * float64(q[i])
		}
		checkDequant(t, Q3_K, packQ3K(d, sc, q), want)
	})
	for _, typ := range []DType{Q4_K, Q5_K} {
		t.Run(typ.String(), func(t *testing.T) {
			sc, mn := make([]int, 8), make([]int, 8)
			for s := range sc {
				sc[s], mn[s] = (s*23+9)%64, (s*41+60)%64
			}
			levels := 16
			if typ == Q5_K {
				levels = 32
			}
			want := make([]float64, QK_K)
			for i := range q {
				q[i] = (i*7 + i/32) % levels
				want[i] = d*float64(sc[i/32])*float64(q[i]) - dmin*float64(mn[i/32])
			}
			checkDequant(t, typ, packQ45K(typ, d, dmin, sc, mn, q), want)
		})
	}
	t.Run("q6_K", func(t *testing.T) {
		sc := make([]int, 16)
		for s := range sc {
			sc[s] = (s*29)%256 - 128
		}
		want := make([]float64, QK_K)
		for i := range q {
			q[i] = (i*13+i/16)%64 - 32
			want[i] = d * float64(sc[i/16]) * float64(q[i])
		}
		checkDequant(t, Q6_K, packQ6K(d, sc, q), want)
	})
	t.Run("q8_K", func(t *testing.T) {
		blk := make([]byte, 292)
		binary.LittleEndian.PutUint32(blk, math.Float32bits(-0.5))
		want := make([]float64, QK_K)
		for i := range want {
			v := (i*31)%255 - 127
			blk[4+i] = byte(int8(v))
			want[i] = -0.5 * float64(v)
		}
		checkDequant(t, Q8_K, blk, want)
	})
}

func TestDequantizeFloatTypes(t *testing.T) {
	vals := []float32{0, 1, -2.5, 65504, float32(math.Ldexp(1, -24)), 3.140625}
	for _, typ := range []DType{F32, F16, BF16} {
		b := make([]byte, typ.RowBytes(len(vals)))
		QuantizeRow(typ, b, vals)
		got := make([]float32, len(vals))
		DequantizeRow(typ, got, b)
		for i, v := range vals {
			want := v
			switch typ {
			case F16:
				want = F16ToF32(F32ToF16(v))
			case BF16:
				want = BF16ToF32(F32ToBF16(v))
			}
			if got[i] != want {
				t.Errorf("%v value %d: got %v want %v", typ, i, got[i], want)
			}
		}
	}
	// Literal little-endian bytes.
	got := make([]float32, 1)
	DequantizeRow(F16, got, []byte{0x00, 0x3c})
	if got[0] != 1 {
		t.Errorf("f16 0x3c00 = %v, want 1", got[0])
	}
	DequantizeRow(BF16, got, []byte{0x80, 0x3f})
	if got[0] != 1 {
		t.Errorf("bf16 0x3f80 = %v, want 1", got[0])
	}
}

func TestDequantizePanics(t *testing.T) {
	mustPanic(t, "short src", func() { DequantizeRow(Q4_0, make([]float32, 32), make([]byte, 17)) })
	mustPanic(t, "not a block multiple", func() { DequantizeRow(Q4_K, make([]float32, 32), make([]byte, 144)) })
	mustPanic(t, "unknown type", func() { DequantizeRow(DType(5), make([]float32, 32), make([]byte, 64)) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}
