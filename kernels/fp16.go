package kernels

import (
	"encoding/binary"
	"math"
)

// F16ToF32 converts an IEEE binary16 value to float32 exactly (every half,
// subnormals included, is representable). A NaN keeps its sign and payload
// and comes back quiet, as ggml_compute_fp16_to_fp32 gives on x86 and arm64.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f && mant != 0: // NaN: quiet bit set, payload kept
		return math.Float32frombits(sign | 0x7fc00000 | mant<<13)
	case exp == 0x1f: // ±Inf
		return math.Float32frombits(sign | 0x7f800000)
	case exp != 0: // normal: rebias 15 -> 127
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	default: // zero or subnormal: mant * 2^-24, exact in float32
		v := float32(mant) * (1.0 / (1 << 24))
		return math.Float32frombits(sign | math.Float32bits(v))
	}
}

// F32ToF16 converts float32 to binary16 rounding to nearest, ties to even,
// like ggml's GGML_FP32_TO_FP16 (ggml_compute_fp32_to_fp16). Magnitudes from
// 65520 up become ±Inf, magnitudes at or below 2^-25 become ±0, results
// below 2^-14 are subnormal halves, and every NaN becomes sign|0x7e00.
func F32ToF16(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	abs := bits & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return sign | 0x7e00
	case abs >= 0x477ff000: // >= 65520 (halfway past the largest half): Inf
		return sign | 0x7c00
	case abs >= 0x38800000: // normal half (>= 2^-14): drop 13 mantissa bits, RNE
		h := abs - 112<<23
		h += 0xfff + (h>>13)&1
		return sign | uint16(h>>13)
	}
	e := abs >> 23
	if e < 102 { // below 2^-25: rounds to zero
		return sign
	}
	// Subnormal half: the value in units of 2^-24 is m >> (126-e), rounded.
	m := abs&0x7fffff | 0x800000
	shift := 126 - e // 14..24
	m += (1<<(shift-1) - 1) + (m>>shift)&1
	return sign | uint16(m>>shift)
}

// BF16ToF32 converts a bfloat16 value to float32 (exact: bf16 is the top half
// of a float32), like ggml_compute_bf16_to_fp32.
func BF16ToF32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}

// F32ToBF16 converts float32 to bfloat16 like ggml_compute_fp32_to_bf16:
// round to nearest, ties to even (overflow rounds to ±Inf, subnormals are
// kept), and a NaN keeps its top bits and is forced quiet (|0x40).
func F32ToBF16(f float32) uint16 {
	bits := math.Float32bits(f)
	if bits&0x7fffffff > 0x7f800000 {
		return uint16(bits>>16) | 0x40
	}
	bits += 0x7fff + (bits>>16)&1
	return uint16(bits >> 16)
}

// f16At reads the little-endian fp16 at b[0:2] as float32.
func f16At(b []byte) float32 { return F16ToF32(binary.LittleEndian.Uint16(b)) }

// putF16 writes v as a little-endian fp16 at b[0:2].
func putF16(b []byte, v float32) { binary.LittleEndian.PutUint16(b, F32ToF16(v)) }

// f32At reads the little-endian float32 at b[0:4].
func f32At(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// putF32 writes v as a little-endian float32 at b[0:4].
func putF32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
