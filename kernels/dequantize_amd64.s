//go:build !purego

#include "textflag.h"

// AVX2+F16C expansion of q8_0 and q4_0 blocks to float32: per value
// float32(q) * d (q4_0: float32(nibble - 8) * d), d the block's fp16 scale
// as float32; the same single rounding as the Go loops, so the same bits.
// Used by attention over quantized value caches.

DATA lowNibbles<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA lowNibbles<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL lowNibbles<>(SB), RODATA|NOPTR, $16

DATA eights<>+0(SB)/8, $0x0808080808080808
DATA eights<>+8(SB)/8, $0x0808080808080808
GLOBL eights<>(SB), RODATA|NOPTR, $16

// SCALE(off): Y0 = the fp16 scale at off(SI) as float32 in every lane.
#define SCALE(off) \
	MOVWLZX      off(SI), AX; \
	VMOVD        AX, X0;      \
	VCVTPH2PS    X0, X0;      \
	VBROADCASTSS X0, Y0

// OUT8(src, off): dst[off/4 ..] = float32(8 int32 lanes of src) * d.
#define OUT8(src, off) \
	VCVTDQ2PS src, src;   \
	VMULPS    Y0, src, src; \
	VMOVUPS   src, off(DI)

// func dequantizeQ8_0AVX2(dst *float32, src *byte, blocks int)
TEXT ·dequantizeQ8_0AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX

q8loop:
	TESTQ CX, CX
	JZ    q8done
	SCALE(0)
	VPMOVSXBD 2(SI), Y1
	VPMOVSXBD 10(SI), Y2
	VPMOVSXBD 18(SI), Y3
	VPMOVSXBD 26(SI), Y4
	OUT8(Y1, 0)
	OUT8(Y2, 32)
	OUT8(Y3, 64)
	OUT8(Y4, 96)
	ADDQ $34, SI
	ADDQ $128, DI
	DECQ CX
	JMP  q8loop

q8done:
	VZEROUPPER
	RET

// func dequantizeQ4_0AVX2(dst *float32, src *byte, blocks int)
TEXT ·dequantizeQ4_0AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	VMOVDQU lowNibbles<>(SB), X6
	VMOVDQU eights<>(SB), X7

q4loop:
	TESTQ   CX, CX
	JZ      q4done
	SCALE(0)
	VMOVDQU 2(SI), X1
	VPSRLW  $4, X1, X2
	VPAND   X6, X1, X1     // low nibbles: values 0..15
	VPAND   X6, X2, X2     // high nibbles: values 16..31
	VPSUBB  X7, X1, X1
	VPSUBB  X7, X2, X2
	VPMOVSXBD X1, Y3
	VPSRLDQ $8, X1, X1
	VPMOVSXBD X1, Y4
	VPMOVSXBD X2, Y5
	VPSRLDQ $8, X2, X2
	VPMOVSXBD X2, Y1
	OUT8(Y3, 0)
	OUT8(Y4, 32)
	OUT8(Y5, 64)
	OUT8(Y1, 96)
	ADDQ $18, SI
	ADDQ $128, DI
	DECQ CX
	JMP  q4loop

q4done:
	VZEROUPPER
	RET
