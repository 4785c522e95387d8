package quantize

import "github.com/waggle-llm/waggle/kernels"

// quantizeRowQ6_K follows quantize_row_q6_K_ref: sixteen 16-value
// sub-blocks each get a signed scale from makeQxQuants (nmax 32), the scales
// are quantized to int8 against the one of largest magnitude (d = max/-128),
// then the values are re-rounded to 6 bits (stored +32) with them. A block
// whose scales are all ~0 is stored as zeros.
func quantizeRowQ6_K(dst []byte, src []float32) {
	for b := 0; b < len(src)/kernels.QK_K; b++ {
		x := src[b*kernels.QK_K : (b+1)*kernels.QK_K]
		blk := dst[b*q6KBytes : (b+1)*q6KBytes]
		var L [kernels.QK_K]int8
		var scales [kernels.QK_K / 16]float32
		var maxScale, maxAbs float32
		for ib := range scales {
			scales[ib] = makeQxQuants(32, x[16*ib:16*ib+16], L[16*ib:])
			if a := abs32(scales[ib]); a > maxAbs {
				maxAbs, maxScale = a, scales[ib]
			}
		}
		if maxAbs < groupMaxEps {
			clear(blk)
			continue
		}
		iscale := -128 / maxScale
		putF16(blk[q6KD:], 1/iscale)
		d := f16At(blk[q6KD:])
		for ib := range scales {
			s := int8(min(127, nearestInt(float32(iscale*scales[ib]))))
			blk[q6KScales+ib] = byte(s)
			dj := float32(d * float32(s))
			if dj == 0 {
				continue
			}
			for i, v := range x[16*ib : 16*ib+16] {
				L[16*ib+i] = int8(clampInt(nearestInt(v/dj), -32, 31) + 32)
			}
		}
		storeQ6KLevels(blk, &L)
	}
}

// storeQ6KLevels stores the 6-bit levels: low nibbles in ql (values l and l+64 share
// a byte within each 128-value half), the two high bits of four values in
// each qh byte.
func storeQ6KLevels(blk []byte, L *[kernels.QK_K]int8) {
	ql, qh := blk[q6KQl:q6KQh], blk[q6KQh:q6KScales]
	for j := 0; j < kernels.QK_K; j += 128 {
		for l := 0; l < 32; l++ {
			q1, q2 := uint8(L[j+l]), uint8(L[j+l+32])
			q3, q4 := uint8(L[j+l+64]), uint8(L[j+l+96])
			ql[j/2+l] = q1&0xf | (q3&0xf)<<4
			ql[j/2+l+32] = q2&0xf | (q4&0xf)<<4
			qh[j/4+l] = q1>>4 | (q2>>4)<<2 | (q3>>4)<<4 | (q4>>4)<<6
		}
	}
}

// abs32 returns |v|.
func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}
