//go:build !purego

#include "textflag.h"

// Four-row dot products of Q4_K / Q6_K weight rows against one q8_K
// activation row (see fused_dot4_amd64.go for the semantics). Each row
// repeats vecDotQ4_KAVX512 / vecDotQ6_KAVX512 (kquant_dot_amd64.s) step for
// step: per 32-value chunk VPMADDUBSW of the unsigned quants with the
// activations, VPDPWSSD with the broadcast int16 scales into the row's
// eight int32 lanes; per super-block the lanes are scaled into the row's
// eight float32 chains exactly as there; at the end the same horizontal
// sum. The four rows give four independent chains (the one-row kernel waits
// on one VPDPWSSD chain) and share every activation load.

#define WP0 R8
#define WP1 R9
#define WP2 R10
#define WP3 R13
#define XP DI
#define NG CX
#define PF SI       /* prefetch pointer, eight rows ahead */

#define MLO Y15     /* 0x0f in every byte */
#define M30 Y14     /* 0x30 in every byte (Q6_K bits 4-5) */
#define DV Y13      /* d = dw*dx, broadcast (Q6_K); X13 = dx (Q4_K) */
#define SCL0 Y16    /* int16 scales of the super-block, row r (kqWordBcast order) */
#define SCL1 Y17
#define SCL2 Y18
#define SCL3 Y19
#define SUM0 Y20    /* int32 lanes of the super-block, row r */
#define SUM1 Y21
#define SUM2 Y22
#define SUM3 Y23
#define ACC0 Y24    /* float32 chains, row r */
#define ACC1 Y25
#define ACC2 Y26
#define ACC3 Y27
#define MP0 Y28     /* Q4_K: bsums . mins, int32 lanes, row r */
#define MP1 Y29
#define MP2 Y30
#define MP3 Y31

// BCAST8B(val, y) sets every byte of y to val (repeated in the immediate).
#define BCAST8B(val, y) MOVL $val, AX; VMOVD AX, X0; VPBROADCASTD X0, y

// SETUPK loads the row pointers and the prefetch pointer (eight rows on)
// and clears the chains.
#define SETUPK \
	MOVQ   groups+0(FP), NG \
	MOVQ   w_base+8(FP), WP0 \
	MOVQ   rb+32(FP), AX \
	LEAQ   (WP0)(AX*1), WP1 \
	LEAQ   (WP1)(AX*1), WP2 \
	LEAQ   (WP2)(AX*1), WP3 \
	LEAQ   (WP3)(AX*1), PF \
	LEAQ   (PF)(AX*4), PF \
	MOVQ   xp_base+40(FP), XP \
	VPXORD ACC0, ACC0, ACC0 \
	VPXORD ACC1, ACC1, ACC1 \
	VPXORD ACC2, ACC2, ACC2 \
	VPXORD ACC3, ACC3, ACC3

// DOT(k, q, scl, sum, scb, t): sum += scale * (q . x) over chunk k, as
// COL of kquant_dot_amd64.s.
#define DOT(k, q, scl, sum, scb, t) \
	VPSHUFB    ·kqWordBcast+32*k(SB), scl, scb /* int16 scale of chunk k per lane */ \
	VPMADDUBSW 4+32*k(XP), q, t                /* u8 q * s8 x, pairs summed to int16 */ \
	VPDPWSSD   scb, t, sum                     /* sum += scale * pairs, pairs summed */

// HSUM4(acc, off): out[off/4] = sum of acc's lanes in HSUM's order.
#define HSUM4(acc, off) \
	VMOVAPS      acc, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X1, X0, X0 \
	VMOVHLPS     X0, X0, X1 /* X1[0:2] = X0[2:4] */ \
	VADDPS       X1, X0, X0 \
	VMOVSHDUP    X0, X1     /* X1[0] = X0[1] */ \
	VADDSS       X1, X0, X0 \
	VMOVSS       X0, off(AX)

#define FINISH4 \
	MOVQ out+64(FP), AX \
	HSUM4(ACC0, 0) \
	HSUM4(ACC1, 4) \
	HSUM4(ACC2, 8) \
	HSUM4(ACC3, 12) \
	VZEROUPPER

// ---- Q6_K (210-byte super-blocks: ql[128], qh[64], scales[16], d).

// Q6_SCALES(wp, scl, sum): scl = the row's scales, even | odd; sum = the
// -32 offset term, -32 * (bsums . scales) (OFFSET of kquant_dot_amd64.s).
#define Q6_SCALES(wp, scl, sum) \
	VMOVDQU    192(wp), X0 \
	VPSHUFB    ·kqEvenOdd(SB), X0, X0 /* even scales | odd scales */ \
	VPMOVSXBW  X0, scl \
	VPMOVSXBW  192(wp), Y1 \
	VPXORD     Y2, Y2, Y2 \
	VPSUBW     Y1, Y2, Y2             /* -scale, per 16 values */ \
	VPMADDWD   260(XP), Y2, sum       /* bsums * -scale, pairs summed */ \
	VPSLLD     $5, sum, sum

// Q6_Cc(k, ql, qh, wp, scl, sum, q, t, scb): chunk k (c = k%4) of a row:
// low (c < 2) or high nibbles of ql, bits 2c..2c+1 of qh moved to bits 4-5.
#define Q6_C0(k, ql, qh, wp, scl, sum, q, t, scb) \
	VPANDD ql(wp), MLO, q \
	VPSLLW $4, qh(wp), t \
	Q6_OR(k, scl, sum, q, t, scb)
#define Q6_C1(k, ql, qh, wp, scl, sum, q, t, scb) \
	VPANDD ql(wp), MLO, q \
	VPSLLW $2, qh(wp), t \
	Q6_OR(k, scl, sum, q, t, scb)
#define Q6_C2(k, ql, qh, wp, scl, sum, q, t, scb) \
	VPSRLW $4, ql(wp), q \
	VPANDD MLO, q, q \
	VMOVDQU qh(wp), t \
	Q6_OR(k, scl, sum, q, t, scb)
#define Q6_C3(k, ql, qh, wp, scl, sum, q, t, scb) \
	VPSRLW $4, ql(wp), q \
	VPANDD MLO, q, q \
	VPSRLW $2, qh(wp), t \
	Q6_OR(k, scl, sum, q, t, scb)
#define Q6_OR(k, scl, sum, q, t, scb) \
	VPANDD M30, t, t \
	VPORD  t, q, q \
	DOT(k, q, scl, sum, scb, t)

// Q6_CHUNK4(C, k, ql, qh): chunk k of the four rows.
#define Q6_CHUNK4(C, k, ql, qh) \
	C(k, ql, qh, WP0, SCL0, SUM0, Y0, Y1, Y2) \
	C(k, ql, qh, WP1, SCL1, SUM1, Y3, Y4, Y5) \
	C(k, ql, qh, WP2, SCL2, SUM2, Y6, Y7, Y8) \
	C(k, ql, qh, WP3, SCL3, SUM3, Y9, Y10, Y11)

// Q6_FIN(wp, sum, acc): acc += (dw*dx) * float(sum) (FIN_D).
#define Q6_FIN(wp, sum, acc) \
	MOVWLZX     208(wp), AX \
	VMOVD       AX, X0 \
	VCVTPH2PS   X0, X0        /* dw */ \
	VMULSS      (XP), X0, X0  /* d = dw*dx */ \
	VBROADCASTSS X0, DV \
	VCVTDQ2PS   sum, sum \
	VFMADD231PS sum, DV, acc

// The four rows after the next four are one contiguous range; each
// super-block prefetches its share of it (4×210 bytes, 14 lines from PF)
// into L2 (T1: see PREFETCH_Q4_0 in fused_dot4_amd64.s for why not L1).
#define PREFETCH_Q6_K \
	PREFETCHT1 0(PF) \
	PREFETCHT1 64(PF) \
	PREFETCHT1 128(PF) \
	PREFETCHT1 192(PF) \
	PREFETCHT1 256(PF) \
	PREFETCHT1 320(PF) \
	PREFETCHT1 384(PF) \
	PREFETCHT1 448(PF) \
	PREFETCHT1 512(PF) \
	PREFETCHT1 576(PF) \
	PREFETCHT1 640(PF) \
	PREFETCHT1 704(PF) \
	PREFETCHT1 768(PF) \
	PREFETCHT1 832(PF) \
	ADDQ       $840, PF

// func fusedDot4Q6_KAVX512Old(groups int, w []byte, rb int, xp []byte, out *[4]float32)
TEXT ·fusedDot4Q6_KAVX512Old(SB), NOSPLIT, $0-72
	SETUPK
	BCAST8B(0x0f0f0f0f, MLO)
	BCAST8B(0x30303030, M30)

fusedDot4Q6_KAVX512Old_loop:
	TESTQ NG, NG
	JZ    fusedDot4Q6_KAVX512Old_done
	PREFETCH_Q6_K
	Q6_SCALES(WP0, SCL0, SUM0)
	Q6_SCALES(WP1, SCL1, SUM1)
	Q6_SCALES(WP2, SCL2, SUM2)
	Q6_SCALES(WP3, SCL3, SUM3)
	Q6_CHUNK4(Q6_C0, 0, 0, 128)
	Q6_CHUNK4(Q6_C1, 1, 32, 128)
	Q6_CHUNK4(Q6_C2, 2, 0, 128)
	Q6_CHUNK4(Q6_C3, 3, 32, 128)
	Q6_CHUNK4(Q6_C0, 4, 64, 160)
	Q6_CHUNK4(Q6_C1, 5, 96, 160)
	Q6_CHUNK4(Q6_C2, 6, 64, 160)
	Q6_CHUNK4(Q6_C3, 7, 96, 160)
	Q6_FIN(WP0, SUM0, ACC0)
	Q6_FIN(WP1, SUM1, ACC1)
	Q6_FIN(WP2, SUM2, ACC2)
	Q6_FIN(WP3, SUM3, ACC3)
	ADDQ  $210, WP0
	ADDQ  $210, WP1
	ADDQ  $210, WP2
	ADDQ  $210, WP3
	ADDQ  $292, XP
	DECQ  NG
	JMP   fusedDot4Q6_KAVX512Old_loop

fusedDot4Q6_KAVX512Old_done:
	FINISH4
	RET

// ---- Q4_K (144-byte super-blocks: d, dmin, scales[12], qs[128]).

// Q4_SCALES(wp, scl, mp): unpacks the twelve 6-bit scale/min bytes at
// 4(wp) (K4_SCALES of kquant_dot_amd64.s): scl = scales 0..7 as int16 in
// both lanes; mp = bsums . mins (each min twice), int32 lanes.
#define Q4_SCALES(wp, scl, mp) \
	MOVL 4(wp), AX    /* u0: scales 0-3 (bits 0-5), top bits of 4-7 */ \
	MOVL 8(wp), BX    /* u1: mins 0-3 (bits 0-5), top bits of mins 4-7 */ \
	MOVL 12(wp), DX   /* u2: low nibbles scales 4-7, high nibbles mins 4-7 */ \
	MOVL AX, R11 \
	ANDL $0x3f3f3f3f, R11 \
	MOVL DX, R12 \
	ANDL $0x0f0f0f0f, R12 \
	SHRL $6, AX \
	ANDL $0x03030303, AX \
	SHLL $4, AX \
	ORL  AX, R12      /* scales 4-7 = u2&15 | (u0>>6)<<4 */ \
	MOVL BX, AX \
	ANDL $0x3f3f3f3f, AX \
	SHRL $4, DX \
	ANDL $0x0f0f0f0f, DX \
	SHRL $6, BX \
	ANDL $0x03030303, BX \
	SHLL $4, BX \
	ORL  BX, DX       /* mins 4-7 = u2>>4 | (u1>>6)<<4 */ \
	SHLQ $32, R12 \
	ORQ  R12, R11 \
	SHLQ $32, DX \
	ORQ  DX, AX \
	VMOVQ R11, X0 \
	VPUNPCKLQDQ X0, X0, X0 /* scales 0-7 twice */ \
	VPMOVZXBW X0, scl \
	VMOVQ AX, X1 \
	VPUNPCKLBW X1, X1, X1  /* m0 m0 m1 m1 ... */ \
	VPMOVZXBW X1, Y1 \
	VPMADDWD 260(XP), Y1, mp /* bsums * mins, pairs summed */

// Q4_LO / Q4_HI(k, off, wp, scl, sum, q, t, scb): chunk k of a row, the low
// or high nibbles of qs at off.
#define Q4_LO(k, off, wp, scl, sum, q, t, scb) \
	VPANDD off(wp), MLO, q \
	DOT(k, q, scl, sum, scb, t)
#define Q4_HI(k, off, wp, scl, sum, q, t, scb) \
	VPSRLW $4, off(wp), q \
	VPANDD MLO, q, q \
	DOT(k, q, scl, sum, scb, t)

#define Q4_CHUNK4(C, k, off) \
	C(k, off, WP0, SCL0, SUM0, Y0, Y1, Y2) \
	C(k, off, WP1, SCL1, SUM1, Y3, Y4, Y5) \
	C(k, off, WP2, SCL2, SUM2, Y6, Y7, Y8) \
	C(k, off, WP3, SCL3, SUM3, Y9, Y10, Y11)

// Q4_FIN(wp, sum, mp, acc): acc += (dw*dx)*float(sum), then
// acc -= (dminw*dx)*float(mp) (FIN_M).
#define Q4_FIN(wp, sum, mp, acc) \
	VMOVD        (wp), X0 \
	VCVTPH2PS    X0, X0       /* dw, dminw */ \
	VMULPS       X13, X0, X0  /* dw*dx, dminw*dx */ \
	VBROADCASTSS X0, Y1 \
	VMOVSHDUP    X0, X0 \
	VBROADCASTSS X0, Y2 \
	VCVTDQ2PS    sum, sum \
	VFMADD231PS  sum, Y1, acc \
	VCVTDQ2PS    mp, mp \
	VFNMADD231PS mp, Y2, acc

// Prefetch of the rows eight on: 4×144 bytes per super-block.
#define PREFETCH_Q4_K \
	PREFETCHT1 0(PF) \
	PREFETCHT1 64(PF) \
	PREFETCHT1 128(PF) \
	PREFETCHT1 192(PF) \
	PREFETCHT1 256(PF) \
	PREFETCHT1 320(PF) \
	PREFETCHT1 384(PF) \
	PREFETCHT1 448(PF) \
	PREFETCHT1 512(PF) \
	ADDQ       $576, PF

// func fusedDot4Q4_KAVX512Old(groups int, w []byte, rb int, xp []byte, out *[4]float32)
TEXT ·fusedDot4Q4_KAVX512Old(SB), NOSPLIT, $0-72
	SETUPK
	BCAST8B(0x0f0f0f0f, MLO)

fusedDot4Q4_KAVX512Old_loop:
	TESTQ NG, NG
	JZ    fusedDot4Q4_KAVX512Old_done
	PREFETCH_Q4_K
	Q4_SCALES(WP0, SCL0, MP0)
	Q4_SCALES(WP1, SCL1, MP1)
	Q4_SCALES(WP2, SCL2, MP2)
	Q4_SCALES(WP3, SCL3, MP3)
	VPXORD SUM0, SUM0, SUM0
	VPXORD SUM1, SUM1, SUM1
	VPXORD SUM2, SUM2, SUM2
	VPXORD SUM3, SUM3, SUM3
	Q4_CHUNK4(Q4_LO, 0, 16)
	Q4_CHUNK4(Q4_HI, 1, 16)
	Q4_CHUNK4(Q4_LO, 2, 48)
	Q4_CHUNK4(Q4_HI, 3, 48)
	Q4_CHUNK4(Q4_LO, 4, 80)
	Q4_CHUNK4(Q4_HI, 5, 80)
	Q4_CHUNK4(Q4_LO, 6, 112)
	Q4_CHUNK4(Q4_HI, 7, 112)
	VBROADCASTSS (XP), X13 // dx
	Q4_FIN(WP0, SUM0, MP0, ACC0)
	Q4_FIN(WP1, SUM1, MP1, ACC1)
	Q4_FIN(WP2, SUM2, MP2, ACC2)
	Q4_FIN(WP3, SUM3, MP3, ACC3)
	ADDQ  $144, WP0
	ADDQ  $144, WP1
	ADDQ  $144, WP2
	ADDQ  $144, WP3
	ADDQ  $292, XP
	DECQ  NG
	JMP   fusedDot4Q4_KAVX512Old_loop

fusedDot4Q4_KAVX512Old_done:
	FINISH4
	RET
