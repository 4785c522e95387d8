//go:build !purego

#include "textflag.h"

// q8_0 / q8_1 activation quantizers (AVX2+F16C), bit for bit like
// quantizeRowQ8_0Generic / quantizeRowQ8_1Generic, which follow ggml's x86
// quantize_row_q8_0 / q8_1: per 32 values amax = max|x|, d = amax/127
// stored as fp16, q = round-half-even(x * (127/amax)), and for q8_1
// s = fp16(float32(sum q) * d).

#define DST DI // output block pointer
#define SRC SI // input pointer
#define NB  CX // blocks left

#define V0 Y0  // the block's 32 values, then their quants
#define V1 Y1
#define V2 Y2
#define V3 Y3
#define AM Y4  // |x| maxima
#define AMx X4
#define T0 Y5
#define T0x X5
#define T1 Y6
#define T1x X6
#define ID Y7  // 127/amax broadcast
#define IDx X7
#define DX X8  // d = amax/127
#define ABSMASK Y14 // 0x7fffffff lanes
#define PERM Y15    // dword order that undoes the per-lane packs

DATA absmask<>+0(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+8(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+16(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+24(SB)/8, $0x7fffffff7fffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $32

DATA packperm<>+0(SB)/8, $0x0000000400000000
DATA packperm<>+8(SB)/8, $0x0000000500000001
DATA packperm<>+16(SB)/8, $0x0000000600000002
DATA packperm<>+24(SB)/8, $0x0000000700000003
GLOBL packperm<>(SB), RODATA|NOPTR, $32

DATA f127<>+0(SB)/4, $127.0
GLOBL f127<>(SB), RODATA|NOPTR, $4

// Q8_SCALE loads the 32 values at SRC into V0..V3 and leaves
// DX = d = amax/127 and ID = 127/amax (0 when amax = 0) in every lane.
#define Q8_SCALE \
	VMOVUPS      0(SRC), V0 \
	VMOVUPS      32(SRC), V1 \
	VMOVUPS      64(SRC), V2 \
	VMOVUPS      96(SRC), V3 \
	VANDPS       ABSMASK, V0, AM      /* AM = |V0|             */ \
	VANDPS       ABSMASK, V1, T0 \
	VMAXPS       T0, AM, AM \
	VANDPS       ABSMASK, V2, T0 \
	VMAXPS       T0, AM, AM \
	VANDPS       ABSMASK, V3, T0 \
	VMAXPS       T0, AM, AM           /* AM = lane-wise max    */ \
	VEXTRACTF128 $1, AM, T0x \
	VMAXPS       T0x, AMx, AMx \
	VMOVHLPS     AMx, AMx, T0x \
	VMAXPS       T0x, AMx, AMx \
	VMOVSHDUP    AMx, T0x \
	VMAXSS       T0x, AMx, AMx        /* AM.0 = amax           */ \
	VDIVSS       f127<>(SB), AMx, DX  /* DX = amax/127         */ \
	VMOVSS       f127<>(SB), IDx \
	VDIVSS       AMx, IDx, IDx        /* ID = 127/amax         */ \
	VXORPS       T0x, T0x, T0x \
	VCMPSS       $4, T0x, AMx, T0x    /* T0 = amax != 0 ? ^0 : 0 */ \
	VANDPS       T0x, IDx, IDx        /* ID = 0 for a zero block */ \
	VBROADCASTSS IDx, ID

// Q8_ROUND turns V0..V3 into int32 quants: round-half-even(v*ID).
#define Q8_ROUND \
	VMULPS    ID, V0, V0 \
	VMULPS    ID, V1, V1 \
	VMULPS    ID, V2, V2 \
	VMULPS    ID, V3, V3 \
	VROUNDPS  $0, V0, V0  /* to nearest, ties to even */ \
	VROUNDPS  $0, V1, V1 \
	VROUNDPS  $0, V2, V2 \
	VROUNDPS  $0, V3, V3 \
	VCVTPS2DQ V0, V0      /* exact: already integral */ \
	VCVTPS2DQ V1, V1 \
	VCVTPS2DQ V2, V2 \
	VCVTPS2DQ V3, V3

// Q8_STORE(off) packs the int32 quants V0..V3 (all in [-127, 127]) to
// bytes and stores the 32 of them at off(DST).
#define Q8_STORE(off) \
	VPACKSSDW V1, V0, V0   /* int16: 0-3 8-11 | 4-7 12-15      */ \
	VPACKSSDW V3, V2, V2   /* int16: 16-19 24-27 | 20-23 28-31 */ \
	VPACKSSWB V2, V0, V0   /* int8 in dword order 0 2 4 6 1 3 5 7 */ \
	VPERMD    V0, PERM, V0 /* back to 0..31                    */ \
	VMOVDQU   V0, off(DST)

// STORE_H(x, off) stores x.0 as fp16 (round to nearest even) at off(DST).
#define STORE_H(x, off) \
	VCVTPS2PH $0, x, T1x \
	VPEXTRW   $0, T1x, off(DST)

// Q8_PROLOGUE loads the arguments (dst []byte, src []float32) and the
// constants.
#define Q8_PROLOGUE \
	MOVQ    dst_base+0(FP), DST \
	MOVQ    src_base+24(FP), SRC \
	MOVQ    src_len+32(FP), NB \
	SHRQ    $5, NB \
	VMOVDQU absmask<>(SB), ABSMASK \
	VMOVDQU packperm<>(SB), PERM

// func quantizeRowQ8_0AVX2(dst []byte, src []float32)
TEXT ·quantizeRowQ8_0AVX2(SB), NOSPLIT, $0-48
	Q8_PROLOGUE
	TESTQ NB, NB
	JZ    quantizeRowQ8_0AVX2_done

quantizeRowQ8_0AVX2_loop:
	Q8_SCALE
	STORE_H(DX, 0)
	Q8_ROUND
	Q8_STORE(2)
	ADDQ $128, SRC
	ADDQ $34, DST
	DECQ NB
	JNZ  quantizeRowQ8_0AVX2_loop

quantizeRowQ8_0AVX2_done:
	VZEROUPPER
	RET

// func quantizeRowQ8_1AVX2(dst []byte, src []float32)
TEXT ·quantizeRowQ8_1AVX2(SB), NOSPLIT, $0-48
	Q8_PROLOGUE
	TESTQ NB, NB
	JZ    quantizeRowQ8_1AVX2_done

quantizeRowQ8_1AVX2_loop:
	Q8_SCALE
	STORE_H(DX, 0)
	Q8_ROUND
	VPADDD       V1, V0, T0       // T0 = int32 lane sums of the quants
	VPADDD       V3, V2, T1
	VPADDD       T1, T0, T0
	VEXTRACTI128 $1, T0, T1x
	VPADDD       T1x, T0x, T0x
	VPSHUFD      $0x4e, T0x, T1x  // swap the 64-bit halves
	VPADDD       T1x, T0x, T0x
	VPSHUFD      $0xb1, T0x, T1x  // swap neighbouring dwords
	VPADDD       T1x, T0x, T0x    // T0.0 = sum q
	VCVTDQ2PS    T0x, T0x         // exact: |sum| <= 32*127
	VMULSS       DX, T0x, T0x     // s = float32(sum) * d
	STORE_H(T0x, 2)
	Q8_STORE(4)
	ADDQ $128, SRC
	ADDQ $36, DST
	DECQ NB
	JNZ  quantizeRowQ8_1AVX2_loop

quantizeRowQ8_1AVX2_done:
	VZEROUPPER
	RET
