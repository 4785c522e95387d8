package kernels

import "encoding/binary"

// Block layouts of the 32-value legacy quants (ggml-common.h), all fields
// little-endian:
//
//	q4_0: d f16 | qs[16]            value j: (nibble_j - 8) * d
//	q4_1: d f16 | m f16 | qs[16]    value j: nibble_j * d + m
//	q5_0: d f16 | qh[4] | qs[16]    value j: (nibble_j | bit_j(qh)<<4 - 16) * d
//	q5_1: d f16 | m f16 | qh[4] | qs[16]  value j: (nibble_j | bit_j(qh)<<4) * d + m
//	q8_0: d f16 | qs[32] int8       value j: qs[j] * d
//	q8_1: d f16 | s f16 | qs[32]    value j: qs[j] * d   (s = d*sum(qs), for dots)
//
// nibble_j is the low nibble of qs[j] for j < 16 and the high nibble of
// qs[j-16] for j >= 16.
const qk = 32

func dequantizeRowQ4_0Generic(dst []float32, src []byte) {
	const bs = 18
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d := f16At(blk)
		qs := blk[2:18]
		y := dst[b*qk : b*qk+qk]
		for j := 0; j < qk/2; j++ {
			y[j] = float32(int(qs[j]&0x0f)-8) * d
			y[j+qk/2] = float32(int(qs[j]>>4)-8) * d
		}
	}
}

func dequantizeRowQ4_1Generic(dst []float32, src []byte) {
	const bs = 20
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d, m := f16At(blk), f16At(blk[2:])
		qs := blk[4:20]
		y := dst[b*qk : b*qk+qk]
		for j := 0; j < qk/2; j++ {
			y[j] = float32(float32(qs[j]&0x0f)*d) + m
			y[j+qk/2] = float32(float32(qs[j]>>4)*d) + m
		}
	}
}

func dequantizeRowQ5_0Generic(dst []float32, src []byte) {
	const bs = 22
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d := f16At(blk)
		qh := binary.LittleEndian.Uint32(blk[2:])
		qs := blk[6:22]
		y := dst[b*qk : b*qk+qk]
		for j := 0; j < qk/2; j++ {
			lo := int(qs[j]&0x0f) | int(qh>>j&1)<<4
			hi := int(qs[j]>>4) | int(qh>>(j+16)&1)<<4
			y[j] = float32(lo-16) * d
			y[j+qk/2] = float32(hi-16) * d
		}
	}
}

func dequantizeRowQ5_1Generic(dst []float32, src []byte) {
	const bs = 24
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d, m := f16At(blk), f16At(blk[2:])
		qh := binary.LittleEndian.Uint32(blk[4:])
		qs := blk[8:24]
		y := dst[b*qk : b*qk+qk]
		for j := 0; j < qk/2; j++ {
			lo := int(qs[j]&0x0f) | int(qh>>j&1)<<4
			hi := int(qs[j]>>4) | int(qh>>(j+16)&1)<<4
			y[j] = float32(float32(lo)*d) + m
			y[j+qk/2] = float32(float32(hi)*d) + m
		}
	}
}

func dequantizeRowQ8_0Generic(dst []float32, src []byte) {
	const bs = 34
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d := f16At(blk)
		y := dst[b*qk : b*qk+qk]
		for j, q := range blk[2:34] {
			y[j] = float32(int8(q)) * d
		}
	}
}

// dequantizeRowQ8_1Generic expands q8_1 as qs*d; ggml has no to_float for
// q8_1 (it is an activation format), this is the natural definition.
func dequantizeRowQ8_1Generic(dst []float32, src []byte) {
	const bs = 36
	for b := 0; b < len(dst)/qk; b++ {
		blk := src[b*bs : b*bs+bs]
		d := f16At(blk)
		y := dst[b*qk : b*qk+qk]
		for j, q := range blk[4:36] {
			y[j] = float32(int8(q)) * d
		}
	}
}
