package quantize

import (
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// quantizeRowQ4_K follows quantize_row_q4_K_ref: per 256-value
// super-block, eight 32-value sub-blocks each get a scale and a min from
// makeQKX2Quants (weights av|x| + |x|, 21 candidate scales), both quantized
// to 6 bits against the largest of each, then the values are re-rounded to
// 4 bits with the quantized scales.
func quantizeRowQ4_K(dst []byte, src []float32) {
	for b := 0; b < len(src)/kernels.QK_K; b++ {
		blk := dst[b*q4KBytes : (b+1)*q4KBytes]
		var L [kernels.QK_K]uint8
		quantizeQ45KBlock(src[b*kernels.QK_K:(b+1)*kernels.QK_K], blk, qkx2Params{nmax: 15, rmin: -1, rdelta: 0.1, nstep: 20}, &L)
		qs := blk[q4KQs:]
		for j := 0; j < kernels.QK_K; j += 64 {
			for l := 0; l < 32; l++ {
				qs[j/2+l] = L[j+l] | L[j+l+32]<<4
			}
		}
	}
}

// quantizeRowQ5_K follows quantize_row_q5_K_ref: as q4_K with 5-bit
// values (nmax 31, 16 candidate scales from -0.5); the fifth bits go to qh,
// two bit planes per 64 values.
func quantizeRowQ5_K(dst []byte, src []float32) {
	for b := 0; b < len(src)/kernels.QK_K; b++ {
		blk := dst[b*q5KBytes : (b+1)*q5KBytes]
		var L [kernels.QK_K]uint8
		quantizeQ45KBlock(src[b*kernels.QK_K:(b+1)*kernels.QK_K], blk, qkx2Params{nmax: 31, rmin: -0.5, rdelta: 0.1, nstep: 15}, &L)
		qh, ql := blk[q5KQh:q5KQh+kernels.QK_K/8], blk[q5KQs:]
		clear(qh)
		m1, m2 := uint8(1), uint8(2)
		for n := 0; n < kernels.QK_K; n += 64 {
			for j := 0; j < 32; j++ {
				l1, l2 := L[n+j], L[n+j+32]
				if l1 > 15 {
					l1 -= 16
					qh[j] |= m1
				}
				if l2 > 15 {
					l2 -= 16
					qh[j] |= m2
				}
				ql[n/2+j] = l1 | l2<<4
			}
			m1, m2 = m1<<2, m2<<2
		}
	}
}

// quantizeQ45KBlock fills d, dmin and the 12 scale bytes of one q4_K/q5_K
// block (same offsets in both) and leaves the final levels in L.
func quantizeQ45KBlock(x []float32, blk []byte, p qkx2Params, L *[kernels.QK_K]uint8) {
	var scales, mins [kernels.QK_K / 32]float32
	var weights [32]float32
	var laux [32]uint8
	var maxScale, maxMin float32
	for j := 0; j < kernels.QK_K/32; j++ {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += float32(v * v)
		}
		avX := float32(math.Sqrt(float64(sumX2 / 32)))
		for l, v := range xs {
			weights[l] = avX + float32(math.Abs(float64(v)))
		}
		scales[j], mins[j] = makeQKX2Quants(p, xs, weights[:], L[32*j:32*j+32], laux[:])
		maxScale, maxMin = max(maxScale, scales[j]), max(maxMin, mins[j])
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	sc := blk[q4KScales : q4KScales+12]
	clear(sc)
	for j := 0; j < kernels.QK_K/32; j++ {
		ls := min(63, uint8(nearestInt(float32(invScale*scales[j]))))
		lm := min(63, uint8(nearestInt(float32(invMin*mins[j]))))
		if j < 4 {
			sc[j], sc[j+4] = ls, lm
		} else {
			sc[j+4] = ls&0xf | (lm&0xf)<<4
			sc[j-4] |= (ls >> 4) << 6
			sc[j] |= (lm >> 4) << 6
		}
	}
	putF16(blk[q4KD:], maxScale/63)
	putF16(blk[q4KDmin:], maxMin/63)
	d, dmin := f16At(blk[q4KD:]), f16At(blk[q4KDmin:])
	for j := 0; j < kernels.QK_K/32; j++ {
		s, m := scaleMinK4(j, sc)
		dj := float32(d * float32(s))
		if dj == 0 {
			continue
		}
		dm := float32(dmin * float32(m))
		for i, v := range x[32*j : 32*j+32] {
			L[32*j+i] = uint8(clampInt(nearestInt((v+dm)/dj), 0, p.nmax))
		}
	}
}
