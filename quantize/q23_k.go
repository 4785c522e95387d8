package quantize

import (
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// quantizeRowQ2_K follows quantize_row_q2_K_ref: sixteen 16-value
// sub-blocks each get a scale and a min from makeQKX2Quants (nmax 3,
// weights |x|, mean absolute error), both quantized to 4 bits against the
// largest of each, then the values are re-rounded to 2 bits.
func quantizeRowQ2_K(dst []byte, src []float32) {
	const q4scale = 15
	p := qkx2Params{nmax: 3, rmin: -0.5, rdelta: 0.1, nstep: 15, meanAbsoluteE: true}
	for b := 0; b < len(src)/kernels.QK_K; b++ {
		x := src[b*kernels.QK_K : (b+1)*kernels.QK_K]
		blk := dst[b*q2KBytes : (b+1)*q2KBytes]
		var L [kernels.QK_K]uint8
		var laux [16]uint8
		var weights [16]float32
		var scales, mins [kernels.QK_K / 16]float32
		var maxScale, maxMin float32
		for j := range scales {
			xs := x[16*j : 16*j+16]
			for l, v := range xs {
				weights[l] = float32(math.Abs(float64(v)))
			}
			scales[j], mins[j] = makeQKX2Quants(p, xs, weights[:], L[16*j:16*j+16], laux[:])
			maxScale, maxMin = max(maxScale, scales[j]), max(maxMin, mins[j])
		}
		sc := blk[q2KScales : q2KScales+16]
		clear(sc)
		putF16(blk[q2KD:], 0)
		putF16(blk[q2KDmin:], 0)
		if maxScale > 0 {
			iscale := q4scale / maxScale
			for j := range scales {
				sc[j] = uint8(nearestInt(float32(iscale * scales[j])))
			}
			putF16(blk[q2KD:], maxScale/q4scale)
		}
		if maxMin > 0 {
			iscale := q4scale / maxMin
			for j := range mins {
				sc[j] |= uint8(nearestInt(float32(iscale*mins[j]))) << 4
			}
			putF16(blk[q2KDmin:], maxMin/q4scale)
		}
		d, dmin := f16At(blk[q2KD:]), f16At(blk[q2KDmin:])
		for j := range scales {
			dj := float32(d * float32(sc[j]&0xf))
			if dj == 0 {
				continue
			}
			dm := float32(dmin * float32(sc[j]>>4))
			for i, v := range x[16*j : 16*j+16] {
				L[16*j+i] = uint8(clampInt(nearestInt((v+dm)/dj), 0, 3))
			}
		}
		qs := blk[q2KQs : q2KQs+kernels.QK_K/4]
		for j := 0; j < kernels.QK_K; j += 128 {
			for l := 0; l < 32; l++ {
				qs[j/4+l] = L[j+l] | L[j+l+32]<<2 | L[j+l+64]<<4 | L[j+l+96]<<6
			}
		}
	}
}

// quantizeRowQ3_K follows quantize_row_q3_K_ref: sixteen 16-value
// sub-blocks each get a signed scale from makeQ3Quants (nmax 4), the scales
// are quantized to 6 bits (stored +32) against the one of largest magnitude
// (d = max/-32), the values re-rounded to 3 bits: two low bits in qs, the
// high bit in hmask.
func quantizeRowQ3_K(dst []byte, src []float32) {
	for b := 0; b < len(src)/kernels.QK_K; b++ {
		x := src[b*kernels.QK_K : (b+1)*kernels.QK_K]
		blk := dst[b*q3KBytes : (b+1)*q3KBytes]
		var L [kernels.QK_K]int8
		var scales [kernels.QK_K / 16]float32
		var maxScale, amax float32
		for j := range scales {
			scales[j] = makeQ3Quants(4, x[16*j:16*j+16], L[16*j:])
			if a := abs32(scales[j]); a > amax {
				amax, maxScale = a, scales[j]
			}
		}
		sc := blk[q3KScales : q3KScales+12]
		clear(sc)
		putF16(blk[q3KD:], 0)
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := range scales {
				l := uint8(clampInt(int(int8(nearestInt(float32(iscale*scales[j])))), -32, 31) + 32)
				if j < 8 {
					sc[j] = l & 0xf
				} else {
					sc[j-8] |= (l & 0xf) << 4
				}
				sc[j%4+8] |= (l >> 4) << (2 * (j / 4))
			}
			putF16(blk[q3KD:], 1/iscale)
		}
		d := f16At(blk[q3KD:])
		unpacked := unpackQ3KScales(sc)
		for j := range scales {
			dj := float32(d * float32(unpacked[j]))
			if dj == 0 {
				continue
			}
			for i, v := range x[16*j : 16*j+16] {
				L[16*j+i] = int8(clampInt(nearestInt(v/dj), -4, 3) + 4)
			}
		}
		storeQ3KLevels(blk, &L)
	}
}

// storeQ3KLevels stores 3-bit levels: the high bit of value j in hmask[j%32] at bit
// j/32, the two low bits of four values (32 apart) per qs byte.
func storeQ3KLevels(blk []byte, L *[kernels.QK_K]int8) {
	hm := blk[q3KHmask : q3KHmask+kernels.QK_K/8]
	clear(hm)
	for j := 0; j < kernels.QK_K; j++ {
		if L[j] > 3 {
			hm[j%(kernels.QK_K/8)] |= 1 << (j / (kernels.QK_K / 8))
			L[j] -= 4
		}
	}
	qs := blk[q3KQs : q3KQs+kernels.QK_K/4]
	for j := 0; j < kernels.QK_K; j += 128 {
		for l := 0; l < 32; l++ {
			qs[j/4+l] = uint8(L[j+l]) | uint8(L[j+l+32])<<2 | uint8(L[j+l+64])<<4 | uint8(L[j+l+96])<<6
		}
	}
}
