//go:build !purego

#include "textflag.h"

// rotateNEON is rotateGo (rotate.go) with NEON: x *= pre, the butterflies
// of fwht128 (a, b) -> (a+b, a-b) with strides 1, 2, 4, ..., 64, then
// x = (x·scale)·post. Every butterfly has the same two operands as in the
// reference and every multiply is its own rounding (FMUL, no FMLA), so
// each element gets the reference's bits; only the order in which
// independent butterflies run differs. Three passes over x:
//
//   - strides 1 and 2 (with pre): LD4 loads 16 values deinterleaved, so
//     value 4i+j is lane i of register j and both strides pair registers;
//     ST4 stores them back in order.
//   - strides 4, 8, 16, 32: per 64-value half, 16 registers, value 4r+i in
//     lane i of register r; a stage pairs registers r and r+h, writing
//     V0-V15 into V16-V31 and back.
//   - stride 64 (with scale and post): register pairs 64 values apart.

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FADD4S(m, n, d) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(m, n, d) WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d)) // fsub Vd.4S, Vn.4S, Vm.4S
#define FMUL4S(m, n, d) WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul Vd.4S, Vn.4S, Vm.4S

#define RX R0  // read cursor in x
#define WX R1  // write cursor in x
#define PRE R2 // cursor in pre
#define PST R3 // cursor in post
#define CNT R4 // trips left
#define HI R5  // cursor 64 values on from RX

// BFLY(a, b, s, d): V(s) = V(a)+V(b), V(d) = V(a)-V(b).
#define BFLY(a, b, s, d) \
	FADD4S(b, a, s); \
	FSUB4S(b, a, d)

// STAGE4, 8, 16 and 32 are one butterfly stage over the 16 registers of a
// half (register distance 1, 2, 4, 8), from V0-V15 into V16-V31 or back.
#define STAGE4 \
	BFLY(0, 1, 16, 17); BFLY(2, 3, 18, 19); \
	BFLY(4, 5, 20, 21); BFLY(6, 7, 22, 23); \
	BFLY(8, 9, 24, 25); BFLY(10, 11, 26, 27); \
	BFLY(12, 13, 28, 29); BFLY(14, 15, 30, 31)

#define STAGE8 \
	BFLY(16, 18, 0, 2); BFLY(17, 19, 1, 3); \
	BFLY(20, 22, 4, 6); BFLY(21, 23, 5, 7); \
	BFLY(24, 26, 8, 10); BFLY(25, 27, 9, 11); \
	BFLY(28, 30, 12, 14); BFLY(29, 31, 13, 15)

#define STAGE16 \
	BFLY(0, 4, 16, 20); BFLY(1, 5, 17, 21); \
	BFLY(2, 6, 18, 22); BFLY(3, 7, 19, 23); \
	BFLY(8, 12, 24, 28); BFLY(9, 13, 25, 29); \
	BFLY(10, 14, 26, 30); BFLY(11, 15, 27, 31)

#define STAGE32 \
	BFLY(16, 24, 0, 8); BFLY(17, 25, 1, 9); \
	BFLY(18, 26, 2, 10); BFLY(19, 27, 3, 11); \
	BFLY(20, 28, 4, 12); BFLY(21, 29, 5, 13); \
	BFLY(22, 30, 6, 14); BFLY(23, 31, 7, 15)

// func rotateNEON(x, pre, post *[128]float32, scale float32)
TEXT ·rotateNEON(SB), NOSPLIT, $0-28
	MOVD  x+0(FP), RX
	MOVD  pre+8(FP), PRE
	MOVD  post+16(FP), PST
	MOVD  RX, WX
	MOVD  $8, CNT

rotateNEON_pass1:
	VLD4.P 64(RX), [V0.S4, V1.S4, V2.S4, V3.S4]  // lane i of Vj: value 4i+j
	VLD4.P 64(PRE), [V4.S4, V5.S4, V6.S4, V7.S4]
	FMUL4S(4, 0, 0)
	FMUL4S(5, 1, 1)
	FMUL4S(6, 2, 2)
	FMUL4S(7, 3, 3)
	BFLY(0, 1, 8, 9)   // stride 1: a0, a1
	BFLY(2, 3, 10, 11) // a2, a3
	BFLY(8, 10, 0, 2)  // stride 2: a0±a2
	BFLY(9, 11, 1, 3)  // a1±a3
	VST4.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(WX)
	SUBS   $1, CNT
	BNE    rotateNEON_pass1

	MOVD x+0(FP), RX
	MOVD RX, WX
	MOVD $2, CNT

rotateNEON_pass2:
	VLD1.P 64(RX), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(RX), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(RX), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(RX), [V12.S4, V13.S4, V14.S4, V15.S4]
	STAGE4
	STAGE8
	STAGE16
	STAGE32
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(WX)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(WX)
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(WX)
	VST1.P [V12.S4, V13.S4, V14.S4, V15.S4], 64(WX)
	SUBS   $1, CNT
	BNE    rotateNEON_pass2

	MOVD x+0(FP), RX
	ADD  $256, RX, HI
	ADD  $256, PST, R6 // post of the upper half
	FMOVS scale+24(FP), F24
	VDUP  V24.S[0], V24.S4
	MOVD $4, CNT

rotateNEON_pass3:
	VLD1   (RX), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1   (HI), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(PST), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(R6), [V12.S4, V13.S4, V14.S4, V15.S4]
	BFLY(0, 4, 16, 20)
	BFLY(1, 5, 17, 21)
	BFLY(2, 6, 18, 22)
	BFLY(3, 7, 19, 23)
	FMUL4S(24, 16, 16); FMUL4S(24, 17, 17); FMUL4S(24, 18, 18); FMUL4S(24, 19, 19)
	FMUL4S(24, 20, 20); FMUL4S(24, 21, 21); FMUL4S(24, 22, 22); FMUL4S(24, 23, 23)
	FMUL4S(8, 16, 16); FMUL4S(9, 17, 17); FMUL4S(10, 18, 18); FMUL4S(11, 19, 19)
	FMUL4S(12, 20, 20); FMUL4S(13, 21, 21); FMUL4S(14, 22, 22); FMUL4S(15, 23, 23)
	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(RX)
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], 64(HI)
	SUBS   $1, CNT
	BNE    rotateNEON_pass3
	RET
