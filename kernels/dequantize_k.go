package kernels

import "encoding/binary"

// The K-quant dequantizers follow dequantize_row_q{2..6}_K and q8_K in
// ggml-quants.c; layouts are described in kquant.go. Products are rounded
// to float32 before the min is subtracted, as the unfused C code does.

func dequantizeRowQ2_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q2KBytes : (b+1)*q2KBytes]
		d, dmin := f16At(blk[q2KD:]), f16At(blk[q2KDmin:])
		sc := blk[q2KScales : q2KScales+16]
		y := dst[b*QK_K : (b+1)*QK_K]
		// Value i: half h = i/128 uses qs[32h:32h+32]; within the half,
		// shift = 2*((i%128)/32) and byte l = i%32; sub-block i/16.
		for i := range y {
			q := blk[q2KQs+32*(i/128)+i%32] >> (2 * (i % 128 / 32)) & 3
			s := sc[i/16]
			dl := d * float32(s&0x0f)
			ml := dmin * float32(s>>4)
			y[i] = float32(dl*float32(q)) - ml
		}
	}
}

func dequantizeRowQ3_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q3KBytes : (b+1)*q3KBytes]
		d := f16At(blk[q3KD:])
		scales := unpackQ3KScales(blk[q3KScales : q3KScales+12])
		y := dst[b*QK_K : (b+1)*QK_K]
		// Value i: low bits from qs[32*(i/128) + i%32] at shift 2*((i%128)/32),
		// high bit from hmask[i%32] at bit i/32.
		for i := range y {
			q := int(blk[q3KQs+32*(i/128)+i%32]>>(2*(i%128/32))) & 3
			if blk[q3KHmask+i%32]&(1<<(i/32)) == 0 {
				q -= 4
			}
			dl := d * float32(scales[i/16])
			y[i] = dl * float32(q)
		}
	}
}

func dequantizeRowQ4_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q4KBytes : (b+1)*q4KBytes]
		d, dmin := f16At(blk[q4KD:]), f16At(blk[q4KDmin:])
		y := dst[b*QK_K : (b+1)*QK_K]
		// Value i: sub-block s = i/32; byte qs[32*(i/64) + i%32], low nibble
		// for even s, high nibble for odd s.
		for s := 0; s < 8; s++ {
			sc, m := scaleMinK4(s, blk[q4KScales:])
			ds, ms := d*float32(sc), dmin*float32(m)
			qs := blk[q4KQs+32*(s/2) : q4KQs+32*(s/2)+32]
			for l := 0; l < 32; l++ {
				q := qs[l] & 0x0f
				if s&1 == 1 {
					q = qs[l] >> 4
				}
				y[32*s+l] = float32(ds*float32(q)) - ms
			}
		}
	}
}

func dequantizeRowQ5_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q5KBytes : (b+1)*q5KBytes]
		d, dmin := f16At(blk[q5KD:]), f16At(blk[q5KDmin:])
		qh := blk[q5KQh : q5KQh+32]
		y := dst[b*QK_K : (b+1)*QK_K]
		// As q4_K, plus the fifth bit of value i in qh[i%32] at bit s = i/32.
		for s := 0; s < 8; s++ {
			sc, m := scaleMinK4(s, blk[q5KScales:])
			ds, ms := d*float32(sc), dmin*float32(m)
			qs := blk[q5KQs+32*(s/2) : q5KQs+32*(s/2)+32]
			for l := 0; l < 32; l++ {
				q := qs[l] & 0x0f
				if s&1 == 1 {
					q = qs[l] >> 4
				}
				q |= (qh[l] >> s & 1) << 4
				y[32*s+l] = float32(ds*float32(q)) - ms
			}
		}
	}
}

// q6KValue returns the signed 6-bit value i (0..255) of a q6_K block: for
// half h = i/128 and r = i%128, the low nibble comes from
// ql[64h + r%64] (low nibble if r < 64, else high), the top 2 bits from
// qh[32h + r%32] at bit 2*(r/32).
func q6KValue(blk []byte, i int) int8 {
	h, r := i/128, i%128
	lo := blk[q6KQl+64*h+r%64]
	if r >= 64 {
		lo >>= 4
	}
	hi := blk[q6KQh+32*h+r%32] >> (2 * (r / 32)) & 3
	return int8(lo&0x0f|hi<<4) - 32
}

func dequantizeRowQ6_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q6KBytes : (b+1)*q6KBytes]
		d := f16At(blk[q6KD:])
		y := dst[b*QK_K : (b+1)*QK_K]
		for i := range y {
			sc := int8(blk[q6KScales+i/16])
			y[i] = float32(d*float32(sc)) * float32(q6KValue(blk, i))
		}
	}
}

func dequantizeRowQ8_KGeneric(dst []float32, src []byte) {
	for b := 0; b < len(dst)/QK_K; b++ {
		blk := src[b*q8KBytes : (b+1)*q8KBytes]
		d := f32At(blk[q8KD:])
		y := dst[b*QK_K : (b+1)*QK_K]
		for i, q := range blk[q8KQs : q8KQs+QK_K] {
			y[i] = d * float32(int8(q))
		}
	}
}

// q8KBsum returns bsums[j] of a q8_K block.
func q8KBsum(blk []byte, j int) int {
	return int(int16(binary.LittleEndian.Uint16(blk[q8KBsums+2*j:])))
}
