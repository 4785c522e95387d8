//go:build !purego

#include "textflag.h"

// Dot products of the legacy 32-value quant blocks (Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0) with q8_0 / q8_1 activation blocks, after ggml's x86 quants.c.
//
// Per block the 32 weight quants are unpacked once into a YMM register of
// bytes. Signed weights (Q4_0, Q5_0, Q8_0) use the sign trick:
// WA = |q| (unsigned), and each activation vector y becomes sign(y, q), so
// that an unsigned x signed byte product gives q*y. Unsigned weights
// (Q4_1, Q5_1) multiply y directly. IDOT turns the byte products into eight
// int32 sums of four (exact: every partial fits its lane), VCVTDQ2PS makes
// them floats, and one FMA per block adds them times the block's float
// scale dw*dx into a per-column accumulator. Q4_1/Q5_1 also add mw*sx per
// block into a second accumulator, read from its lane 1 at the end.
//
// The file is assembled twice over: the AVX2 routines use IDOT =
// VPMADDUBSW+VPMADDWD, then IDOT is redefined to the AVX-512 VNNI
// VPDPBUSD (EVEX-encoded, 256-bit) and the same block macros build the
// *AVX512 routines.

// Register roles. WP, NB and the Y8-Y15 roles are shared by every routine;
// the single-column routines (XP, ACC*, MS*) and the multi-column ones
// (P*, NC, OUT, C*, ACC, MS, SC) name Y0-Y7 and Y9/Y13 differently.
#define WP SI  // weight block pointer
#define NB CX  // blocks left
#define T0 Y8  // unpacking temporary
#define T0x X8
#define WD Y10 // weight block scale, broadcast (q*_0: dw; q*_1: dw,mw pairs)
#define WDx X10
#define WS Y11 // signed weight quants (the sign source of the sign trick)
#define WA Y12 // unsigned weight quants (|q| for the signed types)
#define WAx X12
#define ONES16 Y14 // int16 ones, for VPMADDWD
#define MASK0F Y15 // 0x0f bytes

// Single-column routines.
#define XP DI   // activation block pointer
#define ACC0 Y0 // float accumulators of (dw*dx)*sumi, even and odd blocks
#define ACC1 Y1
#define MS0 Y4  // accumulators whose odd lanes sum mw*sx (q4_1, q5_1)
#define MS1 Y5
#define T1 Y9   // temporaries
#define T1x X9
#define T2 Y13

// Multi-column routines.
#define P0 DI   // column 0..3 activation pointers
#define P1 R8
#define P2 R9
#define P3 R10
#define NC DX   // number of columns, 1..4
#define OUT R11
#define C0 Y0   // per-column int32 lane sums of one block
#define C1 Y1
#define C2 Y2
#define C3 Y3
#define U0 Y4   // loads of the activation quants
#define U1 Y5
#define ACC Y6  // lanes c and c+4 accumulate column c
#define ACCx X6
#define MS Y7   // lane 2c+1 sums mw*sx of column c (q4_1, q5_1)
#define MSx X7
#define SC Y9   // the block's scales, one per column, in the layout of ACC
#define SCx X9
#define EVENS Y13 // VPERMPS index 0,2,4,6,0,2,4,6

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

// SCALE_H(addr): WD = float32(fp16 at addr) in every lane.
#define SCALE_H(addr) \
	VPBROADCASTW addr, WDx \
	VCVTPH2PS    WDx, WD

// SCALE_HH(addr): WD = the two fp16 at addr (d, m) as float32 pairs.
#define SCALE_HH(addr) \
	VPBROADCASTD addr, WDx \
	VCVTPH2PS    WDx, WD

// Weight unpackers. off is the byte offset of the block from WP. The signed
// ones leave WS = q (int8) and WA = |q|; the unsigned ones WA = q.
#define W_Q4_0(off) \
	NIBBLES(off+2(WP)) \
	VPSUBB  eight<>(SB), WA, WS /* WS = nibble - 8 */ \
	VPSIGNB WS, WS, WA          /* WA = |WS|       */ \
	SCALE_H(off(WP))

#define W_Q5_0(off) \
	NIBBLES(off+6(WP)) \
	QHBITS(off+2(WP), T0) \
	VPANDN  highf0<>(SB), T0, T0 /* T0 = bit clear ? 0xf0 : 0          */ \
	VPOR    T0, WA, WS           /* WS = nibble | bit<<4 - 16, as int8 */ \
	VPSIGNB WS, WS, WA           /* WA = |WS|                          */ \
	SCALE_H(off(WP))

#define W_Q8_0(off) \
	VMOVDQU off+2(WP), WS \
	VPABSB  WS, WA        /* WA = |q|; -128 becomes 128 as a uint8 */ \
	SCALE_H(off(WP))

#define W_Q4_1(off) \
	NIBBLES(off+4(WP)) \
	SCALE_HH(off(WP))

#define W_Q5_1(off) \
	NIBBLES(off+8(WP)) \
	QHBITS(off+4(WP), T0) \
	VPAND bit4<>(SB), T0, T0 /* T0 = bit set ? 0x10 : 0 */ \
	VPOR  T0, WA, WA         /* WA = nibble | bit<<4    */ \
	SCALE_HH(off(WP))

// IDOT(src, dst): dst[i] = sum_{k<4} WA[4i+k]*src[4i+k] as int32, WA
// unsigned, src signed. AVX2 form: VPMADDUBSW's int16 pair sums cannot
// saturate here (|pair| <= 2*128*127 for Q8_0, far less for the others).
#define IDOT(src, dst) \
	VPMADDUBSW src, WA, dst     /* dst.i16[k] = WA*src over byte pairs */ \
	VPMADDWD   ONES16, dst, dst /* dst.i32[i] = pair sums summed twice  */

// COL_S(p, off, acc): signed weights against the q8_0 block at off(p):
// acc += (dw*dx) * float(sum q*y) over eight lanes.
#define COL_S(p, off, acc) \
	VMOVDQU      off+2(p), T0 \
	VPSIGNB      WS, T0, T0   /* T0 = sign(q) * y           */ \
	IDOT(T0, T2) \
	VCVTDQ2PS    T2, T2 \
	VPBROADCASTW off(p), T1x \
	VCVTPH2PS    T1x, T1      /* T1 = dx                    */ \
	VMULPS       WD, T1, T1   /* T1 = dw*dx                 */ \
	VFMADD231PS  T1, T2, acc  /* acc += T1*T2               */

// COL_U(p, off, acc, ms): unsigned weights against the q8_1 block at off(p):
// acc += (dw*dx) * float(sum q*y); ms.lane1 += mw*sx.
#define COL_U(p, off, acc, ms) \
	IDOT(off+4(p), T2) \
	VCVTDQ2PS    T2, T2 \
	VPBROADCASTD off(p), T1x \
	VCVTPH2PS    T1x, T1      /* T1 = dx,sx pairs            */ \
	VMULPS       WD, T1, T1   /* T1 = dw*dx, mw*sx pairs     */ \
	VMOVSLDUP    T1, T0       /* T0 = dw*dx in every lane    */ \
	VFMADD231PS  T0, T2, acc  /* acc += T0*T2                */ \
	VADDPS       T1, ms, ms

// HSUM(y, x, tx): x.lane0 = sum of the eight float lanes of y (x is y's
// low half; tx a scratch XMM).
#define HSUM(y, x, tx) \
	VEXTRACTF128 $1, y, tx \
	VADDPS       tx, x, x \
	VMOVHLPS     x, x, tx  /* tx.lo = x.hi */ \
	VADDPS       tx, x, x \
	VMOVSHDUP    x, tx     /* tx.0 = x.1   */ \
	VADDSS       tx, x, x

DATA evens<>+0(SB)/8, $0x0000000200000000
DATA evens<>+8(SB)/8, $0x0000000600000004
DATA evens<>+16(SB)/8, $0x0000000200000000
DATA evens<>+24(SB)/8, $0x0000000600000004
GLOBL evens<>(SB), RODATA|NOPTR, $32

DATA odds<>+0(SB)/8, $0x0000000300000001
DATA odds<>+8(SB)/8, $0x0000000700000005
DATA odds<>+16(SB)/8, $0x0000000300000001
DATA odds<>+24(SB)/8, $0x0000000700000005
GLOBL odds<>(SB), RODATA|NOPTR, $32

// DOT_SETUP loads the constants and clears the single-column accumulators.
#define DOT_SETUP \
	VMOVDQU mask0f<>(SB), MASK0F \
	VMOVDQU ones16<>(SB), ONES16 \
	VXORPS  ACC0, ACC0, ACC0 \
	VXORPS  ACC1, ACC1, ACC1 \
	VXORPS  MS0, MS0, MS0 \
	VXORPS  MS1, MS1, MS1

// DOTN_SETUP derives the column pointers from P0 and the stride in AX,
// pointing the columns at or beyond NC at column 0 (computed, never
// stored), loads the constants and clears the accumulators.
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
	VMOVDQU evens<>(SB), EVENS \
	VXORPS  ACC, ACC, ACC \
	VXORPS  MS, MS, MS

// COLI_S(p, u, c): c = int32 lane sums of the signed weights times the
// q8_0 quants at p (u is clobbered).
#define COLI_S(p, u, c) \
	VMOVDQU 2(p), u \
	VPSIGNB WS, u, u  /* u = sign(q) * y */ \
	IDOT(u, c)

// COLI_U(p, c): c = int32 lane sums of the unsigned weights times the
// q8_1 quants at p.
#define COLI_U(p, c) \
	IDOT(4(p), c)

// FOLD4 adds the four columns' lane sums into one vector of float32,
// lanes c and c+4 holding column c (exact integer adds, then convert).
#define FOLD4 \
	VPHADDD   C1, C0, C0 /* C0 = c0 c0 c1 c1 | c0 c0 c1 c1 (pair sums) */ \
	VPHADDD   C3, C2, C2 /* C2 = c2 c2 c3 c3 | ...                      */ \
	VPHADDD   C2, C0, C0 /* C0 = c0 c1 c2 c3 | c0 c1 c2 c3              */ \
	VCVTDQ2PS C0, C0

// SCALES_H: SC = dw*dx_c in lanes c and c+4, from the fp16 d of each
// column's block (gathered through AX/BX into one quadword).
#define SCALES_H \
	MOVWLZX      (P0), AX \
	MOVWLZX      (P1), BX \
	SHLQ         $16, BX \
	ORQ          BX, AX \
	MOVWLZX      (P2), BX \
	SHLQ         $32, BX \
	ORQ          BX, AX \
	MOVWLZX      (P3), BX \
	SHLQ         $48, BX \
	ORQ          BX, AX      /* AX = dx3:dx2:dx1:dx0 */ \
	VMOVQ        AX, SCx \
	VPBROADCASTQ SCx, SCx    /* twice, for both halves */ \
	VCVTPH2PS    SCx, SC \
	VMULPS       WD, SC, SC

// SCALES_HH: like SCALES_H for q8_1 blocks, whose (d, s) fp16 pairs give
// SC = dw*dx_c in lanes c and c+4 after MS += mw*sx_c in lane 2c+1.
#define SCALES_HH \
	MOVL         (P0), AX \
	MOVL         (P1), BX \
	SHLQ         $32, BX \
	ORQ          BX, AX \
	VMOVQ        AX, SCx \
	MOVL         (P2), AX \
	MOVL         (P3), BX \
	SHLQ         $32, BX \
	ORQ          BX, AX \
	VPINSRQ      $1, AX, SCx, SCx /* SC = (d, s) of columns 0..3 */ \
	VCVTPH2PS    SCx, SC \
	VMULPS       WD, SC, SC       /* dw*dx_c, mw*sx_c pairs       */ \
	VADDPS       SC, MS, MS \
	VPERMPS      SC, EVENS, SC    /* SC = dw*dx_c in lanes c, c+4 */

// DOTN_RESULT leaves column c's result in ACC lane c (c < 4).
#define DOTN_RESULT \
	VEXTRACTF128 $1, ACC, T0x \
	VADDPS       T0x, ACCx, ACCx

// DOTN_RESULT_U also adds MS lane 2c+1 into lane c.
#define DOTN_RESULT_U \
	DOTN_RESULT \
	VMOVDQU      odds<>(SB), T0 \
	VPERMPS      MS, T0, MS        /* MS lane c = MS lane 2c+1 */ \
	VADDPS       MSx, ACCx, ACCx

// ADVANCE_N(wb, xb) moves the weight and the four column pointers one
// block on.
#define ADVANCE_N(wb, xb) \
	ADDQ $wb, WP \
	ADDQ $xb, P0 \
	ADDQ $xb, P1 \
	ADDQ $xb, P2 \
	ADDQ $xb, P3

// The routines. Single-column ones take two blocks per iteration into two
// accumulators (hiding the FMA latency) and one block in the tail.
// Multi-column ones unpack one weight block per iteration and run it
// against four columns (those beyond NC repeat column 0, and their results
// are not stored): the four int32 lane-sum vectors fold into one, so one
// conversion, one gathered scale vector and one FMA serve all columns.

// func vecDotQ4_0AVX2(n int, w, x []byte) float32
TEXT ·vecDotQ4_0AVX2(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_0AVX2_loop:
	CMPQ NB, $2
	JLT  vecDotQ4_0AVX2_tail
	W_Q4_0(0)
	COL_S(XP, 0, ACC0)
	W_Q4_0(18)
	COL_S(XP, 34, ACC1)
	ADDQ $36, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ4_0AVX2_loop

vecDotQ4_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_0AVX2_done
	W_Q4_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ4_0AVX2_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
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
	TESTQ NB, NB
	JZ    vecDotNQ4_0AVX2_done

vecDotNQ4_0AVX2_loop:
	W_Q4_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(18, 34)
	DECQ NB
	JNZ  vecDotNQ4_0AVX2_loop

vecDotNQ4_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_0AVX2_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_0AVX2_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_0AVX2_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ4_0AVX2_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

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
	CMPQ NB, $2
	JLT  vecDotQ5_0AVX2_tail
	W_Q5_0(0)
	COL_S(XP, 0, ACC0)
	W_Q5_0(22)
	COL_S(XP, 34, ACC1)
	ADDQ $44, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ5_0AVX2_loop

vecDotQ5_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_0AVX2_done
	W_Q5_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ5_0AVX2_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
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
	TESTQ NB, NB
	JZ    vecDotNQ5_0AVX2_done

vecDotNQ5_0AVX2_loop:
	W_Q5_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(22, 34)
	DECQ NB
	JNZ  vecDotNQ5_0AVX2_loop

vecDotNQ5_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_0AVX2_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_0AVX2_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_0AVX2_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ5_0AVX2_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

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
	CMPQ NB, $2
	JLT  vecDotQ8_0AVX2_tail
	W_Q8_0(0)
	COL_S(XP, 0, ACC0)
	W_Q8_0(34)
	COL_S(XP, 34, ACC1)
	ADDQ $68, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ8_0AVX2_loop

vecDotQ8_0AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ8_0AVX2_done
	W_Q8_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ8_0AVX2_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
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
	TESTQ NB, NB
	JZ    vecDotNQ8_0AVX2_done

vecDotNQ8_0AVX2_loop:
	W_Q8_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(34, 34)
	DECQ NB
	JNZ  vecDotNQ8_0AVX2_loop

vecDotNQ8_0AVX2_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ8_0AVX2_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ8_0AVX2_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ8_0AVX2_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ8_0AVX2_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

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
	CMPQ NB, $2
	JLT  vecDotQ4_1AVX2_tail
	W_Q4_1(0)
	COL_U(XP, 0, ACC0, MS0)
	W_Q4_1(20)
	COL_U(XP, 36, ACC1, MS1)
	ADDQ $40, WP
	ADDQ $72, XP
	SUBQ $2, NB
	JMP  vecDotQ4_1AVX2_loop

vecDotQ4_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_1AVX2_done
	W_Q4_1(0)
	COL_U(XP, 0, ACC0, MS0)

vecDotQ4_1AVX2_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VADDPS    MS1, MS0, MS0
	VMOVSHDUP X4, T1x      // T1.0 = MS0.1 = sum of mw*sx
	VADDSS    T1x, X0, X0
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
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
	TESTQ NB, NB
	JZ    vecDotNQ4_1AVX2_done

vecDotNQ4_1AVX2_loop:
	W_Q4_1(0)
	COLI_U(P0, C0)
	COLI_U(P1, C1)
	COLI_U(P2, C2)
	COLI_U(P3, C3)
	FOLD4
	SCALES_HH
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(20, 36)
	DECQ NB
	JNZ  vecDotNQ4_1AVX2_loop

vecDotNQ4_1AVX2_done:
	DOTN_RESULT_U
	CMPQ NC, $4
	JLT  vecDotNQ4_1AVX2_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_1AVX2_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_1AVX2_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ4_1AVX2_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

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
	CMPQ NB, $2
	JLT  vecDotQ5_1AVX2_tail
	W_Q5_1(0)
	COL_U(XP, 0, ACC0, MS0)
	W_Q5_1(24)
	COL_U(XP, 36, ACC1, MS1)
	ADDQ $48, WP
	ADDQ $72, XP
	SUBQ $2, NB
	JMP  vecDotQ5_1AVX2_loop

vecDotQ5_1AVX2_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_1AVX2_done
	W_Q5_1(0)
	COL_U(XP, 0, ACC0, MS0)

vecDotQ5_1AVX2_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VADDPS    MS1, MS0, MS0
	VMOVSHDUP X4, T1x      // T1.0 = MS0.1 = sum of mw*sx
	VADDSS    T1x, X0, X0
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
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
	TESTQ NB, NB
	JZ    vecDotNQ5_1AVX2_done

vecDotNQ5_1AVX2_loop:
	W_Q5_1(0)
	COLI_U(P0, C0)
	COLI_U(P1, C1)
	COLI_U(P2, C2)
	COLI_U(P3, C3)
	FOLD4
	SCALES_HH
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(24, 36)
	DECQ NB
	JNZ  vecDotNQ5_1AVX2_loop

vecDotNQ5_1AVX2_done:
	DOTN_RESULT_U
	CMPQ NC, $4
	JLT  vecDotNQ5_1AVX2_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_1AVX2_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_1AVX2_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ5_1AVX2_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ5_1AVX2_ret:
	VZEROUPPER
	RET

// From here on IDOT is AVX-512 VNNI: one VPDPBUSD (EVEX, 256-bit) into a
// zeroed register replaces VPMADDUBSW+VPMADDWD and cannot saturate.
#undef IDOT
#define IDOT(src, dst) \
	VPXOR    dst, dst, dst \
	VPDPBUSD src, WA, dst /* dst.i32[i] += sum_{k<4} WA*src */

// func vecDotQ4_0AVX512(n int, w, x []byte) float32
TEXT ·vecDotQ4_0AVX512(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_0AVX512_loop:
	CMPQ NB, $2
	JLT  vecDotQ4_0AVX512_tail
	W_Q4_0(0)
	COL_S(XP, 0, ACC0)
	W_Q4_0(18)
	COL_S(XP, 34, ACC1)
	ADDQ $36, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ4_0AVX512_loop

vecDotQ4_0AVX512_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_0AVX512_done
	W_Q4_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ4_0AVX512_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
	RET

// func vecDotNQ4_0AVX512(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_0AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP
	TESTQ NB, NB
	JZ    vecDotNQ4_0AVX512_done

vecDotNQ4_0AVX512_loop:
	W_Q4_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(18, 34)
	DECQ NB
	JNZ  vecDotNQ4_0AVX512_loop

vecDotNQ4_0AVX512_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ4_0AVX512_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_0AVX512_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_0AVX512_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ4_0AVX512_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ4_0AVX512_ret:
	VZEROUPPER
	RET

// func vecDotQ5_0AVX512(n int, w, x []byte) float32
TEXT ·vecDotQ5_0AVX512(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_0AVX512_loop:
	CMPQ NB, $2
	JLT  vecDotQ5_0AVX512_tail
	W_Q5_0(0)
	COL_S(XP, 0, ACC0)
	W_Q5_0(22)
	COL_S(XP, 34, ACC1)
	ADDQ $44, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ5_0AVX512_loop

vecDotQ5_0AVX512_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_0AVX512_done
	W_Q5_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ5_0AVX512_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
	RET

// func vecDotNQ5_0AVX512(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_0AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP
	TESTQ NB, NB
	JZ    vecDotNQ5_0AVX512_done

vecDotNQ5_0AVX512_loop:
	W_Q5_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(22, 34)
	DECQ NB
	JNZ  vecDotNQ5_0AVX512_loop

vecDotNQ5_0AVX512_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ5_0AVX512_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_0AVX512_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_0AVX512_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ5_0AVX512_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ5_0AVX512_ret:
	VZEROUPPER
	RET

// func vecDotQ8_0AVX512(n int, w, x []byte) float32
TEXT ·vecDotQ8_0AVX512(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ8_0AVX512_loop:
	CMPQ NB, $2
	JLT  vecDotQ8_0AVX512_tail
	W_Q8_0(0)
	COL_S(XP, 0, ACC0)
	W_Q8_0(34)
	COL_S(XP, 34, ACC1)
	ADDQ $68, WP
	ADDQ $68, XP
	SUBQ $2, NB
	JMP  vecDotQ8_0AVX512_loop

vecDotQ8_0AVX512_tail:
	TESTQ NB, NB
	JZ    vecDotQ8_0AVX512_done
	W_Q8_0(0)
	COL_S(XP, 0, ACC0)

vecDotQ8_0AVX512_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
	RET

// func vecDotNQ8_0AVX512(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ8_0AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP
	TESTQ NB, NB
	JZ    vecDotNQ8_0AVX512_done

vecDotNQ8_0AVX512_loop:
	W_Q8_0(0)
	COLI_S(P0, U0, C0)
	COLI_S(P1, U1, C1)
	COLI_S(P2, U0, C2)
	COLI_S(P3, U1, C3)
	FOLD4
	SCALES_H
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(34, 34)
	DECQ NB
	JNZ  vecDotNQ8_0AVX512_loop

vecDotNQ8_0AVX512_done:
	DOTN_RESULT
	CMPQ NC, $4
	JLT  vecDotNQ8_0AVX512_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ8_0AVX512_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ8_0AVX512_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ8_0AVX512_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ8_0AVX512_ret:
	VZEROUPPER
	RET

// func vecDotQ4_1AVX512(n int, w, x []byte) float32
TEXT ·vecDotQ4_1AVX512(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ4_1AVX512_loop:
	CMPQ NB, $2
	JLT  vecDotQ4_1AVX512_tail
	W_Q4_1(0)
	COL_U(XP, 0, ACC0, MS0)
	W_Q4_1(20)
	COL_U(XP, 36, ACC1, MS1)
	ADDQ $40, WP
	ADDQ $72, XP
	SUBQ $2, NB
	JMP  vecDotQ4_1AVX512_loop

vecDotQ4_1AVX512_tail:
	TESTQ NB, NB
	JZ    vecDotQ4_1AVX512_done
	W_Q4_1(0)
	COL_U(XP, 0, ACC0, MS0)

vecDotQ4_1AVX512_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VADDPS    MS1, MS0, MS0
	VMOVSHDUP X4, T1x      // T1.0 = MS0.1 = sum of mw*sx
	VADDSS    T1x, X0, X0
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
	RET

// func vecDotNQ4_1AVX512(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_1AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP
	TESTQ NB, NB
	JZ    vecDotNQ4_1AVX512_done

vecDotNQ4_1AVX512_loop:
	W_Q4_1(0)
	COLI_U(P0, C0)
	COLI_U(P1, C1)
	COLI_U(P2, C2)
	COLI_U(P3, C3)
	FOLD4
	SCALES_HH
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(20, 36)
	DECQ NB
	JNZ  vecDotNQ4_1AVX512_loop

vecDotNQ4_1AVX512_done:
	DOTN_RESULT_U
	CMPQ NC, $4
	JLT  vecDotNQ4_1AVX512_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ4_1AVX512_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ4_1AVX512_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ4_1AVX512_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ4_1AVX512_ret:
	VZEROUPPER
	RET

// func vecDotQ5_1AVX512(n int, w, x []byte) float32
TEXT ·vecDotQ5_1AVX512(SB), NOSPLIT, $0-60
	MOVQ n+0(FP), NB
	SHRQ $5, NB            // NB = n/32 blocks
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), XP
	DOT_SETUP

vecDotQ5_1AVX512_loop:
	CMPQ NB, $2
	JLT  vecDotQ5_1AVX512_tail
	W_Q5_1(0)
	COL_U(XP, 0, ACC0, MS0)
	W_Q5_1(24)
	COL_U(XP, 36, ACC1, MS1)
	ADDQ $48, WP
	ADDQ $72, XP
	SUBQ $2, NB
	JMP  vecDotQ5_1AVX512_loop

vecDotQ5_1AVX512_tail:
	TESTQ NB, NB
	JZ    vecDotQ5_1AVX512_done
	W_Q5_1(0)
	COL_U(XP, 0, ACC0, MS0)

vecDotQ5_1AVX512_done:
	VADDPS ACC1, ACC0, ACC0
	HSUM(ACC0, X0, T0x)
	VADDPS    MS1, MS0, MS0
	VMOVSHDUP X4, T1x      // T1.0 = MS0.1 = sum of mw*sx
	VADDSS    T1x, X0, X0
	VMOVSS X0, ret+56(FP)
	VZEROUPPER
	RET

// func vecDotNQ5_1AVX512(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_1AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), NB
	SHRQ $5, NB
	MOVQ w_base+8(FP), WP
	MOVQ x_base+32(FP), P0
	MOVQ xStride+56(FP), AX
	MOVQ out_base+64(FP), OUT
	MOVQ out_len+72(FP), NC
	DOTN_SETUP
	TESTQ NB, NB
	JZ    vecDotNQ5_1AVX512_done

vecDotNQ5_1AVX512_loop:
	W_Q5_1(0)
	COLI_U(P0, C0)
	COLI_U(P1, C1)
	COLI_U(P2, C2)
	COLI_U(P3, C3)
	FOLD4
	SCALES_HH
	VFMADD231PS SC, C0, ACC // ACC += scale_c * sumi_c
	ADVANCE_N(24, 36)
	DECQ NB
	JNZ  vecDotNQ5_1AVX512_loop

vecDotNQ5_1AVX512_done:
	DOTN_RESULT_U
	CMPQ NC, $4
	JLT  vecDotNQ5_1AVX512_tail
	VMOVUPS ACCx, (OUT)
	VZEROUPPER
	RET

vecDotNQ5_1AVX512_tail:
	VMOVSS ACCx, (OUT)
	CMPQ   NC, $2
	JLT    vecDotNQ5_1AVX512_ret
	VEXTRACTPS $1, ACCx, 4(OUT)
	JEQ    vecDotNQ5_1AVX512_ret
	VEXTRACTPS $2, ACCx, 8(OUT)

vecDotNQ5_1AVX512_ret:
	VZEROUPPER
	RET
