//go:build !purego

#include "textflag.h"

// rotateAVX2 is rotateGo (rotate.go) with AVX2: x *= pre, the butterflies
// of fwht128 (a, b) -> (a+b, a-b) with strides 1, 2, 4, ..., 64, then
// x = (x·scale)·post. Every butterfly has the same two operands as in the
// reference (a+b, and a-b with a the lower index) and every multiply is
// its own rounding (no FMA), so each element gets the reference's bits;
// only the order in which independent butterflies run differs. Per
// 64-value half, Y0-Y7 hold values 8r..8r+7 (register r):
//
//   - strides 1, 2, 4 inside each register: T = the register with the
//     paired lanes swapped (VPERMILPS, VPERM2F128), then a+b = R+T in the
//     lower lane of each pair and a-b = T-R in the upper, merged by
//     VBLENDPS;
//   - strides 8, 16, 32 between registers r and r+1, r+2, r+4, from Y0-Y7
//     into Y8-Y15, back, and into Y8-Y15 again.
//
// The first half is stored; stride 64 then pairs it, from memory, with the
// second half still in Y8-Y15, and scales and signs both.

#define XP AX   // x
#define PRE BX  // pre
#define POST CX // post

// SUMDIFF(R, mask): with Y8 = R's lanes swapped in pairs, R = R+Y8 in the
// lanes clear in mask (the lower of each pair), Y8-R in the others.
#define SUMDIFF(R, mask) \
	VADDPS   Y8, R, Y9 \
	VSUBPS   R, Y8, Y10 \
	VBLENDPS $mask, Y10, Y9, R

// INREG(R): strides 1, 2 and 4 on the eight values of R.
#define INREG(R) \
	VPERMILPS  $0xb1, R, Y8 /* lanes 1,0,3,2 */ \
	SUMDIFF(R, 0xaa) \
	VPERMILPS  $0x4e, R, Y8 /* lanes 2,3,0,1 */ \
	SUMDIFF(R, 0xcc) \
	VPERM2F128 $1, R, R, Y8 /* halves swapped */ \
	SUMDIFF(R, 0xf0)

// BFLY(a, b, s, d): s = a+b, d = a-b.
#define BFLY(a, b, s, d) \
	VADDPS b, a, s \
	VSUBPS b, a, d

// HALF(off): x[off/4 : off/4+64] times pre, strides 1 to 32; the result
// (value 8r+i in lane i of Y(8+r)) stays in Y8-Y15.
#define HALF(off) \
	VMOVUPS off(XP), Y0;      VMULPS off(PRE), Y0, Y0 \
	VMOVUPS off+32(XP), Y1;   VMULPS off+32(PRE), Y1, Y1 \
	VMOVUPS off+64(XP), Y2;   VMULPS off+64(PRE), Y2, Y2 \
	VMOVUPS off+96(XP), Y3;   VMULPS off+96(PRE), Y3, Y3 \
	VMOVUPS off+128(XP), Y4;  VMULPS off+128(PRE), Y4, Y4 \
	VMOVUPS off+160(XP), Y5;  VMULPS off+160(PRE), Y5, Y5 \
	VMOVUPS off+192(XP), Y6;  VMULPS off+192(PRE), Y6, Y6 \
	VMOVUPS off+224(XP), Y7;  VMULPS off+224(PRE), Y7, Y7 \
	INREG(Y0); INREG(Y1); INREG(Y2); INREG(Y3) \
	INREG(Y4); INREG(Y5); INREG(Y6); INREG(Y7) \
	BFLY(Y0, Y1, Y8, Y9);   BFLY(Y2, Y3, Y10, Y11)  /* stride 8 */ \
	BFLY(Y4, Y5, Y12, Y13); BFLY(Y6, Y7, Y14, Y15) \
	BFLY(Y8, Y10, Y0, Y2);  BFLY(Y9, Y11, Y1, Y3)   /* stride 16 */ \
	BFLY(Y12, Y14, Y4, Y6); BFLY(Y13, Y15, Y5, Y7) \
	BFLY(Y0, Y4, Y8, Y12);  BFLY(Y1, Y5, Y9, Y13)   /* stride 32 */ \
	BFLY(Y2, Y6, Y10, Y14); BFLY(Y3, Y7, Y11, Y15)

// LAST(r, H): stride 64 for register r: lo = x[8r:] (first half, stored),
// H = x[64+8r:]; x[8r:] = (lo+H)·scale·post, x[64+8r:] = (lo-H)·scale·post.
#define LAST(r, H) \
	VMOVUPS (32*(r))(XP), Y0 \
	BFLY(Y0, H, Y1, Y2) \
	VMULPS  Y4, Y1, Y1 \
	VMULPS  (32*(r))(POST), Y1, Y1 \
	VMULPS  Y4, Y2, Y2 \
	VMULPS  (256+32*(r))(POST), Y2, Y2 \
	VMOVUPS Y1, (32*(r))(XP) \
	VMOVUPS Y2, (256+32*(r))(XP)

// func rotateAVX2(x, pre, post *[128]float32, scale float32)
TEXT ·rotateAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), XP
	MOVQ pre+8(FP), PRE
	MOVQ post+16(FP), POST
	HALF(0)
	VMOVUPS Y8, 0(XP)
	VMOVUPS Y9, 32(XP)
	VMOVUPS Y10, 64(XP)
	VMOVUPS Y11, 96(XP)
	VMOVUPS Y12, 128(XP)
	VMOVUPS Y13, 160(XP)
	VMOVUPS Y14, 192(XP)
	VMOVUPS Y15, 224(XP)
	HALF(256)
	VBROADCASTSS scale+24(FP), Y4
	LAST(0, Y8)
	LAST(1, Y9)
	LAST(2, Y10)
	LAST(3, Y11)
	LAST(4, Y12)
	LAST(5, Y13)
	LAST(6, Y14)
	LAST(7, Y15)
	VZEROUPPER
	RET
