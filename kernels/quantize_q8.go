package kernels

import (
	"encoding/binary"
	"math"
)

// absMax returns max |x| over x, as ggml's MAX(amax, fabsf(v)) loop does.
func absMax(x []float32) float32 {
	var amax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax = a
		}
	}
	return amax
}

// q8Scale returns the q8_0/q8_1 block scale d = amax/127 and the multiplier
// id = 127/amax (0 for an all-zero block).
//
// Activation quantization is where llama.cpp's builds disagree with each
// other: the C reference (quantize_row_q8_0_ref) multiplies by 1/d and
// rounds ties away from zero, the x86 AVX/AVX2/AVX-512 path multiplies by
// 127/amax and rounds ties to even, NEON multiplies by 1/d and rounds ties to
// even. A one-step difference in one int8 moves random-weight logits by up to
// 0.3, so Waggle picks one semantics for every architecture: the x86 one,
// which is what llama.cpp runs on the machines that made our goldens. Waggle
// on arm64 therefore computes what llama.cpp on x86 computes.
func q8Scale(x []float32) (d, id float32) {
	amax := absMax(x)
	d = amax / 127
	if amax != 0 {
		id = 127 / amax
	}
	return d, id
}

// roundQ8 rounds a scaled activation to the nearest integer, ties to even,
// as _mm256_round_ps(_MM_ROUND_NEAREST) does.
func roundQ8(v float32) int { return int(math.RoundToEven(float64(v))) }

// quantizeRowQ8_0Generic quantizes per 32-value block: d = amax/127 stored
// as fp16, q = round-half-even(x * 127/amax), as llama.cpp's x86 path does
// (see q8Scale).
func quantizeRowQ8_0Generic(dst []byte, src []float32) {
	const bs = 34
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		d, id := q8Scale(x)
		putF16(blk, d)
		for j, v := range x {
			blk[2+j] = byte(int8(roundQ8(v * id)))
		}
	}
}

// quantizeRowQ8_1Generic quantizes like quantizeRowQ8_0Generic, plus
// s = fp16(float(sum(q)) * d) in the second fp16 slot.
func quantizeRowQ8_1Generic(dst []byte, src []float32) {
	const bs = 36
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		d, id := q8Scale(x)
		putF16(blk, d)
		sum := 0
		for j, v := range x {
			q := roundQ8(v * id)
			blk[4+j] = byte(int8(q))
			sum += q
		}
		putF16(blk[2:], float32(sum)*d)
	}
}

// nearestInt rounds to nearest, ties to even, like ggml's nearest_int (the
// 1.5*2^23 magic-number trick, exact for |v| <= 2^22).
func nearestInt(v float32) int { return int(math.RoundToEven(float64(v))) }

// quantizeRowQ8_KGeneric follows quantize_row_q8_K_ref: per 256-value block,
// take the value of largest magnitude max (the first one on ties), scale
// iscale = -127/max, q = min(127, nearest_int(iscale*x)), d = 1/iscale stored
// as float32, and bsums[j] = sum of q[16j:16j+16]. An all-zero block gets
// d = 0 and zero quants; ggml leaves its bsums untouched, here they are 0.
func quantizeRowQ8_KGeneric(dst []byte, src []float32) {
	for b := 0; b < len(src)/QK_K; b++ {
		x := src[b*QK_K : (b+1)*QK_K]
		blk := dst[b*q8KBytes : (b+1)*q8KBytes]
		var amax, vmax float32
		for _, v := range x {
			if a := float32(math.Abs(float64(v))); a > amax {
				amax, vmax = a, v
			}
		}
		if amax == 0 {
			clear(blk)
			continue
		}
		iscale := -127 / vmax
		for j := 0; j < QK_K/16; j++ {
			sum := 0
			for l, v := range x[16*j : 16*j+16] {
				q := min(127, nearestInt(iscale*v))
				blk[q8KQs+16*j+l] = byte(int8(q))
				sum += q
			}
			binary.LittleEndian.PutUint16(blk[q8KBsums+2*j:], uint16(int16(sum)))
		}
		putF32(blk[q8KD:], 1/iscale)
	}
}
