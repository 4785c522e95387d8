//go:build !purego

package kernels

// registerQuantizeARM64 adds the arm64 assembly for the q8_0, q8_1 and
// q8_K activation quantizers to the neon table (neondot inherits them; they
// need no dot product).
func registerQuantizeARM64(t *levelTables) {
	neon := &t[NEON]
	neon.quantize[Q8_0] = quantizeQ8_0NEON
	neon.quantize[Q8_1] = quantizeRowQ8_1NEON
	neon.quantize[Q8_K] = quantizeQ8_KNEON
}

// quantizeRowQ8_1NEON is quantizeRowQ8_1Generic, byte for byte for NaN-free
// input. The assembly stops before a block whose 127/amax overflows to +Inf
// (amax below about 3.7e-37) and that block goes through the generic
// quantizer. There every product is ±Inf or NaN and the generic code sums
// Go's saturated int64 conversions into s. The int32 lanes would give the
// same bytes (both sums wrap to the same sign, and s rounds to ±0 either
// way), but that rests on the conversion's saturation, so the fallback keeps
// the equality by construction; it costs nothing on real activations.
func quantizeRowQ8_1NEON(dst []byte, src []float32) {
	for len(src) > 0 {
		done := quantizeQ8_1NEON(dst, src)
		dst, src = dst[36*done:], src[32*done:]
		if len(src) > 0 {
			quantizeRowQ8_1Generic(dst[:36], src[:32])
			dst, src = dst[36:], src[32:]
		}
	}
}

// quantizeQ8_0NEON is quantizeRowQ8_0Generic, byte for byte for NaN-free
// input (NaNs give unspecified bytes, never a fault): per block of
// 32, amax = max|x| (FMAXNM, so NaNs are skipped as the generic `>` skips
// them), d = amax/127 stored as fp16 (FCVT, round to nearest even),
// q = FCVTNS(x * (127/amax)) (0 multiplier for amax = 0), and the low byte
// of each int32 kept, which is what the generic int conversion gives on
// arm64 even for the ±Inf products of a subnormal amax. len(src) is a
// multiple of 32 and len(dst) = 34*len(src)/32.
//
//go:noescape
func quantizeQ8_0NEON(dst []byte, src []float32)

// quantizeQ8_KNEON is quantizeRowQ8_KGeneric, byte for byte for NaN-free
// input (NaNs give unspecified bytes, never a fault): per block of
// 256, vmax = the first value of largest magnitude, iscale = -127/vmax,
// q = min(127, FCVTNS(iscale*x)) (low byte stored), bsums = int16 sums of
// 16 q, d = 1/iscale; an all-zero block is written as 292 zero bytes.
// len(src) is a multiple of 256 and len(dst) = 292*len(src)/256.
//
//go:noescape
func quantizeQ8_KNEON(dst []byte, src []float32)

// quantizeQ8_1NEON quantizes the leading blocks of src as
// quantizeRowQ8_1Generic does (d and the quants as quantizeQ8_0NEON, then
// s = fp16(float32(sum(q)) * d) with d the float32 amax/127) and returns
// how many it did: all len(src)/32, or fewer when it meets a block whose
// 127/amax is +Inf, which it leaves untouched. len(src) is a multiple of
// 32 and len(dst) >= 36*len(src)/32.
//
//go:noescape
func quantizeQ8_1NEON(dst []byte, src []float32) int
