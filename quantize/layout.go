package quantize

import (
	"encoding/binary"
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// qk is the block size of the legacy 32-value formats.
const qk = 32

// Byte offsets inside the K-quant super-blocks (ggml-common.h; the layouts
// are drawn in kernels/kquant.go, which reads the same bytes). Every block
// holds QK_K = 256 values; multi-byte fields are little-endian.
const (
	q2KScales, q2KQs, q2KD, q2KDmin, q2KBytes        = 0, 16, 80, 82, 84
	q3KHmask, q3KQs, q3KScales, q3KD, q3KBytes       = 0, 32, 96, 108, 110
	q4KD, q4KDmin, q4KScales, q4KQs, q4KBytes        = 0, 2, 4, 16, 144
	q5KD, q5KDmin, q5KScales, q5KQh, q5KQs, q5KBytes = 0, 2, 4, 16, 48, 176
	q6KQl, q6KQh, q6KScales, q6KD, q6KBytes          = 0, 128, 192, 208, 210
)

// f16At reads the little-endian fp16 at b[0:2] as float32.
func f16At(b []byte) float32 { return kernels.F16ToF32(binary.LittleEndian.Uint16(b)) }

// putF16 writes v as a little-endian fp16 at b[0:2].
func putF16(b []byte, v float32) { binary.LittleEndian.PutUint16(b, kernels.F32ToF16(v)) }

// nearestInt is ggml's nearest_int: round half to even (the float trick
// 12582912 + x), for |v| < 2^22.
func nearestInt(v float32) int { return int(math.RoundToEven(float64(v))) }

// absMax returns the largest magnitude in x.
func absMax(x []float32) float32 {
	var amax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax = a
		}
	}
	return amax
}

// signedMax returns the value of largest magnitude in x, the first one on
// ties (the amax/max scan of ggml's reference quantizers).
func signedMax(x []float32) float32 {
	var amax, vmax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, vmax = a, v
		}
	}
	return vmax
}

// scaleMinK4 unpacks the 6-bit scale and min of sub-block j (0..7) from the
// 12-byte scales field of q4_K/q5_K (ggml's get_scale_min_k4).
func scaleMinK4(j int, s []byte) (sc, m uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	sc = s[j+4]&0x0f | (s[j-4]>>6)<<4
	m = s[j+4]>>4 | (s[j]>>6)<<4
	return sc, m
}

// unpackQ3KScales returns the sixteen signed 6-bit scales of a q3_K block.
func unpackQ3KScales(s []byte) (out [16]int8) {
	for i := range 16 {
		lo := s[i%8] & 0x0f
		if i >= 8 {
			lo = s[i-8] >> 4
		}
		hi := (s[8+i%4] >> (2 * (i / 4))) & 3
		out[i] = int8(lo|hi<<4) - 32
	}
	return out
}
