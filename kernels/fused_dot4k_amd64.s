//go:build !purego

#include "textflag.h"

// Four-row dot products of Q4_K / Q6_K weight rows against one q8_K
// activation row (see fused_dot4_amd64.go for the semantics).
//
// Each row's integer lanes hold exactly the values of vecDotQ4_KVNNI /
// vecDotQ6_KVNNI (vecdot_k_amd64.s): int32 lane j of a super-block is
// the sum over the eight 32-value chunks k of scale(k) · (the four products
// q·x at values 4j..4j+3 of chunk k), plus the type's offset or min term.
// Only the grouping of that exact integer sum differs: here two chunks
// share one 512-bit register (one in each 256-bit half), one VPMADDUBSW
// and one VPDPWSSD with a two-scale vector serve both, and the halves are
// added once per super-block (FOLD). The float steps (per super-block FMA
// of d·dx times the lanes, FNMADD of dmin·dx times the min lanes, final
// horizontal sum) are those of the one-row kernels in the same order with
// the same values, so every result has their bits.
//
// Each quant byte is loaded once and the activations once per super-block
// for all four rows (kept in registers), and the shuffle controls live in
// registers: on Zen 4 the 512-bit loads limited the first version of these
// kernels as much as the arithmetic did.
//
// Measured on Zen 4 (one core, 64 rows of 2048 values in L2), against the
// 256-bit kernels they replace: Q4_K 24.8 -> 31.0 GB/s, Q6_K 26.5 -> 37.3
// GB/s. VGF2P8AFFINEQB (one affine bit map per byte) unpacked nibbles in
// one instruction but measured no faster than shift and mask there, so
// only AVX-512 F/BW/VL and VNNI are needed.

#define WP0 R8
#define WP1 R9
#define WP2 R10
#define WP3 R11
#define XP DI
#define NG CX
#define PF SI       /* prefetch pointer, eight rows ahead */

#define SUM0 Z20    /* int32 lanes of the super-block, row r: chunk k low, k+1 high */
#define SUM1 Z21
#define SUM2 Z22
#define SUM3 Z23
#define ACC0 Y24    /* float32 chains, row r */
#define ACC1 Y25
#define ACC2 Y26
#define ACC3 Y27

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

// FOLD(sum, sumy, y): y = the low eight int32 lanes of sum (sumy: its low
// half) plus its high eight: the one-row kernel's lanes, exactly.
#define FOLD(sum, sumy, y) \
	VEXTRACTI64X4 $1, sum, y \
	VPADDD        sumy, y, y

// ---- Q4_K (144-byte super-blocks: d, dmin, scales[12], qs[128]).
//
// Chunks k and k+2 share a register: the 64 bytes qs[64h:64h+64] hold
// chunks 4h, 4h+2 in their low nibbles and 4h+1, 4h+3 in their high
// nibbles, so one load serves four chunks and the activations are
// gathered to match once per super-block (X02..X57, shared by the rows).
// The scale/min unpacking of super-block g+1 runs during super-block g
// (its result waits in NEXT and 0(SP)), off the critical path.

#define MLO Z14     /* 0x0f in every byte */
#define CUR Z13     /* unpacked scales/mins of this super-block, row r in lane r */
#define NEXT Z11    /* the same for the next one */
#define X02 Z16     /* activations of chunks 0 | 2 */
#define X13 Z17     /* 1 | 3 */
#define X46 Z18     /* 4 | 6 */
#define X57 Z19     /* 5 | 7 */

// Q4_RAW(off) gathers the first 16 bytes of the four rows' super-blocks
// at off (a register) into Z12, row r in 128-bit lane r: dwords d|dmin,
// u0, u1, u2 (u0..u2: the twelve 6-bit scale/min bytes, see scaleMinK4).
#define Q4_RAW(off) \
	VMOVDQU      (WP0)(off*1), X12 \
	VINSERTI32X4 $1, (WP1)(off*1), Y12, Y12 \
	VMOVDQU      (WP2)(off*1), X0 \
	VINSERTI32X4 $1, (WP3)(off*1), Y0, Y0 \
	VINSERTI64X4 $1, Y0, Z12, Z12

// Q4_UNPACK(dst) turns Z12 into dst: lane r = bytes scales 0..7, mins
// 0..7 of row r (K4_SCALES of vecdot_k_amd64.s, four rows at once):
//
//	scales 0-3 = u0 & 63       scales 4-7 = u2 & 15 | (u0 >> 6) << 4
//	mins 0-3   = u1 & 63       mins 4-7   = u2 >> 4 | (u1 >> 6) << 4
#define Q4_UNPACK(dst) \
	VPSHUFD    $0xed, Z12, dst               /* u0, u2, u1, u2 */ \
	VPSRLVD    ·q4kUnpackShift(SB), dst, dst /* u0, u2, u1, u2 >> 4 */ \
	VPSHUFD    $0x84, Z12, Z0                /* -, u0, -, u1 */ \
	VPSRLD     $2, Z0, Z0                    /* bits 6-7 of each byte to 4-5 */ \
	VPANDD     ·q4kUnpackHigh(SB), Z0, Z0    /* 0, 0x30 mask, 0, 0x30 mask */ \
	VPTERNLOGD $0xec, ·q4kUnpackLow(SB), Z0, dst /* dst & (63, 15, 63, 15 masks) | Z0 */

// Q4_DMIN(xoff): Y10 = dw·dx, dminw·dx of rows 0..3 (float32 pairs; dx
// at xoff(XP)) from Z12 (DMIN2 and FIN_M of vecdot_k_amd64.s).
#define Q4_DMIN(xoff) \
	VPERMD      Z12, Z15, Z1         /* dword 0 of each lane: d|dmin of rows 0..3 */ \
	VCVTPH2PS   X1, Y10 \
	VMULPS.BCST (XP)(xoff*1), Y10, Y10 /* * dx */

// Q4_ACTS gathers the activations of the chunk pairs.
#define Q4_ACTS \
	VMOVDQU64    4(XP), Y16 \
	VINSERTI64X4 $1, 68(XP), X02, X02 \
	VMOVDQU64    36(XP), Y17 \
	VINSERTI64X4 $1, 100(XP), X13, X13 \
	VMOVDQU64    132(XP), Y18 \
	VINSERTI64X4 $1, 196(XP), X46, X46 \
	VMOVDQU64    164(XP), Y19 \
	VINSERTI64X4 $1, 228(XP), X57, X57

// Q4_HALF(h, wp, sc, sum, OP, XL, XH, CL, CH): sum OP= scales · q·x over chunks
// 4h..4h+3: the low nibbles of qs[64h:] against XL, the high ones against
// XH, each with its two-scale vector (VPSHUFB of the row's scales with the
// controls CL, CH).
#define Q4_HALF(h, wp, sc, sum, OP, XL, XH, CL, CH) \
	VMOVDQU64  16+64*h(wp), Z5 \
	VPANDD     Z5, MLO, Z2 \
	VPSRLW     $4, Z5, Z5 \
	VPANDD     MLO, Z5, Z5 \
	VPMADDUBSW XL, Z2, Z2                          /* u8 q * s8 x, pairs summed to int16 */ \
	VPSHUFB    CL, sc, Z3                          /* scale 4h low, 4h+2 high */ \
	OP         Z3, Z2, sum                         /* sum (+)= scale * pairs, pairs summed */ \
	VPMADDUBSW XH, Z5, Z5 \
	VPSHUFB    CH, sc, Z3 \
	VPDPWSSD   Z3, Z5, sum

// Q4_ROW(lane, wp, sum, mp): the integer work of one row: sum = the lanes
// of the chunk pairs, mp = bsums · mins (each min twice).
#define Q4_ROW(lane, wp, sum, mp) \
	VSHUFI32X4 $lane, CUR, CUR, Z4      /* the row's scales and mins in every lane */ \
	VPSHUFB    ·q4kMinPairs(SB), Y4, Y5 /* m0 m0 m1 m1 ... as int16 */ \
	VPMADDWD   260(XP), Y5, mp          /* bsums * mins, pairs summed */ \
	Q4_HALF(0, wp, Z4, sum, VPMADDWD, X02, X13, Z6, Z7) \
	Q4_HALF(1, wp, Z4, sum, VPDPWSSD, X46, X57, Z8, Z9)

// Q4_FIN(r, sum, sumy, mp, acc): acc += (dw·dx)·float(lanes), then
// acc -= (dminw·dx)·float(mp) (FIN_M).
#define Q4_FIN(r, sum, sumy, mp, acc) \
	FOLD(sum, sumy, Y2) \
	VCVTDQ2PS         Y2, Y2 \
	VFMADD231PS.BCST  8*r(SP), Y2, acc \
	VCVTDQ2PS         mp, Y3 \
	VFNMADD231PS.BCST 4+8*r(SP), Y3, acc

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

// func fusedDot4Q4_KVNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)
TEXT ·fusedDot4Q4_KVNNI(SB), NOSPLIT, $32-72
	SETUPK
	VMOVDQU64    ·q4kDminIdx(SB), Z15
	VPBROADCASTD ·q4kLowNibble(SB), MLO
	VMOVDQU64    ·q4kPairScale+0(SB), Z6
	VMOVDQU64    ·q4kPairScale+64(SB), Z7
	VMOVDQU64    ·q4kPairScale+128(SB), Z8
	VMOVDQU64    ·q4kPairScale+192(SB), Z9
	XORL         R12, R12
	Q4_RAW(R12)
	Q4_UNPACK(CUR)
	Q4_DMIN(R12)
	VMOVUPS      Y10, 0(SP)

fusedDot4Q4_KVNNI_loop:
	PREFETCH_Q4_K
	MOVQ    $144, BX      /* next super-block: 144 bytes on, 292 in x ... */
	MOVQ    $292, DX
	CMPQ    NG, $1
	CMOVQEQ R12, BX       /* ... or this one again on the last */
	CMOVQEQ R12, DX
	Q4_RAW(BX)
	Q4_UNPACK(NEXT)
	Q4_DMIN(DX)
	Q4_ACTS
	Q4_ROW(0x00, WP0, SUM0, Y28)
	Q4_ROW(0x55, WP1, SUM1, Y29)
	Q4_ROW(0xaa, WP2, SUM2, Y30)
	Q4_ROW(0xff, WP3, SUM3, Y31)
	Q4_FIN(0, SUM0, Y20, Y28, ACC0)
	Q4_FIN(1, SUM1, Y21, Y29, ACC1)
	Q4_FIN(2, SUM2, Y22, Y30, ACC2)
	Q4_FIN(3, SUM3, Y23, Y31, ACC3)
	VMOVUPS   Y10, 0(SP)
	VMOVDQA64 NEXT, CUR
	ADDQ      $144, WP0
	ADDQ      $144, WP1
	ADDQ      $144, WP2
	ADDQ      $144, WP3
	ADDQ      $292, XP
	DECQ      NG
	JNZ       fusedDot4Q4_KVNNI_loop

	FINISH4
	RET

#undef MLO
#undef CUR
#undef NEXT

DATA ·q4kLowNibble+0(SB)/4, $0x0f0f0f0f
GLOBL ·q4kLowNibble(SB), RODATA|NOPTR, $4

// Q4_UNPACK's per-lane dword constants: shift counts, masks of the top
// bits (moved to bits 4-5) and masks of the low bits.
DATA ·q4kUnpackShift+0(SB)/8, $0
DATA ·q4kUnpackShift+8(SB)/8, $0x0000000400000000
DATA ·q4kUnpackShift+16(SB)/8, $0
DATA ·q4kUnpackShift+24(SB)/8, $0x0000000400000000
DATA ·q4kUnpackShift+32(SB)/8, $0
DATA ·q4kUnpackShift+40(SB)/8, $0x0000000400000000
DATA ·q4kUnpackShift+48(SB)/8, $0
DATA ·q4kUnpackShift+56(SB)/8, $0x0000000400000000
GLOBL ·q4kUnpackShift(SB), RODATA|NOPTR, $64

DATA ·q4kUnpackHigh+0(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+8(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+16(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+24(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+32(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+40(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+48(SB)/8, $0x3030303000000000
DATA ·q4kUnpackHigh+56(SB)/8, $0x3030303000000000
GLOBL ·q4kUnpackHigh(SB), RODATA|NOPTR, $64

DATA ·q4kUnpackLow+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+8(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+16(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+24(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+32(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+40(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+48(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA ·q4kUnpackLow+56(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL ·q4kUnpackLow(SB), RODATA|NOPTR, $64

// q4kDminIdx: VPERMD index gathering dword 0 of each 128-bit lane.
DATA ·q4kDminIdx+0(SB)/8, $0x0000000400000000
DATA ·q4kDminIdx+8(SB)/8, $0x0000000c00000008
DATA ·q4kDminIdx+16(SB)/8, $0
DATA ·q4kDminIdx+24(SB)/8, $0
DATA ·q4kDminIdx+32(SB)/8, $0
DATA ·q4kDminIdx+40(SB)/8, $0
DATA ·q4kDminIdx+48(SB)/8, $0
DATA ·q4kDminIdx+56(SB)/8, $0
GLOBL ·q4kDminIdx(SB), RODATA|NOPTR, $64

// q4kMinPairs: VPSHUFB control making int16 words m0 m0 m1 m1 m2 m2 m3 m3
// (low lane) and m4 m4 ... m7 m7 (high lane) from min bytes 8..15.
DATA ·q4kMinPairs+0(SB)/8, $0x8009800980088008
DATA ·q4kMinPairs+8(SB)/8, $0x800b800b800a800a
DATA ·q4kMinPairs+16(SB)/8, $0x800d800d800c800c
DATA ·q4kMinPairs+24(SB)/8, $0x800f800f800e800e
GLOBL ·q4kMinPairs(SB), RODATA|NOPTR, $32

// q4kPairScale: VPSHUFB controls making int16 words of one scale byte in
// the low half and another in the high half (0x80: zero): scales 0 | 2,
// 1 | 3, 4 | 6, 5 | 7.
DATA ·q4kPairScale+0(SB)/8, $0x8000800080008000
DATA ·q4kPairScale+8(SB)/8, $0x8000800080008000
DATA ·q4kPairScale+16(SB)/8, $0x8000800080008000
DATA ·q4kPairScale+24(SB)/8, $0x8000800080008000
DATA ·q4kPairScale+32(SB)/8, $0x8002800280028002
DATA ·q4kPairScale+40(SB)/8, $0x8002800280028002
DATA ·q4kPairScale+48(SB)/8, $0x8002800280028002
DATA ·q4kPairScale+56(SB)/8, $0x8002800280028002
DATA ·q4kPairScale+64(SB)/8, $0x8001800180018001
DATA ·q4kPairScale+72(SB)/8, $0x8001800180018001
DATA ·q4kPairScale+80(SB)/8, $0x8001800180018001
DATA ·q4kPairScale+88(SB)/8, $0x8001800180018001
DATA ·q4kPairScale+96(SB)/8, $0x8003800380038003
DATA ·q4kPairScale+104(SB)/8, $0x8003800380038003
DATA ·q4kPairScale+112(SB)/8, $0x8003800380038003
DATA ·q4kPairScale+120(SB)/8, $0x8003800380038003
DATA ·q4kPairScale+128(SB)/8, $0x8004800480048004
DATA ·q4kPairScale+136(SB)/8, $0x8004800480048004
DATA ·q4kPairScale+144(SB)/8, $0x8004800480048004
DATA ·q4kPairScale+152(SB)/8, $0x8004800480048004
DATA ·q4kPairScale+160(SB)/8, $0x8006800680068006
DATA ·q4kPairScale+168(SB)/8, $0x8006800680068006
DATA ·q4kPairScale+176(SB)/8, $0x8006800680068006
DATA ·q4kPairScale+184(SB)/8, $0x8006800680068006
DATA ·q4kPairScale+192(SB)/8, $0x8005800580058005
DATA ·q4kPairScale+200(SB)/8, $0x8005800580058005
DATA ·q4kPairScale+208(SB)/8, $0x8005800580058005
DATA ·q4kPairScale+216(SB)/8, $0x8005800580058005
DATA ·q4kPairScale+224(SB)/8, $0x8007800780078007
DATA ·q4kPairScale+232(SB)/8, $0x8007800780078007
DATA ·q4kPairScale+240(SB)/8, $0x8007800780078007
DATA ·q4kPairScale+248(SB)/8, $0x8007800780078007
GLOBL ·q4kPairScale(SB), RODATA|NOPTR, $256

// ---- Q6_K (210-byte super-blocks: ql[128], qh[64], scales[16], d).

#define MLO Z15     /* 0x0f in every byte */
#define NBS Y14     /* -bsums of the super-block, int16 */
#define M30 Z10     /* 0x30 in every byte */

// Q6_OFFSET(wp, sumy): the row's lanes start at the -32 offset term,
// 32 · (-bsums . scales) (OFFSET of vecdot_k_amd64.s: the same products,
// the sign moved from the scale to the bsum, |bsum| <= 2048); Y4 = the
// sixteen scales as int16 for Q6_HALF.
#define Q6_OFFSET(wp, sumy) \
	VPMOVSXBW 192(wp), Y4 \
	VPMADDWD  NBS, Y4, sumy \
	VPSLLD    $5, sumy, sumy

// Q6_HALF(h, wp, sum, IDXA, IDXB, XA, XB): sum += scales · q·x over values
// 128h..128h+127: the pair of chunks 4h, 4h+1 (low nibbles of ql[64h:],
// qh[32h:] bits 0-1 and 2-3) and the pair 4h+2, 4h+3 (high nibbles, qh
// bits 4-5 and 6-7), each pair's 64 activations one contiguous load, made
// once per super-block for the four rows (XA, XB).
// The 32 qh bytes sit in both halves; a word shift by a different count
// per half (q6kShift) and a mask move each half's two bits to bits 4-5,
// VPTERNLOGD ors the nibbles in. Scales: sub-block 4p+i in 128-bit lane i
// for pair p (VPERMW).
#define Q6_HALF(h, wp, sum, IDXA, IDXB, XA, XB) \
	VBROADCASTI64X4 128+32*h(wp), Z5 \
	VMOVDQU64       64*h(wp), Z9                /* ql */ \
	VPSLLVW         Z11, Z5, Z6                 /* qh << 4 | qh << 2 */ \
	VPANDD          M30, Z6, Z6                 /* bits 0-1 | 2-3 now at 4-5 */ \
	VPTERNLOGD      $0xf8, Z9, MLO, Z6          /* q = Z6 | ql & 15 */ \
	VPMADDUBSW      XA, Z6, Z6                  /* u8 q * s8 x, pairs summed to int16 */ \
	VPERMW          Z4, IDXA, Z7                /* scale of each 16 values */ \
	VPDPWSSD        Z7, Z6, sum \
	VPSRLVW         Z12, Z5, Z8                 /* qh | qh >> 2 */ \
	VPANDD          M30, Z8, Z8                 /* bits 4-5 | 6-7 now at 4-5 */ \
	VPSRLW          $4, Z9, Z9 \
	VPTERNLOGD      $0xf8, Z9, MLO, Z8          /* q = Z8 | (ql >> 4) & 15 */ \
	VPMADDUBSW      XB, Z8, Z8 \
	VPERMW          Z4, IDXB, Z7 \
	VPDPWSSD        Z7, Z8, sum

#define Q6_ROW(wp, sum, sumy) \
	Q6_OFFSET(wp, sumy) \
	Q6_HALF(0, wp, sum, Z16, Z17, Z28, Z29) \
	Q6_HALF(1, wp, sum, Z18, Z19, Z30, Z31)

// Q6_D stores dw·dx of rows 0..3 at 0(SP): the four fp16 d gathered in a
// general register, converted and multiplied together (D1 and FIN_D of
// vecdot_k_amd64.s).
#define Q6_D \
	MOVWLZX     208(WP0), AX \
	MOVWLZX     208(WP1), BX \
	SHLL        $16, BX \
	ORL         BX, AX \
	MOVWLZX     208(WP2), BX \
	MOVWLZX     208(WP3), DX \
	SHLL        $16, DX \
	ORL         DX, BX \
	SHLQ        $32, BX \
	ORQ         BX, AX          /* d of rows 0..3, fp16 */ \
	VMOVQ       AX, X0 \
	VCVTPH2PS   X0, X0 \
	VMULPS.BCST (XP), X0, X0    /* d = dw*dx */ \
	VMOVUPS     X0, 0(SP)

// Q6_FIN(r, sum, sumy, acc): acc += (dw·dx)·float(lanes) (FIN_D).
#define Q6_FIN(r, sum, sumy, acc) \
	FOLD(sum, sumy, Y6) \
	VCVTDQ2PS        Y6, Y6 \
	VFMADD231PS.BCST 4*r(SP), Y6, acc

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

// func fusedDot4Q6_KVNNI(groups int, w []byte, rb int, xp []byte, out *[4]float32)
TEXT ·fusedDot4Q6_KVNNI(SB), NOSPLIT, $16-72
	SETUPK
	VPBROADCASTD ·q6kLowNibble(SB), MLO
	VPBROADCASTD ·q6kM30(SB), M30
	VMOVDQU64    ·q6kPairIdx+0(SB), Z16
	VMOVDQU64    ·q6kPairIdx+64(SB), Z17
	VMOVDQU64    ·q6kPairIdx+128(SB), Z18
	VMOVDQU64    ·q6kPairIdx+192(SB), Z19
	VMOVDQU64    ·q6kShift+0(SB), Z11
	VMOVDQU64    ·q6kShift+64(SB), Z12

fusedDot4Q6_KVNNI_loop:
	PREFETCH_Q6_K
	VPXORD NBS, NBS, NBS
	VPSUBW 260(XP), NBS, NBS
	VMOVDQU64 4(XP), Z28          /* activations of chunks 0, 1 */
	VMOVDQU64 68(XP), Z29         /* 2, 3 */
	VMOVDQU64 132(XP), Z30        /* 4, 5 */
	VMOVDQU64 196(XP), Z31        /* 6, 7 */
	Q6_D
	Q6_ROW(WP0, SUM0, Y20)
	Q6_ROW(WP1, SUM1, Y21)
	Q6_ROW(WP2, SUM2, Y22)
	Q6_ROW(WP3, SUM3, Y23)
	Q6_FIN(0, SUM0, Y20, ACC0)
	Q6_FIN(1, SUM1, Y21, ACC1)
	Q6_FIN(2, SUM2, Y22, ACC2)
	Q6_FIN(3, SUM3, Y23, ACC3)
	ADDQ  $210, WP0
	ADDQ  $210, WP1
	ADDQ  $210, WP2
	ADDQ  $210, WP3
	ADDQ  $292, XP
	DECQ  NG
	JNZ   fusedDot4Q6_KVNNI_loop

	FINISH4
	RET

#undef MLO
#undef NBS
#undef M30

DATA ·q6kLowNibble+0(SB)/4, $0x0f0f0f0f
GLOBL ·q6kLowNibble(SB), RODATA|NOPTR, $4

// q6kPairIdx: four VPERMW indices; entry p puts int16 scale 4p+i in every
// word of 128-bit lane i.
DATA ·q6kPairIdx+0(SB)/8, $0x0000000000000000
DATA ·q6kPairIdx+8(SB)/8, $0x0000000000000000
DATA ·q6kPairIdx+16(SB)/8, $0x0001000100010001
DATA ·q6kPairIdx+24(SB)/8, $0x0001000100010001
DATA ·q6kPairIdx+32(SB)/8, $0x0002000200020002
DATA ·q6kPairIdx+40(SB)/8, $0x0002000200020002
DATA ·q6kPairIdx+48(SB)/8, $0x0003000300030003
DATA ·q6kPairIdx+56(SB)/8, $0x0003000300030003
DATA ·q6kPairIdx+64(SB)/8, $0x0004000400040004
DATA ·q6kPairIdx+72(SB)/8, $0x0004000400040004
DATA ·q6kPairIdx+80(SB)/8, $0x0005000500050005
DATA ·q6kPairIdx+88(SB)/8, $0x0005000500050005
DATA ·q6kPairIdx+96(SB)/8, $0x0006000600060006
DATA ·q6kPairIdx+104(SB)/8, $0x0006000600060006
DATA ·q6kPairIdx+112(SB)/8, $0x0007000700070007
DATA ·q6kPairIdx+120(SB)/8, $0x0007000700070007
DATA ·q6kPairIdx+128(SB)/8, $0x0008000800080008
DATA ·q6kPairIdx+136(SB)/8, $0x0008000800080008
DATA ·q6kPairIdx+144(SB)/8, $0x0009000900090009
DATA ·q6kPairIdx+152(SB)/8, $0x0009000900090009
DATA ·q6kPairIdx+160(SB)/8, $0x000a000a000a000a
DATA ·q6kPairIdx+168(SB)/8, $0x000a000a000a000a
DATA ·q6kPairIdx+176(SB)/8, $0x000b000b000b000b
DATA ·q6kPairIdx+184(SB)/8, $0x000b000b000b000b
DATA ·q6kPairIdx+192(SB)/8, $0x000c000c000c000c
DATA ·q6kPairIdx+200(SB)/8, $0x000c000c000c000c
DATA ·q6kPairIdx+208(SB)/8, $0x000d000d000d000d
DATA ·q6kPairIdx+216(SB)/8, $0x000d000d000d000d
DATA ·q6kPairIdx+224(SB)/8, $0x000e000e000e000e
DATA ·q6kPairIdx+232(SB)/8, $0x000e000e000e000e
DATA ·q6kPairIdx+240(SB)/8, $0x000f000f000f000f
DATA ·q6kPairIdx+248(SB)/8, $0x000f000f000f000f
GLOBL ·q6kPairIdx(SB), RODATA|NOPTR, $256

DATA ·q6kM30+0(SB)/4, $0x30303030
GLOBL ·q6kM30(SB), RODATA|NOPTR, $4

// q6kShift: VPSLLVW counts 4 | 2 and VPSRLVW counts 0 | 2 (low | high
// half) for Q6_HALF.
DATA ·q6kShift+0(SB)/8, $0x0004000400040004
DATA ·q6kShift+8(SB)/8, $0x0004000400040004
DATA ·q6kShift+16(SB)/8, $0x0004000400040004
DATA ·q6kShift+24(SB)/8, $0x0004000400040004
DATA ·q6kShift+32(SB)/8, $0x0002000200020002
DATA ·q6kShift+40(SB)/8, $0x0002000200020002
DATA ·q6kShift+48(SB)/8, $0x0002000200020002
DATA ·q6kShift+56(SB)/8, $0x0002000200020002
DATA ·q6kShift+64(SB)/8, $0
DATA ·q6kShift+72(SB)/8, $0
DATA ·q6kShift+80(SB)/8, $0
DATA ·q6kShift+88(SB)/8, $0
DATA ·q6kShift+96(SB)/8, $0x0002000200020002
DATA ·q6kShift+104(SB)/8, $0x0002000200020002
DATA ·q6kShift+112(SB)/8, $0x0002000200020002
DATA ·q6kShift+120(SB)/8, $0x0002000200020002
GLOBL ·q6kShift(SB), RODATA|NOPTR, $128
