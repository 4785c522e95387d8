//go:build !purego

#include "textflag.h"

// Dot products of the legacy 32-value quant blocks (Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0) with q8_0 / q8_1 activation blocks, after ggml's x86 quants.c.
//
// Per block the 32 weight quants are unpacked into a YMM register of bytes.
// Signed weights (Q4_0, Q5_0, Q8_0) use the sign trick: WA = |q|
// (unsigned), and each activation vector y becomes sign(y, q), so that an
// unsigned x signed byte product gives q*y. Unsigned weights (Q4_1, Q5_1)
// multiply y directly. IDOT turns the byte products into eight int32 sums
// of four (exact: every partial fits its lane).
//
// Accumulation order (the same in the single- and the multi-column
// routines, so that a column's result has the same bits either way, which
// batching and speculative verification rely on): a row of nb blocks has
// four float32 chains. Block b < nb&^3 goes into chain b%4, the last nb%4
// blocks into chain 0, in block order; each block adds
//
//	q*_0: chain = fma(dw*dx, float32(sumi), chain)
//	q*_1: chain = chain + fma(dw*dx, float32(sumi), mw*sx)
//
// where sumi is the block's exact integer sum and dw*dx, mw*sx are rounded
// float32 products; the result is (chain0+chain2) + (chain1+chain3).
//
// The single-column routines hold the four chains in the four lanes of one
// XMM register and run four blocks per step: IDOT per block, FOLD4 adds
// the four blocks' lane sums into one vector (lane j = block j, exact
// integer adds), one conversion, gathered scales and one FMA serve all
// four. The multi-column routines run one weight block per step against
// four columns through the same FOLD4 (lane c = column c), and hold the
// chains in four XMM registers, one per block%4, lane c for column c.
//
// The file is assembled twice over: the AVX2 routines use IDOT =
// VPMADDUBSW+VPMADDWD, then IDOT is redefined to the AVX-512 VNNI
// VPDPBUSD (EVEX-encoded, 256-bit) and the same block macros build the
// *VNNI routines.

// Register roles shared by every routine.
#define WP SI  // weight block pointer
#define NB CX  // blocks left
#define C0 Y0  // int32 lane sums of one block (single: block j of the
#define C1 Y1  // step; multi: column c), then the block sums as float32
#define C2 Y2
#define C3 Y3
#define C0x X0
#define C1x X1
#define C2x X2
#define C3x X3
#define T0 Y8  // unpacking temporary
#define T0x X8
#define WD Y10 // weight block scale, broadcast (q*_0: dw; q*_1: dw,mw pairs)
#define WDx X10
#define WS Y11 // signed weight quants (the sign source of the sign trick)
#define WA Y12 // unsigned weight quants (|q| for the signed types)
#define WAx X12
#define U Y13  // activation loads for the sign trick
#define ONES16 Y14 // int16 ones, for VPMADDWD
#define MASK0F Y15 // 0x0f bytes

// Single-column routines.
#define XP DI  // activation block pointer
#define ACC X4 // lane j: chain j
#define SD Y5  // the step's scales dw*dx (lanes 0-3)
#define SDx X5
#define SX Y6  // activation scales, and scratch
#define SXx X6
#define MSx X7 // mw*sx, then fma(dw*dx, sumi, mw*sx) (q*_1)

// Multi-column routines.
#define P0 DI  // column 0..3 activation block pointers
#define P1 R8
#define P2 R9
#define P3 R10
#define NC DX  // number of columns, 1..4
#define OUT R11
#define ACC0 X4 // chain j, lane c: column c
#define ACC1 X5
#define ACC2 X6
#define ACC3 X7
#define SC Y9  // the block's scales, lane c for column c
#define SCx X9

DATA mask0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL mask0f<>(SB), RODATA|NOPTR, $32

DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32

DATA eight<>+0(SB)/8, $0x0808080808080808
DATA eight<>+8(SB)/8, $0x0808080808080808
DATA eight<>+16(SB)/8, $0x0808080808080808
DATA eight<>+24(SB)/8, $0x0808080808080808
GLOBL eight<>(SB), RODATA|NOPTR, $32

DATA highf0<>+0(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA highf0<>+8(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA highf0<>+16(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA highf0<>+24(SB)/8, $0xf0f0f0f0f0f0f0f0
GLOBL highf0<>(SB), RODATA|NOPTR, $32

DATA bit4<>+0(SB)/8, $0x1010101010101010
DATA bit4<>+8(SB)/8, $0x1010101010101010
DATA bit4<>+16(SB)/8, $0x1010101010101010
DATA bit4<>+24(SB)/8, $0x1010101010101010
GLOBL bit4<>(SB), RODATA|NOPTR, $32

// bitshuf picks, for output byte j, byte j/8 of the broadcast qh word
// (VPSHUFB indexes within each 128-bit lane, and both lanes hold qh).
DATA bitshuf<>+0(SB)/8, $0x0000000000000000
DATA bitshuf<>+8(SB)/8, $0x0101010101010101
DATA bitshuf<>+16(SB)/8, $0x0202020202020202
DATA bitshuf<>+24(SB)/8, $0x0303030303030303
GLOBL bitshuf<>(SB), RODATA|NOPTR, $32

// bitsel holds 1<<(j%8) in byte j.
DATA bitsel<>+0(SB)/8, $0x8040201008040201
DATA bitsel<>+8(SB)/8, $0x8040201008040201
DATA bitsel<>+16(SB)/8, $0x8040201008040201
DATA bitsel<>+24(SB)/8, $0x8040201008040201
GLOBL bitsel<>(SB), RODATA|NOPTR, $32

// halves reorders eight fp16 (d0 s0 d1 s1 d2 s2 d3 s3) to
// (d0 d1 d2 d3 s0 s1 s2 s3) under VPSHUFB.
DATA halves<>+0(SB)/8, $0x0d0c090805040100
DATA halves<>+8(SB)/8, $0x0f0e0b0a07060302
GLOBL halves<>(SB), RODATA|NOPTR, $16

// NIBBLES(addr): WA[j] = addr[j]&15, WA[16+j] = addr[j]>>4 for j < 16,
// the element order of a q4 block.
#define NIBBLES(addr) \
	VMOVDQU     addr, WAx        /* WA.lo = 16 packed bytes         */ \
	VPSRLW      $4, WAx, T0x     /* T0.lo = bytes >> 4 (per word)   */ \
	VINSERTI128 $1, T0x, WA, WA  /* WA.hi = T0.lo                   */ \
	VPAND       MASK0F, WA, WA   /* keep one nibble per byte        */

// QHBITS(addr, dst): dst[j] = 0xff if bit j of the uint32 at addr is set,
// else 0.
#define QHBITS(addr, dst) \
	VPBROADCASTD addr, dst                  /* every dword = qh            */ \
	VPSHUFB      bitshuf<>(SB), dst, dst    /* dst[j] = byte j/8 of qh     */ \
	VPAND        bitsel<>(SB), dst, dst     /* dst[j] &= 1<<(j%8)          */ \
	VPCMPEQB     bitsel<>(SB), dst, dst     /* dst[j] = bit set ? 0xff : 0 */

// Weight quant unpackers. off is the byte offset of the block from WP. The
// signed ones leave WS = q (int8) and WA = |q|; the unsigned ones WA = q.
#define WQ_Q4_0(off) \
	NIBBLES(off+2(WP)) \
	VPSUBB  eight<>(SB), WA, WS /* WS = nibble - 8 */ \
	VPSIGNB WS, WS, WA          /* WA = |WS|       */

#define WQ_Q5_0(off) \
	NIBBLES(off+6(WP)) \
	QHBITS(off+2(WP), T0) \
	VPANDN  highf0<>(SB), T0, T0 /* T0 = bit clear ? 0xf0 : 0          */ \
	VPOR    T0, WA, WS           /* WS = nibble | bit<<4 - 16, as int8 */ \
	VPSIGNB WS, WS, WA           /* WA = |WS|                          */

#define WQ_Q8_0(off) \
	VMOVDQU off+2(WP), WS \
	VPABSB  WS, WA        /* WA = |q|; -128 becomes 128 as a uint8 */

#define WQ_Q4_1(off) \
	NIBBLES(off+4(WP))

#define WQ_Q5_1(off) \
	NIBBLES(off+8(WP)) \
	QHBITS(off+4(WP), T0) \
	VPAND bit4<>(SB), T0, T0 /* T0 = bit set ? 0x10 : 0 */ \
	VPOR  T0, WA, WA         /* WA = nibble | bit<<4    */

// WSCALE_H(off): WD = float32(the fp16 d of the weight block at off) in
// every lane; WSCALE_HH(off): WD = its d in lanes 0-3 and m in lanes 4-7.
#define WSCALE_H(off) \
	VPBROADCASTW off(WP), WDx \
	VCVTPH2PS    WDx, WD

#define WSCALE_HH(off) \
	VPBROADCASTD off(WP), WDx \
	HALVES(WDx)               /* d d d d m m m m */ \
	VCVTPH2PS    WDx, WD

// IDOT(src, dst): dst[i] = sum_{k<4} WA[4i+k]*src[4i+k] as int32, WA
// unsigned, src signed. AVX2 form: VPMADDUBSW's int16 pair sums cannot
// saturate here (|pair| <= 2*128*127 for Q8_0, far less for the others).
#define IDOT(src, dst) \
	VPMADDUBSW src, WA, dst     /* dst.i16[k] = WA*src over byte pairs */ \
	VPMADDWD   ONES16, dst, dst /* dst.i32[i] = pair sums summed twice  */

// COLI_S(off, p, c): c = int32 lane sums of the signed weights times the
// q8_0 quants of the block at off(p).
#define COLI_S(off, p, c) \
	VMOVDQU off+2(p), U \
	VPSIGNB WS, U, U  /* U = sign(q) * y */ \
	IDOT(U, c)

// COLI_U(off, p, c): c = int32 lane sums of the unsigned weights times the
// q8_1 quants of the block at off(p).
#define COLI_U(off, p, c) \
	IDOT(off+4(p), c)

// SUMS4: C0 lane j = float32(sum of the eight lanes of Cj), j < 4; the
// integer adds are exact, so their order does not matter.
#define SUMS4 \
	VPHADDD      C1, C0, C0     /* C0 = c0 c0 c1 c1 | c0 c0 c1 c1 (pair sums) */ \
	VPHADDD      C3, C2, C2     /* C2 = c2 c2 c3 c3 | ...                      */ \
	VPHADDD      C2, C0, C0     /* C0 = c0 c1 c2 c3 | c0 c1 c2 c3              */ \
	VEXTRACTI128 $1, C0, C1x \
	VPADDD       C1x, C0x, C0x  /* C0 lane j = sum of Cj                       */ \
	VCVTDQ2PS    C0x, C0x

// SUM1: C0 lane 0 = float32(sum of the eight lanes of C0).
#define SUM1 \
	VEXTRACTI128 $1, C0, C1x \
	VPADDD       C1x, C0x, C0x \
	VPSHUFD      $0x4e, C0x, C1x /* swap the quadwords */ \
	VPADDD       C1x, C0x, C0x \
	VPSHUFD      $0xb1, C0x, C1x /* swap the dwords    */ \
	VPADDD       C1x, C0x, C0x \
	VCVTDQ2PS    C0x, C0x

// GATHER_H(p, s, x): x lanes 0-3 = the fp16 at p+0, p+s, p+2s, p+3s.
#define GATHER_H(p, s, x) \
	VPBROADCASTW 0(p), x \
	VPINSRW      $1, s(p), x, x \
	VPINSRW      $2, 2*s(p), x, x \
	VPINSRW      $3, 3*s(p), x, x

// GATHER_HH(p, s, x): x dwords 0-3 = the fp16 pairs at p+0, p+s, p+2s,
// p+3s.
#define GATHER_HH(p, s, x) \
	VMOVD   0(p), x \
	VPINSRD $1, s(p), x, x \
	VPINSRD $2, 2*s(p), x, x \
	VPINSRD $3, 3*s(p), x, x

// HALVES(x): x's eight fp16 (four (d, m) or (d, s) pairs) reordered to
// the four first halves, then the four second ones.
#define HALVES(x) \
	VPSHUFB halves<>(SB), x, x

// STEP_H(wb): the single-column step's scales and accumulation for q*_0
// blocks wb bytes apart: ACC += (dw*dx) * sumi, lane j for block j.
#define STEP_H(wb) \
	GATHER_H(WP, wb, SDx) \
	GATHER_H(XP, 34, SXx) \
	VCVTPH2PS   SDx, SDx \
	VCVTPH2PS   SXx, SXx \
	VMULPS      SXx, SDx, SDx \
	VFMADD231PS SDx, C0x, ACC

// STEP_HH(wb): likewise for q*_1 blocks: ACC += fma(dw*dx, sumi, mw*sx).
#define STEP_HH(wb) \
	GATHER_HH(WP, wb, SDx) \
	GATHER_HH(XP, 36, SXx) \
	HALVES(SDx) \
	HALVES(SXx) \
	VCVTPH2PS    SDx, SD \
	VCVTPH2PS    SXx, SX \
	VMULPS       SX, SD, SD     /* SD = dw*dx (lanes 0-3), mw*sx (4-7) */ \
	VEXTRACTF128 $1, SD, MSx \
	VFMADD231PS  SDx, C0x, MSx \
	VADDPS       MSx, ACC, ACC

// ONE_H: the single-column tail block's scale and accumulation into chain
// 0 (lane 0 of ACC) for q*_0; ONE_HH for q*_1.
#define ONE_H \
	VPBROADCASTW 0(WP), SDx \
	VPBROADCASTW 0(XP), SXx \
	VCVTPH2PS    SDx, SDx \
	VCVTPH2PS    SXx, SXx \
	VMULSS       SXx, SDx, SDx \
	VFMADD231SS  SDx, C0x, ACC

#define ONE_HH \
	VMOVD       0(WP), SDx \
	VMOVD       0(XP), SXx \
	VCVTPH2PS   SDx, SDx \
	VCVTPH2PS   SXx, SXx \
	VMULPS      SXx, SDx, SDx  /* dw*dx, mw*sx */ \
	VMOVSHDUP   SDx, MSx       /* MS.0 = mw*sx */ \
	VFMADD231SS SDx, C0x, MSx \
	VADDSS      MSx, ACC, ACC

// DOT_SETUP loads the constants and clears the single-column chains.
#define DOT_SETUP \
	VMOVDQU mask0f<>(SB), MASK0F \
	VMOVDQU ones16<>(SB), ONES16 \
	VXORPS  ACC, ACC, ACC

// DOT_RESULT(ret): ret = (lane0+lane2) + (lane1+lane3) of ACC.
#define DOT_RESULT(ret) \
	VMOVHLPS  ACC, ACC, SXx /* SX.lo = ACC.hi       */ \
	VADDPS    SXx, ACC, ACC \
	VMOVSHDUP ACC, SXx      /* SX.0 = ACC.1         */ \
	VADDSS    SXx, ACC, ACC \
	VMOVSS    ACC, ret \
	VZEROUPPER

// DOTN_SETUP derives the column pointers from P0 and the stride in AX,
// pointing the columns at or beyond NC at column 0 (computed, never
// stored), loads the constants and clears the chains.
#define DOTN_SETUP \
	LEAQ    (P0)(AX*1), P1 \
	LEAQ    (P1)(AX*1), P2 \
	LEAQ    (P2)(AX*1), P3 \
	CMPQ    NC, $2 \
	CMOVQLT P0, P1 \
	CMPQ    NC, $3 \
	CMOVQLT P0, P2 \
	CMPQ    NC, $4 \
	CMOVQLT P0, P3 \
	VMOVDQU mask0f<>(SB), MASK0F \
	VMOVDQU ones16<>(SB), ONES16 \
	VXORPS  ACC0, ACC0, ACC0 \
	VXORPS  ACC1, ACC1, ACC1 \
	VXORPS  ACC2, ACC2, ACC2 \
	VXORPS  ACC3, ACC3, ACC3

// GATHER4_H(off, x): x lanes 0-3 = the fp16 d of the activation blocks at
// off from the four column pointers, gathered through AX and BX.
#define GATHER4_H(off, x) \
	MOVWLZX off(P0), AX \
	MOVWLZX off(P1), BX \
	SHLQ    $16, BX \
	ORQ     BX, AX \
	MOVWLZX off(P2), BX \
	SHLQ    $32, BX \
	ORQ     BX, AX \
	MOVWLZX off(P3), BX \
	SHLQ    $48, BX \
	ORQ     BX, AX   /* AX = dx3:dx2:dx1:dx0 */ \
	VMOVQ   AX, x

// GATHER4_HH(off, x): x dwords 0-3 = the fp16 (d, s) pairs of the
// activation blocks at off from the four column pointers.
#define GATHER4_HH(off, x) \
	MOVL    off(P0), AX \
	MOVL    off(P1), BX \
	SHLQ    $32, BX \
	ORQ     BX, AX \
	VMOVQ   AX, x \
	MOVL    off(P2), AX \
	MOVL    off(P3), BX \
	SHLQ    $32, BX \
	ORQ     BX, AX \
	VPINSRQ $1, AX, x, x

// BLOCKN_H(off, acc): a multi-column q*_0 block's scales and accumulation
// (the activation blocks at off from the column pointers, the weight scale
// in WD): acc += (dw*dx_c) * sumi_c, lane c.
#define BLOCKN_H(off, acc) \
	GATHER4_H(off, SCx) \
	VCVTPH2PS   SCx, SCx \
	VMULPS      WDx, SCx, SCx \
	VFMADD231PS SCx, C0x, acc

// BLOCKN_HH(off, acc): likewise for q*_1: acc += fma(dw*dx_c, sumi_c,
// mw*sx_c), lane c.
#define BLOCKN_HH(off, acc) \
	GATHER4_HH(off, SCx) \
	HALVES(SCx) \
	VCVTPH2PS    SCx, SC \
	VMULPS       WD, SC, SC  /* SC = dw*dx_c (lanes 0-3), mw*sx_c (4-7) */ \
	VEXTRACTF128 $1, SC, C2x \
	VFMADD231PS  SCx, C0x, C2x \
	VADDPS       C2x, acc, acc

// DOTN_RESULT leaves column c's result in ACC0 lane c (c < 4):
// (chain0+chain2) + (chain1+chain3), as DOT_RESULT.
#define DOTN_RESULT \
	VADDPS ACC2, ACC0, ACC0 \
	VADDPS ACC3, ACC1, ACC1 \
	VADDPS ACC1, ACC0, ACC0

// ADVANCE_N(wb, xb) moves the weight and the four column pointers on by
// wb and xb bytes.
#define ADVANCE_N(wb, xb) \
	ADDQ $wb, WP \
	ADDQ $xb, P0 \
	ADDQ $xb, P1 \
	ADDQ $xb, P2 \
	ADDQ $xb, P3

// The routines. Single-column ones run four blocks per step and the last
// n/32%4 blocks one at a time; multi-column ones run four blocks per step,
// one weight unpack per block for all four columns (those beyond NC repeat
// column 0, and their results are not stored), and the last blocks one at
// a time. See the top of the file for the accumulation order they share.

// func vecDotQ4_0AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ4_0AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotQ4_0AVX2_tail
	WQ_Q4_0(0)
	COLI_S(0, XP, C0)
	WQ_Q4_0(18)
	COLI_S(34, XP, C1)
	WQ_Q4_0(36)
	COLI_S(68, XP, C2)
	WQ_Q4_0(54)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(18)
	ADDQ $72, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ4_0AVX2_loop

vecDotQ4_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_0AVX2_done
	WQ_Q4_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $18, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ4_0AVX2_tail

vecDotQ4_0AVX2_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ4_0AVX2(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_0AVX2(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ4_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotNQ4_0AVX2_tail
	WQ_Q4_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q4_0(18)
	WSCALE_H(18)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q4_0(36)
	WSCALE_H(36)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q4_0(54)
	WSCALE_H(54)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(72, 136)
	SUBQ $4, NB
	JMP  vecDotNQ4_0AVX2_loop

vecDotNQ4_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotNQ4_0AVX2_done
	WQ_Q4_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(18, 34)
	DECQ  NB
	JMP   vecDotNQ4_0AVX2_tail

vecDotNQ4_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_0AVX2_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_0AVX2_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_0AVX2_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ4_0AVX2_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ4_0AVX2_ret:
	VZEROUPPER
	RET

// func vecDotQ5_0AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ5_0AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotQ5_0AVX2_tail
	WQ_Q5_0(0)
	COLI_S(0, XP, C0)
	WQ_Q5_0(22)
	COLI_S(34, XP, C1)
	WQ_Q5_0(44)
	COLI_S(68, XP, C2)
	WQ_Q5_0(66)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(22)
	ADDQ $88, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ5_0AVX2_loop

vecDotQ5_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_0AVX2_done
	WQ_Q5_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $22, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ5_0AVX2_tail

vecDotQ5_0AVX2_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ5_0AVX2(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_0AVX2(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ5_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotNQ5_0AVX2_tail
	WQ_Q5_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q5_0(22)
	WSCALE_H(22)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q5_0(44)
	WSCALE_H(44)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q5_0(66)
	WSCALE_H(66)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(88, 136)
	SUBQ $4, NB
	JMP  vecDotNQ5_0AVX2_loop

vecDotNQ5_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotNQ5_0AVX2_done
	WQ_Q5_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(22, 34)
	DECQ  NB
	JMP   vecDotNQ5_0AVX2_tail

vecDotNQ5_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_0AVX2_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_0AVX2_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_0AVX2_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ5_0AVX2_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ5_0AVX2_ret:
	VZEROUPPER
	RET

// func vecDotQ8_0AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ8_0AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ8_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotQ8_0AVX2_tail
	WQ_Q8_0(0)
	COLI_S(0, XP, C0)
	WQ_Q8_0(34)
	COLI_S(34, XP, C1)
	WQ_Q8_0(68)
	COLI_S(68, XP, C2)
	WQ_Q8_0(102)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(34)
	ADDQ $136, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ8_0AVX2_loop

vecDotQ8_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ8_0AVX2_done
	WQ_Q8_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $34, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ8_0AVX2_tail

vecDotQ8_0AVX2_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ8_0AVX2(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ8_0AVX2(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ8_0AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotNQ8_0AVX2_tail
	WQ_Q8_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q8_0(34)
	WSCALE_H(34)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q8_0(68)
	WSCALE_H(68)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q8_0(102)
	WSCALE_H(102)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(136, 136)
	SUBQ $4, NB
	JMP  vecDotNQ8_0AVX2_loop

vecDotNQ8_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotNQ8_0AVX2_done
	WQ_Q8_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(34, 34)
	DECQ  NB
	JMP   vecDotNQ8_0AVX2_tail

vecDotNQ8_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ8_0AVX2_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ8_0AVX2_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ8_0AVX2_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ8_0AVX2_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ8_0AVX2_ret:
	VZEROUPPER
	RET

// func vecDotQ4_1AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ4_1AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_1AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotQ4_1AVX2_tail
	WQ_Q4_1(0)
	COLI_U(0, XP, C0)
	WQ_Q4_1(20)
	COLI_U(36, XP, C1)
	WQ_Q4_1(40)
	COLI_U(72, XP, C2)
	WQ_Q4_1(60)
	COLI_U(108, XP, C3)
	SUMS4
	STEP_HH(20)
	ADDQ $80, WP
	ADDQ $144, XP
	SUBQ $4, NB
	JMP  vecDotQ4_1AVX2_loop

vecDotQ4_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_1AVX2_done
	WQ_Q4_1(0)
	COLI_U(0, XP, C0)
	SUM1
	ONE_HH
	ADDQ  $20, WP
	ADDQ  $36, XP
	DECQ  NB
	JMP   vecDotQ4_1AVX2_tail

vecDotQ4_1AVX2_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ4_1AVX2(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_1AVX2(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ4_1AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotNQ4_1AVX2_tail
	WQ_Q4_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	WQ_Q4_1(20)
	WSCALE_HH(20)
	COLI_U(36, P0, C0)
	COLI_U(36, P1, C1)
	COLI_U(36, P2, C2)
	COLI_U(36, P3, C3)
	SUMS4
	BLOCKN_HH(36, ACC1)
	WQ_Q4_1(40)
	WSCALE_HH(40)
	COLI_U(72, P0, C0)
	COLI_U(72, P1, C1)
	COLI_U(72, P2, C2)
	COLI_U(72, P3, C3)
	SUMS4
	BLOCKN_HH(72, ACC2)
	WQ_Q4_1(60)
	WSCALE_HH(60)
	COLI_U(108, P0, C0)
	COLI_U(108, P1, C1)
	COLI_U(108, P2, C2)
	COLI_U(108, P3, C3)
	SUMS4
	BLOCKN_HH(108, ACC3)
	ADVANCE_N(80, 144)
	SUBQ $4, NB
	JMP  vecDotNQ4_1AVX2_loop

vecDotNQ4_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotNQ4_1AVX2_done
	WQ_Q4_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	ADVANCE_N(20, 36)
	DECQ  NB
	JMP   vecDotNQ4_1AVX2_tail

vecDotNQ4_1AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_1AVX2_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_1AVX2_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_1AVX2_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ4_1AVX2_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ4_1AVX2_ret:
	VZEROUPPER
	RET

// func vecDotQ5_1AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ5_1AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_1AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotQ5_1AVX2_tail
	WQ_Q5_1(0)
	COLI_U(0, XP, C0)
	WQ_Q5_1(24)
	COLI_U(36, XP, C1)
	WQ_Q5_1(48)
	COLI_U(72, XP, C2)
	WQ_Q5_1(72)
	COLI_U(108, XP, C3)
	SUMS4
	STEP_HH(24)
	ADDQ $96, WP
	ADDQ $144, XP
	SUBQ $4, NB
	JMP  vecDotQ5_1AVX2_loop

vecDotQ5_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_1AVX2_done
	WQ_Q5_1(0)
	COLI_U(0, XP, C0)
	SUM1
	ONE_HH
	ADDQ  $24, WP
	ADDQ  $36, XP
	DECQ  NB
	JMP   vecDotQ5_1AVX2_tail

vecDotQ5_1AVX2_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ5_1AVX2(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_1AVX2(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ5_1AVX2_loop:
	CMPQ NB, $4
	JLT  vecDotNQ5_1AVX2_tail
	WQ_Q5_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	WQ_Q5_1(24)
	WSCALE_HH(24)
	COLI_U(36, P0, C0)
	COLI_U(36, P1, C1)
	COLI_U(36, P2, C2)
	COLI_U(36, P3, C3)
	SUMS4
	BLOCKN_HH(36, ACC1)
	WQ_Q5_1(48)
	WSCALE_HH(48)
	COLI_U(72, P0, C0)
	COLI_U(72, P1, C1)
	COLI_U(72, P2, C2)
	COLI_U(72, P3, C3)
	SUMS4
	BLOCKN_HH(72, ACC2)
	WQ_Q5_1(72)
	WSCALE_HH(72)
	COLI_U(108, P0, C0)
	COLI_U(108, P1, C1)
	COLI_U(108, P2, C2)
	COLI_U(108, P3, C3)
	SUMS4
	BLOCKN_HH(108, ACC3)
	ADVANCE_N(96, 144)
	SUBQ $4, NB
	JMP  vecDotNQ5_1AVX2_loop

vecDotNQ5_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotNQ5_1AVX2_done
	WQ_Q5_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	ADVANCE_N(24, 36)
	DECQ  NB
	JMP   vecDotNQ5_1AVX2_tail

vecDotNQ5_1AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_1AVX2_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_1AVX2_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_1AVX2_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ5_1AVX2_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ5_1AVX2_ret:
	VZEROUPPER
	RET

// From here on IDOT is AVX-512 VNNI: one VPDPBUSD (EVEX, 256-bit) into a
// zeroed register replaces VPMADDUBSW+VPMADDWD and cannot saturate.
#undef IDOT
#define IDOT(src, dst) \
	VPXOR    dst, dst, dst \
	VPDPBUSD src, WA, dst /* dst.i32[i] += sum_{k<4} WA*src */

// func vecDotQ4_0VNNI(n int, w, x []byte) float32
TEXT ·vecDotQ4_0VNNI(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotQ4_0VNNI_tail
	WQ_Q4_0(0)
	COLI_S(0, XP, C0)
	WQ_Q4_0(18)
	COLI_S(34, XP, C1)
	WQ_Q4_0(36)
	COLI_S(68, XP, C2)
	WQ_Q4_0(54)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(18)
	ADDQ $72, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ4_0VNNI_loop

vecDotQ4_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_0VNNI_done
	WQ_Q4_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $18, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ4_0VNNI_tail

vecDotQ4_0VNNI_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ4_0VNNI(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_0VNNI(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ4_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotNQ4_0VNNI_tail
	WQ_Q4_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q4_0(18)
	WSCALE_H(18)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q4_0(36)
	WSCALE_H(36)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q4_0(54)
	WSCALE_H(54)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(72, 136)
	SUBQ $4, NB
	JMP  vecDotNQ4_0VNNI_loop

vecDotNQ4_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotNQ4_0VNNI_done
	WQ_Q4_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(18, 34)
	DECQ  NB
	JMP   vecDotNQ4_0VNNI_tail

vecDotNQ4_0VNNI_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_0VNNI_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_0VNNI_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_0VNNI_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ4_0VNNI_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ4_0VNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ5_0VNNI(n int, w, x []byte) float32
TEXT ·vecDotQ5_0VNNI(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotQ5_0VNNI_tail
	WQ_Q5_0(0)
	COLI_S(0, XP, C0)
	WQ_Q5_0(22)
	COLI_S(34, XP, C1)
	WQ_Q5_0(44)
	COLI_S(68, XP, C2)
	WQ_Q5_0(66)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(22)
	ADDQ $88, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ5_0VNNI_loop

vecDotQ5_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_0VNNI_done
	WQ_Q5_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $22, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ5_0VNNI_tail

vecDotQ5_0VNNI_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ5_0VNNI(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_0VNNI(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ5_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotNQ5_0VNNI_tail
	WQ_Q5_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q5_0(22)
	WSCALE_H(22)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q5_0(44)
	WSCALE_H(44)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q5_0(66)
	WSCALE_H(66)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(88, 136)
	SUBQ $4, NB
	JMP  vecDotNQ5_0VNNI_loop

vecDotNQ5_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotNQ5_0VNNI_done
	WQ_Q5_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(22, 34)
	DECQ  NB
	JMP   vecDotNQ5_0VNNI_tail

vecDotNQ5_0VNNI_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_0VNNI_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_0VNNI_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_0VNNI_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ5_0VNNI_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ5_0VNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ8_0VNNI(n int, w, x []byte) float32
TEXT ·vecDotQ8_0VNNI(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ8_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotQ8_0VNNI_tail
	WQ_Q8_0(0)
	COLI_S(0, XP, C0)
	WQ_Q8_0(34)
	COLI_S(34, XP, C1)
	WQ_Q8_0(68)
	COLI_S(68, XP, C2)
	WQ_Q8_0(102)
	COLI_S(102, XP, C3)
	SUMS4
	STEP_H(34)
	ADDQ $136, WP
	ADDQ $136, XP
	SUBQ $4, NB
	JMP  vecDotQ8_0VNNI_loop

vecDotQ8_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotQ8_0VNNI_done
	WQ_Q8_0(0)
	COLI_S(0, XP, C0)
	SUM1
	ONE_H
	ADDQ  $34, WP
	ADDQ  $34, XP
	DECQ  NB
	JMP   vecDotQ8_0VNNI_tail

vecDotQ8_0VNNI_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ8_0VNNI(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ8_0VNNI(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ8_0VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotNQ8_0VNNI_tail
	WQ_Q8_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	WQ_Q8_0(34)
	WSCALE_H(34)
	COLI_S(34, P0, C0)
	COLI_S(34, P1, C1)
	COLI_S(34, P2, C2)
	COLI_S(34, P3, C3)
	SUMS4
	BLOCKN_H(34, ACC1)
	WQ_Q8_0(68)
	WSCALE_H(68)
	COLI_S(68, P0, C0)
	COLI_S(68, P1, C1)
	COLI_S(68, P2, C2)
	COLI_S(68, P3, C3)
	SUMS4
	BLOCKN_H(68, ACC2)
	WQ_Q8_0(102)
	WSCALE_H(102)
	COLI_S(102, P0, C0)
	COLI_S(102, P1, C1)
	COLI_S(102, P2, C2)
	COLI_S(102, P3, C3)
	SUMS4
	BLOCKN_H(102, ACC3)
	ADVANCE_N(136, 136)
	SUBQ $4, NB
	JMP  vecDotNQ8_0VNNI_loop

vecDotNQ8_0VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotNQ8_0VNNI_done
	WQ_Q8_0(0)
	WSCALE_H(0)
	COLI_S(0, P0, C0)
	COLI_S(0, P1, C1)
	COLI_S(0, P2, C2)
	COLI_S(0, P3, C3)
	SUMS4
	BLOCKN_H(0, ACC0)
	ADVANCE_N(34, 34)
	DECQ  NB
	JMP   vecDotNQ8_0VNNI_tail

vecDotNQ8_0VNNI_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ8_0VNNI_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ8_0VNNI_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ8_0VNNI_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ8_0VNNI_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ8_0VNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ4_1VNNI(n int, w, x []byte) float32
TEXT ·vecDotQ4_1VNNI(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_1VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotQ4_1VNNI_tail
	WQ_Q4_1(0)
	COLI_U(0, XP, C0)
	WQ_Q4_1(20)
	COLI_U(36, XP, C1)
	WQ_Q4_1(40)
	COLI_U(72, XP, C2)
	WQ_Q4_1(60)
	COLI_U(108, XP, C3)
	SUMS4
	STEP_HH(20)
	ADDQ $80, WP
	ADDQ $144, XP
	SUBQ $4, NB
	JMP  vecDotQ4_1VNNI_loop

vecDotQ4_1VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_1VNNI_done
	WQ_Q4_1(0)
	COLI_U(0, XP, C0)
	SUM1
	ONE_HH
	ADDQ  $20, WP
	ADDQ  $36, XP
	DECQ  NB
	JMP   vecDotQ4_1VNNI_tail

vecDotQ4_1VNNI_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ4_1VNNI(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_1VNNI(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ4_1VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotNQ4_1VNNI_tail
	WQ_Q4_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	WQ_Q4_1(20)
	WSCALE_HH(20)
	COLI_U(36, P0, C0)
	COLI_U(36, P1, C1)
	COLI_U(36, P2, C2)
	COLI_U(36, P3, C3)
	SUMS4
	BLOCKN_HH(36, ACC1)
	WQ_Q4_1(40)
	WSCALE_HH(40)
	COLI_U(72, P0, C0)
	COLI_U(72, P1, C1)
	COLI_U(72, P2, C2)
	COLI_U(72, P3, C3)
	SUMS4
	BLOCKN_HH(72, ACC2)
	WQ_Q4_1(60)
	WSCALE_HH(60)
	COLI_U(108, P0, C0)
	COLI_U(108, P1, C1)
	COLI_U(108, P2, C2)
	COLI_U(108, P3, C3)
	SUMS4
	BLOCKN_HH(108, ACC3)
	ADVANCE_N(80, 144)
	SUBQ $4, NB
	JMP  vecDotNQ4_1VNNI_loop

vecDotNQ4_1VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotNQ4_1VNNI_done
	WQ_Q4_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	ADVANCE_N(20, 36)
	DECQ  NB
	JMP   vecDotNQ4_1VNNI_tail

vecDotNQ4_1VNNI_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_1VNNI_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_1VNNI_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_1VNNI_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ4_1VNNI_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ4_1VNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ5_1VNNI(n int, w, x []byte) float32
TEXT ·vecDotQ5_1VNNI(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_1VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotQ5_1VNNI_tail
	WQ_Q5_1(0)
	COLI_U(0, XP, C0)
	WQ_Q5_1(24)
	COLI_U(36, XP, C1)
	WQ_Q5_1(48)
	COLI_U(72, XP, C2)
	WQ_Q5_1(72)
	COLI_U(108, XP, C3)
	SUMS4
	STEP_HH(24)
	ADDQ $96, WP
	ADDQ $144, XP
	SUBQ $4, NB
	JMP  vecDotQ5_1VNNI_loop

vecDotQ5_1VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_1VNNI_done
	WQ_Q5_1(0)
	COLI_U(0, XP, C0)
	SUM1
	ONE_HH
	ADDQ  $24, WP
	ADDQ  $36, XP
	DECQ  NB
	JMP   vecDotQ5_1VNNI_tail

vecDotQ5_1VNNI_done:
	DOT_RESULT(ret+56(FP))
	RET

// func vecDotNQ5_1VNNI(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_1VNNI(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP

vecDotNQ5_1VNNI_loop:
	CMPQ NB, $4
	JLT  vecDotNQ5_1VNNI_tail
	WQ_Q5_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	WQ_Q5_1(24)
	WSCALE_HH(24)
	COLI_U(36, P0, C0)
	COLI_U(36, P1, C1)
	COLI_U(36, P2, C2)
	COLI_U(36, P3, C3)
	SUMS4
	BLOCKN_HH(36, ACC1)
	WQ_Q5_1(48)
	WSCALE_HH(48)
	COLI_U(72, P0, C0)
	COLI_U(72, P1, C1)
	COLI_U(72, P2, C2)
	COLI_U(72, P3, C3)
	SUMS4
	BLOCKN_HH(72, ACC2)
	WQ_Q5_1(72)
	WSCALE_HH(72)
	COLI_U(108, P0, C0)
	COLI_U(108, P1, C1)
	COLI_U(108, P2, C2)
	COLI_U(108, P3, C3)
	SUMS4
	BLOCKN_HH(108, ACC3)
	ADVANCE_N(96, 144)
	SUBQ $4, NB
	JMP  vecDotNQ5_1VNNI_loop

vecDotNQ5_1VNNI_tail:
	TESTQ NB, NB
	JZ    vecDotNQ5_1VNNI_done
	WQ_Q5_1(0)
	WSCALE_HH(0)
	COLI_U(0, P0, C0)
	COLI_U(0, P1, C1)
	COLI_U(0, P2, C2)
	COLI_U(0, P3, C3)
	SUMS4
	BLOCKN_HH(0, ACC0)
	ADVANCE_N(24, 36)
	DECQ  NB
	JMP   vecDotNQ5_1VNNI_tail

vecDotNQ5_1VNNI_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_1VNNI_part
	VMOVUPS ACC0, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_1VNNI_part:
	VMOVSS ACC0, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_1VNNI_ret
	VEXTRACTPS $1, ACC0, 4(OUT)
	JEQ    vecDotNQ5_1VNNI_ret
	VEXTRACTPS $2, ACC0, 8(OUT)

vecDotNQ5_1VNNI_ret:
	VZEROUPPER
	RET
