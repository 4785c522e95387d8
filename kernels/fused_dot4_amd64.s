//go:build !purego

#include "textflag.h"

// Four-row dot products of Q4_0 weight rows against one prepared
// q8_0 activation (see fused_matvec.go for the prepared layout and
// fused_dot4_amd64.go for the semantics). Per group of four blocks, each
// row's quant bytes of the four blocks are loaded side by side into one
// register; its low nibbles meet x[0:16] and its high nibbles x[16:32] of
// each block in two VPDPBUSD into one accumulator that starts at -8·Σx, so
// lane group j holds four partial sums of block j with nothing to fold.
// The four rows' accumulators are transposed into ISUM, lane 4j+r = the
// exact integer sum of row r, block j; the float steps are then those of
// vecDot*VNNI for four rows at once.

#define WP0 R8
#define WP1 R9
#define WP2 R10
#define WP3 R11
#define XP DI
#define NG CX
#define OUT AX
#define TMP R12
#define PF R13      /* prefetch pointer, eight rows ahead */

#define LOW4 Z31    /* 0x0f in every byte */
#define SIDX Z30    /* word index of each row's block scale, lane 4j+r */
#define ACC Z29     /* lane 4j+r: float chain j of row r */
#define C0 Z16
#define C1 Z17
#define C2 Z18
#define C3 Z19
#define ISUM Z20
#define SC Z24


// Word indices of the fp16 block scales within a group: block j at 18j
// bytes.
DATA fusedScaleIdxQ4_0<>+0(SB)/8, $0x0000000000000000
DATA fusedScaleIdxQ4_0<>+8(SB)/8, $0x0009000900090009
DATA fusedScaleIdxQ4_0<>+16(SB)/8, $0x0012001200120012
DATA fusedScaleIdxQ4_0<>+24(SB)/8, $0x001b001b001b001b
DATA fusedScaleIdxQ4_0<>+32(SB)/8, $0
DATA fusedScaleIdxQ4_0<>+40(SB)/8, $0
DATA fusedScaleIdxQ4_0<>+48(SB)/8, $0
DATA fusedScaleIdxQ4_0<>+56(SB)/8, $0
GLOBL fusedScaleIdxQ4_0<>(SB), RODATA|NOPTR, $64

// SETUP4(bytes, idx): loads the row pointers, the byte constant, the
// scale index and the row masks K1..K4 (word lanes 4j+r of row r).
#define SETUP4(bytes, idx) \
	MOVQ  groups+0(FP), NG \
	MOVQ  w_base+8(FP), WP0 \
	MOVQ  rb+32(FP), TMP \
	LEAQ  (WP0)(TMP*1), WP1 \
	LEAQ  (WP1)(TMP*1), WP2 \
	LEAQ  (WP2)(TMP*1), WP3 \
	LEAQ  (WP3)(TMP*1), PF \
	LEAQ  (PF)(TMP*4), PF \
	MOVQ  xp_base+40(FP), XP \
	MOVQ  out+64(FP), OUT \
	MOVL  $bytes, TMP \
	VPBROADCASTD TMP, LOW4 \
	VMOVDQU64 idx(SB), SIDX \
	MOVL  $0x1111, TMP \
	KMOVD TMP, K1 \
	MOVL  $0x2222, TMP \
	KMOVD TMP, K2 \
	MOVL  $0x4444, TMP \
	KMOVD TMP, K3 \
	MOVL  $0x8888, TMP \
	KMOVD TMP, K4 \
	VPXORD ACC, ACC, ACC

// UNPACK(p, lo, hi, xlo): lo = the low nibbles and hi the high nibbles of
// the quant bytes of the four Q4_0 blocks at p (18 bytes apart), block j
// in 128-bit lane j (xlo is lo's X register).
#define UNPACK(p, lo, hi, xlo) \
	VMOVDQU      2(p), xlo \
	VINSERTI32X4 $1, 20(p), lo, lo \
	VINSERTI32X4 $2, 38(p), lo, lo \
	VINSERTI32X4 $3, 56(p), lo, lo \
	VPSRLW       $4, lo, hi \
	VPANDD       LOW4, lo, lo \
	VPANDD       LOW4, hi, hi

// DOTS(lo, hi, xp, c): lane group j of c (four int32) = partial sums of
// block j of one row, nibble offset included, against the column at xp.
#define DOTS(lo, hi, xp, c) \
	VMOVDQU32 128(xp), c \
	VPDPBUSD  0(xp), lo, c  /* c.i32 += nibble(u8) * x(s8), x[0:16] of each block */ \
	VPDPBUSD  64(xp), hi, c /* x[16:32] */

// ROW_Q4_0(p, lo, hi, xlo, c): one row against the column at XP.
#define ROW_Q4_0(p, lo, hi, xlo, c) \
	UNPACK(p, lo, hi, xlo) \
	DOTS(lo, hi, XP, c)

// TRANSPOSE4: ISUM lane 4j+r = sum of the four lanes of block j in Cr.
#define TRANSPOSE4 \
	VPUNPCKLDQ  C1, C0, Z20 \
	VPUNPCKHDQ  C1, C0, Z21 \
	VPADDD      Z21, Z20, Z20 \
	VPUNPCKLDQ  C3, C2, Z22 \
	VPUNPCKHDQ  C3, C2, Z23 \
	VPADDD      Z23, Z22, Z22 \
	VPUNPCKLQDQ Z22, Z20, Z21 \
	VPUNPCKHQDQ Z22, Z20, Z23 \
	VPADDD      Z23, Z21, ISUM

// The four rows are short streams (a row of 2048 Q4_0 values is 18 cache
// lines), too short for the hardware prefetcher to pick up, but together
// they are one contiguous range, and so are the following rows. Each group
// therefore prefetches one group's share (4×72 bytes), in address order,
// of the four rows after the next four, so later calls find them cached.
// The hint is T1 (to L2, not L1): on the 2-core Zen 4 VM a decode token of
// the 1B Q4_0 model took ~60 ms with T0, ~42 ms with T1, ~46 ms with T2 and
// ~62 ms with NTA (one thread; prefetching only four rows ahead was worse).
// L1 prefetches hold L1 miss buffers that the demand loads need, so T0
// limited the misses in flight. Prefetches past the matrix are harmless
// (they never fault).
#define PREFETCH_Q4_0 \
	PREFETCHT1 0(PF) \
	PREFETCHT1 64(PF) \
	PREFETCHT1 128(PF) \
	PREFETCHT1 192(PF) \
	PREFETCHT1 256(PF) \
	ADDQ       $288, PF

// MERGE_SCALES: SC = float32 weight scales, lane 4j+r, from Z24..Z27.
#define MERGE_SCALES \
	VPORD     Z25, Z24, Z24 \
	VPORD     Z27, Z26, Z26 \
	VPORD     Z26, Z24, Z24 \
	VCVTPH2PS Y24, SC

// ACCUMULATE: ACC += (dw*dx) * float32(isum), lane by lane.
#define ACCUMULATE \
	VCVTDQ2PS   ISUM, ISUM \
	VMULPS      192(XP), SC, SC \
	VFMADD231PS SC, ISUM, ACC

// FINISH: out[r] = (chain0+chain2) + (chain1+chain3) of row r.
#define FINISH \
	VEXTRACTF64X4 $1, ACC, Y1 \
	VADDPS        Y1, Y29, Y1 \
	VEXTRACTF128  $1, Y1, X2 \
	VADDPS        X2, X1, X1 \
	VMOVUPS       X1, (OUT) \
	VZEROUPPER

// func fusedDot4Q4_0VNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)
TEXT ·fusedDot4Q4_0VNNI(SB), NOSPLIT, $0-72
	SETUP4(0x0f0f0f0f, fusedScaleIdxQ4_0<>)

fusedDot4Q4_0VNNI_loop:
	TESTQ NG, NG
	JZ    fusedDot4Q4_0VNNI_done
	PREFETCH_Q4_0
	ROW_Q4_0(WP0, Z0, Z1, X0, C0)
	ROW_Q4_0(WP1, Z2, Z3, X2, C1)
	ROW_Q4_0(WP2, Z4, Z5, X4, C2)
	ROW_Q4_0(WP3, Z6, Z7, X6, C3)
	TRANSPOSE4
	VPERMW.Z (WP0), SIDX, K1, Z24 // lane 4j+0 = fp16 scale of row 0, block j
	VPERMW.Z (WP1), SIDX, K2, Z25
	VPERMW.Z (WP2), SIDX, K3, Z26
	VPERMW.Z (WP3), SIDX, K4, Z27
	MERGE_SCALES
	ACCUMULATE
	ADDQ  $72, WP0
	ADDQ  $72, WP1
	ADDQ  $72, WP2
	ADDQ  $72, WP3
	ADDQ  $256, XP
	DECQ  NG
	JMP   fusedDot4Q4_0VNNI_loop

fusedDot4Q4_0VNNI_done:
	FINISH
	RET

// ---- Four rows against up to four columns.
//
// fusedDot4xNQ4_0VNNI unpacks the nibbles of the four rows and their
// scales once per group of four blocks; each column then runs exactly the
// integer and float steps of fusedDot4Q4_0VNNI above against its own
// prepared activation, into its own chains. Used for speculative
// verification and small batches, where the same weights meet two to
// eight activation columns.

#define ACC0 Z26
#define ACC1 Z27
#define ACC2 Z28
#define ACC3 Z29
#define SCX Z25     /* SC times one column's activation scales */

#define XP0 DI
#define XP1 SI
#define XP2 BX
#define XP3 DX
#define NC AX


// COLN(xp, acc): the four rows against one column, into its chains.
#define COLN(xp, acc) \
	DOTS(Z8, Z9, xp, C0) \
	DOTS(Z10, Z11, xp, C1) \
	DOTS(Z12, Z13, xp, C2) \
	DOTS(Z14, Z15, xp, C3) \
	TRANSPOSE4 \
	VCVTDQ2PS   ISUM, ISUM \
	VMULPS      192(xp), SC, SCX \
	VFMADD231PS SCX, ISUM, acc

// STOREN(acc, y, off): out[off/4 ..] = (chain0+chain2) + (chain1+chain3)
// of each row (FINISH of fused_dot4_amd64.s).
#define STOREN(acc, y, off) \
	VEXTRACTF64X4 $1, acc, Y1 \
	VADDPS        Y1, y, Y1 \
	VEXTRACTF128  $1, Y1, X2 \
	VADDPS        X2, X1, X1 \
	VMOVUPS       X1, off(TMP)

// func fusedDot4xNQ4_0VNNI(groups int, w []byte, rb int, xp []byte, xs int, nc int, out *[16]float32)
TEXT ·fusedDot4xNQ4_0VNNI(SB), NOSPLIT, $0-88
	MOVQ  groups+0(FP), NG
	MOVQ  w_base+8(FP), WP0
	MOVQ  rb+32(FP), TMP
	LEAQ  (WP0)(TMP*1), WP1
	LEAQ  (WP1)(TMP*1), WP2
	LEAQ  (WP2)(TMP*1), WP3
	LEAQ  (WP3)(TMP*1), PF
	LEAQ  (PF)(TMP*4), PF
	MOVQ  xp_base+40(FP), XP0
	MOVQ  xs+64(FP), TMP
	LEAQ  (XP0)(TMP*1), XP1
	LEAQ  (XP1)(TMP*1), XP2
	LEAQ  (XP2)(TMP*1), XP3
	MOVQ  nc+72(FP), NC
	MOVL  $0x0f0f0f0f, TMP
	VPBROADCASTD TMP, LOW4
	VMOVDQU64 fusedScaleIdxQ4_0<>(SB), SIDX
	MOVL  $0x1111, TMP
	KMOVD TMP, K1
	MOVL  $0x2222, TMP
	KMOVD TMP, K2
	MOVL  $0x4444, TMP
	KMOVD TMP, K3
	MOVL  $0x8888, TMP
	KMOVD TMP, K4
	VPXORD ACC0, ACC0, ACC0
	VPXORD ACC1, ACC1, ACC1
	VPXORD ACC2, ACC2, ACC2
	VPXORD ACC3, ACC3, ACC3

fusedDot4xNQ4_0VNNI_loop:
	TESTQ NG, NG
	JZ    fusedDot4xNQ4_0VNNI_done
	PREFETCHT1 0(PF)
	PREFETCHT1 64(PF)
	PREFETCHT1 128(PF)
	PREFETCHT1 192(PF)
	PREFETCHT1 256(PF)
	ADDQ       $288, PF
	UNPACK(WP0, Z8, Z9, X8)
	UNPACK(WP1, Z10, Z11, X10)
	UNPACK(WP2, Z12, Z13, X12)
	UNPACK(WP3, Z14, Z15, X14)
	VPERMW.Z (WP0), SIDX, K1, Z4 // lane 4j+0 = fp16 scale of row 0, block j
	VPERMW.Z (WP1), SIDX, K2, Z5
	VPERMW.Z (WP2), SIDX, K3, Z6
	VPERMW.Z (WP3), SIDX, K4, Z7
	VPORD     Z5, Z4, Z4
	VPORD     Z7, Z6, Z6
	VPORD     Z6, Z4, Z4
	VCVTPH2PS Y4, SC
	COLN(XP0, ACC0)
	CMPQ NC, $2
	JLT  fusedDot4xNQ4_0VNNI_next
	COLN(XP1, ACC1)
	CMPQ NC, $3
	JLT  fusedDot4xNQ4_0VNNI_next
	COLN(XP2, ACC2)
	CMPQ NC, $4
	JLT  fusedDot4xNQ4_0VNNI_next
	COLN(XP3, ACC3)

fusedDot4xNQ4_0VNNI_next:
	ADDQ $72, WP0
	ADDQ $72, WP1
	ADDQ $72, WP2
	ADDQ $72, WP3
	ADDQ $256, XP0
	ADDQ $256, XP1
	ADDQ $256, XP2
	ADDQ $256, XP3
	DECQ NG
	JMP  fusedDot4xNQ4_0VNNI_loop

fusedDot4xNQ4_0VNNI_done:
	MOVQ out+80(FP), TMP
	STOREN(ACC0, Y26, 0)
	STOREN(ACC1, Y27, 16)
	STOREN(ACC2, Y28, 32)
	STOREN(ACC3, Y29, 48)
	VZEROUPPER
	RET
