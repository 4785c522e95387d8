//go:build !purego

#include "textflag.h"

// The scaling and maximum pass of OnlineSoftMax for NEON (the exponential
// pass is expSumF32NEON in float_exp_arm64.s).

#define FMUL4S(m, n, d) WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul  Vd.4S, Vn.4S, Vm.4S
#define FMAX4S(m, n, d) WORD $(0x4E20F400 | ((m)<<16) | ((n)<<5) | (d)) // fmax  Vd.4S, Vn.4S, Vm.4S
#define FMAXVS(n, d)    WORD $(0x6E30F800 | ((n)<<5) | (d))             // fmaxv Sd, Vn.4S

#define xp  R0 // x, read
#define dp  R1 // x, written back
#define cnt R2 // groups of 8 left

// func scaleMaxF32NEON(x *float32, n int, s float32) float32
//
// x[i] *= s for i < n; returns max x[i] after scaling, with V0 and V1 the
// maxima of the low and high four of each group of 8.
TEXT ·scaleMaxF32NEON(SB), NOSPLIT, $0-28
	MOVD   x+0(FP), xp
	MOVD   n+8(FP), cnt
	FMOVS  s+16(FP), F31
	VDUP   V31.S[0], V31.S4
	MOVD   xp, dp
	VLD1.P 32(xp), [V0.S4, V1.S4]  // the first 8 (n >= 8) seed the maxima
	FMUL4S(31, 0, 0)
	FMUL4S(31, 1, 1)
	VST1.P [V0.S4, V1.S4], 32(dp)
	LSR    $3, cnt
	SUBS   $1, cnt
	BEQ    scaleMaxF32NEON_done

scaleMaxF32NEON_loop:
	VLD1.P 32(xp), [V2.S4, V3.S4]
	FMUL4S(31, 2, 2)
	FMUL4S(31, 3, 3)
	VST1.P [V2.S4, V3.S4], 32(dp)
	FMAX4S(2, 0, 0)
	FMAX4S(3, 1, 1)
	SUBS   $1, cnt
	BNE    scaleMaxF32NEON_loop

scaleMaxF32NEON_done:
	FMAX4S(1, 0, 0)
	FMAXVS(0, 0)                   // F0 = the largest lane
	FMOVS  F0, ret+24(FP)
	RET
