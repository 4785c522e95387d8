//go:build !purego

#include "textflag.h"
#include "float_arm64.h"

// NEON F16 and BF16 row conversions; the contracts are in float_cvt_arm64.go.

// func f32ToF16NEON(dst *byte, src *float32, n int)
TEXT ·f32ToF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	MOVD $0xfe00fe00fe00fe00, tmp
	VMOV tmp, V30.D[0]
	VMOV tmp, V30.D[1]         // V30 = 0xfe00 in every half
	LSR  $3, cnt
	CBZ  cnt, f32ToF16NEON_done

f32ToF16NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	FCVTN4H(0, 2)              // V2 = fp16(V0 ++ V1), round to nearest even
	FCVTN28H(1, 2)
	FCMEQ4S(0, 0, 3)           // V3 lane = x == x ? ones : 0 (0 for NaN)
	FCMEQ4S(1, 1, 4)
	XTN4H(3, 5)                // V5 = the masks as halves
	XTN28H(4, 5)
	VORR V30.B16, V5.B16, V5.B16 // keep = ones, or 0xfe00 for a NaN
	VAND V5.B16, V2.B16, V2.B16  // NaN -> sign | 0x7e00 (FCVTN gave sign|0x7e00|payload)
	VST1.P [V2.H8], 16(dp)
	SUBS   $1, cnt
	BNE    f32ToF16NEON_loop

f32ToF16NEON_done:
	RET

// func f16ToF32NEON(dst *float32, src *byte, n int)
TEXT ·f16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	LSR  $3, cnt
	CBZ  cnt, f16ToF32NEON_done

f16ToF32NEON_loop:
	VLD1.P 16(ap), [V0.H8]
	FCVTL4S(0, 1)              // exact; a NaN comes back quiet with its payload
	FCVTL24S(0, 2)
	VST1.P [V1.S4, V2.S4], 32(dp)
	SUBS   $1, cnt
	BNE    f16ToF32NEON_loop

f16ToF32NEON_done:
	RET

// func f32ToBF16NEON(dst *byte, src *float32, n int)
//
// bf16 = (bits + 0x7fff + (bits>>16)&1) >> 16 (round to nearest even in
// integer arithmetic; overflow carries into the exponent and gives Inf),
// except NaN: bits>>16 | 0x40, taken here as the top half of bits|0x400000.
TEXT ·f32ToBF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	MOVD $1, tmp
	VDUP tmp, V28.S4           // V28 = 1 in every lane
	MOVD $0x7fff, tmp
	VDUP tmp, V29.S4           // V29 = 0x7fff
	MOVD $0x400000, tmp
	VDUP tmp, V30.S4           // V30 = the quiet bit of the top half
	LSR  $3, cnt
	CBZ  cnt, f32ToBF16NEON_done

f32ToBF16NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	VUSHR  $16, V0.S4, V2.S4     // V2 = bits >> 16
	VUSHR  $16, V1.S4, V3.S4
	VAND   V28.B16, V2.B16, V2.B16 // the lowest kept bit, for ties to even
	VAND   V28.B16, V3.B16, V3.B16
	VADD   V29.S4, V2.S4, V2.S4
	VADD   V29.S4, V3.S4, V3.S4
	VADD   V0.S4, V2.S4, V2.S4     // V2 = bits + 0x7fff + lsb: rounded in the top half
	VADD   V1.S4, V3.S4, V3.S4
	VORR   V30.B16, V0.B16, V4.B16 // V4 = the NaN form, bits | 0x400000
	VORR   V30.B16, V1.B16, V5.B16
	FCMEQ4S(0, 0, 6)               // V6 lane = x == x ? ones : 0 (0 for NaN)
	FCMEQ4S(1, 1, 7)
	VBSL   V4.B16, V2.B16, V6.B16  // V6 = not NaN ? rounded : NaN form
	VBSL   V5.B16, V3.B16, V7.B16
	VUZP2  V7.H8, V6.H8, V8.H8     // V8 = the top halves of V6 then V7
	VST1.P [V8.H8], 16(dp)
	SUBS   $1, cnt
	BNE    f32ToBF16NEON_loop

f32ToBF16NEON_done:
	RET

// func bf16ToF32NEON(dst *float32, src *byte, n int)
TEXT ·bf16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	VEOR V31.B16, V31.B16, V31.B16
	LSR  $3, cnt
	CBZ  cnt, bf16ToF32NEON_done

bf16ToF32NEON_loop:
	VLD1.P 16(ap), [V0.H8]
	BF16WIDEN(V0, V31, V1, V2)     // exact, NaN payloads kept
	VST1.P [V1.S4, V2.S4], 32(dp)
	SUBS   $1, cnt
	BNE    bf16ToF32NEON_loop

bf16ToF32NEON_done:
	RET
