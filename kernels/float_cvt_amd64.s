//go:build !purego

#include "textflag.h"

// F32 <-> F16 and F32 <-> BF16 row conversions for AVX2+F16C. Every routine
// takes n, a multiple of 8 and > 0; the Go wrappers in float_cvt_amd64.go
// convert the rest with the scalar functions. All four are bit-exact with
// F32ToF16, F16ToF32, F32ToBF16 and BF16ToF32.

// SPLAT32 defines sym as eight copies of the 32-bit value v (a full ymm
// memory operand).
#define SPLAT32(sym, v) \
	DATA sym+0(SB)/4, $v;  \
	DATA sym+4(SB)/4, $v;  \
	DATA sym+8(SB)/4, $v;  \
	DATA sym+12(SB)/4, $v; \
	DATA sym+16(SB)/4, $v; \
	DATA sym+20(SB)/4, $v; \
	DATA sym+24(SB)/4, $v; \
	DATA sym+28(SB)/4, $v; \
	GLOBL sym(SB), RODATA|NOPTR, $32

SPLAT32(cvtSign<>, 0x80000000)
SPLAT32(cvtQNaN<>, 0x7fc00000)
SPLAT32(cvtAbs<>, 0x7fffffff)
SPLAT32(cvtInf<>, 0x7f800000)
SPLAT32(cvtOne<>, 0x00000001)
SPLAT32(cvtRound<>, 0x00007fff)
SPLAT32(cvtQuiet<>, 0x00000040)

#define PD DI
#define PS SI
#define CNT CX

// func f32ToF16AVX2(dst *byte, src *float32, n int)
//
// VCVTPS2PH rounds to nearest even and handles overflow and subnormals like
// F32ToF16, but keeps the top of a NaN's payload; F32ToF16 gives sign|0x7e00
// for every NaN, so NaN lanes are first replaced by sign|0x7fc00000.
TEXT ·f32ToF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS
	MOVQ n+16(FP), CNT

f32ToF16AVX2_loop:
	VMOVUPS   (PS), Y0
	VCMPPS    $3, Y0, Y0, Y1           // Y1 = isNaN(x) (unordered with itself)
	VANDPS    cvtSign<>(SB), Y0, Y2
	VORPS     cvtQNaN<>(SB), Y2, Y2    // Y2 = sign(x) | quiet NaN, no payload
	VBLENDVPS Y1, Y2, Y0, Y0           // Y0 = isNaN ? Y2 : x
	VCVTPS2PH $0, Y0, (PD)             // round to nearest even
	ADDQ      $32, PS
	ADDQ      $16, PD
	SUBQ      $8, CNT
	JNZ       f32ToF16AVX2_loop
	VZEROUPPER
	RET

// func f16ToF32AVX2(dst *float32, src *byte, n int)
TEXT ·f16ToF32AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS
	MOVQ n+16(FP), CNT

f16ToF32AVX2_loop:
	VCVTPH2PS (PS), Y0                 // exact; NaNs come back quiet with their payload
	VMOVUPS   Y0, (PD)
	ADDQ      $16, PS
	ADDQ      $32, PD
	SUBQ      $8, CNT
	JNZ       f16ToF32AVX2_loop
	VZEROUPPER
	RET

// func f32ToBF16AVX2(dst *byte, src *float32, n int)
//
// bf16 = (bits + 0x7fff + (bits>>16)&1) >> 16, except NaN: bits>>16 | 0x40.
TEXT ·f32ToBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS
	MOVQ n+16(FP), CNT

f32ToBF16AVX2_loop:
	VMOVDQU      (PS), Y0
	VPSRLD       $16, Y0, Y3              // Y3 = bits >> 16 (truncated bf16)
	VPAND        cvtOne<>(SB), Y3, Y1     // Y1 = lowest kept bit, for ties to even
	VPADDD       cvtRound<>(SB), Y1, Y1
	VPADDD       Y0, Y1, Y1
	VPSRLD       $16, Y1, Y1              // Y1 = rounded bf16
	VPAND        cvtAbs<>(SB), Y0, Y2
	VPCMPGTD     cvtInf<>(SB), Y2, Y2     // Y2 = |bits| > Inf bits: NaN
	VPOR         cvtQuiet<>(SB), Y3, Y3   // Y3 = quiet NaN, top payload kept
	VPBLENDVB    Y2, Y3, Y1, Y1           // Y1 = NaN ? Y3 : Y1
	VEXTRACTI128 $1, Y1, X2
	VPACKUSDW    X2, X1, X1               // eight 32-bit lanes (< 2^16) to 16 bits
	VMOVDQU      X1, (PD)
	ADDQ         $32, PS
	ADDQ         $16, PD
	SUBQ         $8, CNT
	JNZ          f32ToBF16AVX2_loop
	VZEROUPPER
	RET

// func bf16ToF32AVX2(dst *float32, src *byte, n int)
TEXT ·bf16ToF32AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS
	MOVQ n+16(FP), CNT

bf16ToF32AVX2_loop:
	VPMOVZXWD (PS), Y0                 // widen eight uint16 to uint32
	VPSLLD    $16, Y0, Y0              // bf16 is the top half of a float32
	VMOVDQU   Y0, (PD)
	ADDQ      $16, PS
	ADDQ      $32, PD
	SUBQ      $8, CNT
	JNZ       bf16ToF32AVX2_loop
	VZEROUPPER
	RET
