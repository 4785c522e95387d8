//go:build !purego

#include "textflag.h"

// AVX2+FMA block kernels for turbo3 and turbo3_tcq keys and values (see
// attn_amd64.go for the semantics as Go loops). Each loop trip handles 8
// values: their indices are spread into the 8 dword lanes of a YMM register
// with variable shifts, then turned into levels by one VPERMPS (turbo3: the
// 8 centroids fit one register) or one VGATHERDPS (turbo3_tcq: 512-entry
// codebook), and combined with q or acc by one FMA.

// Per-lane shift counts and masks.
DATA shiftLo<>+0(SB)/4, $0
DATA shiftLo<>+4(SB)/4, $2
DATA shiftLo<>+8(SB)/4, $4
DATA shiftLo<>+12(SB)/4, $6
DATA shiftLo<>+16(SB)/4, $8
DATA shiftLo<>+20(SB)/4, $10
DATA shiftLo<>+24(SB)/4, $12
DATA shiftLo<>+28(SB)/4, $14
GLOBL shiftLo<>(SB), RODATA|NOPTR, $32

DATA shiftHi<>+0(SB)/4, $0
DATA shiftHi<>+4(SB)/4, $1
DATA shiftHi<>+8(SB)/4, $2
DATA shiftHi<>+12(SB)/4, $3
DATA shiftHi<>+16(SB)/4, $4
DATA shiftHi<>+20(SB)/4, $5
DATA shiftHi<>+24(SB)/4, $6
DATA shiftHi<>+28(SB)/4, $7
GLOBL shiftHi<>(SB), RODATA|NOPTR, $32

DATA shiftTCQ<>+0(SB)/4, $0
DATA shiftTCQ<>+4(SB)/4, $3
DATA shiftTCQ<>+8(SB)/4, $6
DATA shiftTCQ<>+12(SB)/4, $9
DATA shiftTCQ<>+16(SB)/4, $12
DATA shiftTCQ<>+20(SB)/4, $15
DATA shiftTCQ<>+24(SB)/4, $18
DATA shiftTCQ<>+28(SB)/4, $21
GLOBL shiftTCQ<>(SB), RODATA|NOPTR, $32

DATA three<>+0(SB)/4, $3
GLOBL three<>(SB), RODATA|NOPTR, $4
DATA four<>+0(SB)/4, $4
GLOBL four<>(SB), RODATA|NOPTR, $4
DATA mask9<>+0(SB)/4, $0x1ff
GLOBL mask9<>(SB), RODATA|NOPTR, $4

// Register roles.
#define QP SI      // &q[8i] or &acc[8i]
#define QS DI      // the block's qs bytes (TCQ: advanced by 3 per trip)
#define IX R8      // i, the group of 8 values
#define CB R9      // &tcq3Codebook[0]
#define ACC Y0     // 8 partial dot sums
#define IDX Y1     // 8 indices or states
#define HI Y2      // turbo3 bit-2 contributions
#define LV Y3      // 8 levels
#define T Y4
#define GMASK Y5   // gather mask (VGATHERDPS clears it)
#define LEVELS Y8  // centroids3
#define SH1 Y9     // shiftLo or shiftTCQ
#define SH2 Y10    // shiftHi
#define MLO Y11    // 3 or 0x1ff in every lane
#define MHI Y12    // 4 in every lane
#define SV Y13     // s in every lane

// T3SETUP loads turbo3's constants.
#define T3SETUP \
	VMOVUPS      ·centroids3(SB), LEVELS; \
	VMOVDQU      shiftLo<>(SB), SH1;      \
	VMOVDQU      shiftHi<>(SB), SH2;      \
	VPBROADCASTD three<>(SB), MLO;        \
	VPBROADCASTD four<>(SB), MHI

// T3LEVELS sets LV to the levels of values 8i..8i+7:
// idx_k = (lo >> 2k)&3 | ((h<<2) >> k)&4, lo = qs[2i] | qs[2i+1]<<8, h = qs[32+i].
#define T3LEVELS \
	MOVWLZX      (QS)(IX*2), AX;   \
	MOVBLZX      32(QS)(IX*1), BX; \
	SHLL         $2, BX;           \
	VMOVD        AX, X1;           \
	VPBROADCASTD X1, IDX;          \
	VMOVD        BX, X2;           \
	VPBROADCASTD X2, HI;           \
	VPSRLVD      SH1, IDX, IDX;    \
	VPAND        MLO, IDX, IDX;    \
	VPSRLVD      SH2, HI, HI;      \
	VPAND        MHI, HI, HI;      \
	VPOR         HI, IDX, IDX;     \
	VPERMPS      LEVELS, IDX, LV

// TCQSETUP loads turbo3_tcq's constants.
#define TCQSETUP \
	VMOVDQU      shiftTCQ<>(SB), SH1; \
	VPBROADCASTD mask9<>(SB), MLO;    \
	LEAQ         ·tcq3Codebook(SB), CB

// TCQLEVELS sets LV to the codebook entries of values 8i..8i+7, whose 9-bit
// states start at bits 24i+3k: one 4-byte load at qs[3i], shifted per lane.
#define TCQLEVELS \
	VPBROADCASTD (QS), IDX;             \
	VPSRLVD      SH1, IDX, IDX;         \
	VPAND        MLO, IDX, IDX;         \
	VPCMPEQD     GMASK, GMASK, GMASK;   \
	VGATHERDPS   GMASK, (CB)(IDX*4), LV

// HSUM leaves the sum of ACC's 8 lanes in X0.
#define HSUM \
	VEXTRACTF128 $1, ACC, X1; \
	VADDPS       X1, X0, X0;  \
	VMOVHLPS     X0, X0, X1;  \
	VADDPS       X1, X0, X0;  \
	VMOVSHDUP    X0, X1;      \
	VADDSS       X1, X0, X0

// func dotTurbo3AVX2(q *float32, qs *byte) float32
TEXT ·dotTurbo3AVX2(SB), NOSPLIT, $0-20
	MOVQ   q+0(FP), QP
	MOVQ   qs+8(FP), QS
	T3SETUP
	VXORPS ACC, ACC, ACC
	XORQ   IX, IX

dotTurbo3AVX2_loop:
	T3LEVELS
	VFMADD231PS (QP), LV, ACC // ACC += q[8i:8i+8] * LV
	ADDQ        $32, QP
	INCQ        IX
	CMPQ        IX, $16
	JLT         dotTurbo3AVX2_loop

	HSUM
	VZEROUPPER
	MOVSS X0, ret+16(FP)
	RET

// func axpyTurbo3AVX2(acc *float32, s float32, qs *byte)
TEXT ·axpyTurbo3AVX2(SB), NOSPLIT, $0-24
	MOVQ         acc+0(FP), QP
	VBROADCASTSS s+8(FP), SV
	MOVQ         qs+16(FP), QS
	T3SETUP
	XORQ         IX, IX

axpyTurbo3AVX2_loop:
	T3LEVELS
	VMOVUPS     (QP), T
	VFMADD231PS LV, SV, T // T += s * LV
	VMOVUPS     T, (QP)
	ADDQ        $32, QP
	INCQ        IX
	CMPQ        IX, $16
	JLT         axpyTurbo3AVX2_loop

	VZEROUPPER
	RET

// func dotTCQ3AVX2(q *float32, qs *byte) float32
TEXT ·dotTCQ3AVX2(SB), NOSPLIT, $0-20
	MOVQ   q+0(FP), QP
	MOVQ   qs+8(FP), QS
	TCQSETUP
	VXORPS ACC, ACC, ACC
	MOVQ   $16, IX

dotTCQ3AVX2_loop:
	TCQLEVELS
	VFMADD231PS (QP), LV, ACC // ACC += q[8i:8i+8] * LV
	ADDQ        $32, QP
	ADDQ        $3, QS        // next 24 bits of the stream
	DECQ        IX
	JNZ         dotTCQ3AVX2_loop

	HSUM
	VZEROUPPER
	MOVSS X0, ret+16(FP)
	RET

// func axpyTCQ3AVX2(acc *float32, s float32, qs *byte)
TEXT ·axpyTCQ3AVX2(SB), NOSPLIT, $0-24
	MOVQ         acc+0(FP), QP
	VBROADCASTSS s+8(FP), SV
	MOVQ         qs+16(FP), QS
	TCQSETUP
	MOVQ         $16, IX

axpyTCQ3AVX2_loop:
	TCQLEVELS
	VMOVUPS     (QP), T
	VFMADD231PS LV, SV, T // T += s * LV
	VMOVUPS     T, (QP)
	ADDQ        $32, QP
	ADDQ        $3, QS
	DECQ        IX
	JNZ         axpyTCQ3AVX2_loop

	VZEROUPPER
	RET
