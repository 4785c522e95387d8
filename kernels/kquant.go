package kernels

// Byte offsets inside the K-quant super-blocks (ggml-common.h). Every block
// holds QK_K = 256 values; multi-byte fields are little-endian.
//
//	q2_K (84):  scales[16] | qs[64] | d f16 | dmin f16
//	            16 sub-blocks of 16; scales[i] = scale (low nibble) | min (high nibble)
//	q3_K (110): hmask[32] | qs[64] | scales[12] | d f16
//	            16 sub-blocks of 16; 6-bit signed scales (stored +32), 2 low bits
//	            in qs, the third bit in hmask (set bit = +0, clear = -4)
//	q4_K (144): d f16 | dmin f16 | scales[12] | qs[128]
//	            8 sub-blocks of 32; 6-bit scales and mins packed in scales[12]
//	q5_K (176): d f16 | dmin f16 | scales[12] | qh[32] | qs[128]
//	q6_K (210): ql[128] | qh[64] | scales[16] int8 | d f16
//	            16 sub-blocks of 16; value = 6-bit q - 32
//	q8_K (292): d f32 | qs[256] int8 | bsums[16] int16 (sums of 16 qs each)
const (
	q2KScales, q2KQs, q2KD, q2KDmin, q2KBytes        = 0, 16, 80, 82, 84
	q3KHmask, q3KQs, q3KScales, q3KD, q3KBytes       = 0, 32, 96, 108, 110
	q4KD, q4KDmin, q4KScales, q4KQs, q4KBytes        = 0, 2, 4, 16, 144
	q5KD, q5KDmin, q5KScales, q5KQh, q5KQs, q5KBytes = 0, 2, 4, 16, 48, 176
	q6KQl, q6KQh, q6KScales, q6KD, q6KBytes          = 0, 128, 192, 208, 210
	q8KD, q8KQs, q8KBsums, q8KBytes                  = 0, 4, 260, 292
)

// scaleMinK4 unpacks the 6-bit scale and min of sub-block j (0..7) from the
// 12-byte scales field of q4_K/q5_K (ggml's get_scale_min_k4). Sub-blocks
// 0..3 use the low 6 bits of bytes j and j+4; 4..7 take their low 4 bits
// from byte j+4 and their top 2 bits from the top of bytes j-4 and j.
func scaleMinK4(j int, s []byte) (sc, m uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	sc = s[j+4]&0x0f | (s[j-4]>>6)<<4
	m = s[j+4]>>4 | (s[j]>>6)<<4
	return sc, m
}

// unpackQ3KScales unpacks the 16 signed 6-bit scales of a q3_K block (range
// -32..31). Scale i takes its low 4 bits from byte i (i < 8, low nibble) or
// byte i-8 (high nibble), and its top 2 bits from byte 8+i%4 at bit 2*(i/4).
func unpackQ3KScales(s []byte) (out [16]int8) {
	for i := 0; i < 16; i++ {
		lo := s[i%8] & 0x0f
		if i >= 8 {
			lo = s[i-8] >> 4
		}
		hi := (s[8+i%4] >> (2 * (i / 4))) & 3
		out[i] = int8(lo|hi<<4) - 32
	}
	return out
}
