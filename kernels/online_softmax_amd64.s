//go:build !purego

#include "textflag.h"

// The scaling and maximum pass of OnlineSoftMax for AVX2 (the exponential
// pass is expSumAVX2 in float_exp_amd64.s).

#define PX  SI // x
#define CNT CX // values left, a multiple of 8
#define SV  Y2 // s in every lane

// func scaleMaxAVX2(x *float32, n int, s float32) float32
//
// x[i] *= s for i < n; returns max x[i] after scaling. Two maxima run in
// parallel (Y0 for the even groups of 8, Y1 for the odd ones) so the VMAXPS
// chain does not bound the loop.
TEXT ·scaleMaxAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), PX
	MOVQ         n+8(FP), CNT
	VBROADCASTSS s+16(FP), SV
	VMULPS       (PX), SV, Y0        // the first 8 (n >= 8) seed both maxima
	VMOVUPS      Y0, (PX)
	VMOVAPS      Y0, Y1
	ADDQ         $32, PX
	SUBQ         $8, CNT

scaleMaxAVX2_loop:
	CMPQ    CNT, $16
	JLT     scaleMaxAVX2_tail
	VMULPS  (PX), SV, Y3
	VMULPS  32(PX), SV, Y4
	VMOVUPS Y3, (PX)
	VMOVUPS Y4, 32(PX)
	VMAXPS  Y3, Y0, Y0
	VMAXPS  Y4, Y1, Y1
	ADDQ    $64, PX
	SUBQ    $16, CNT
	JMP     scaleMaxAVX2_loop

scaleMaxAVX2_tail:
	TESTQ   CNT, CNT
	JZ      scaleMaxAVX2_done
	VMULPS  (PX), SV, Y3             // the one group of 8 left
	VMOVUPS Y3, (PX)
	VMAXPS  Y3, Y0, Y0

scaleMaxAVX2_done:
	VMAXPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1          // X1[0:2] = X0[2:4]
	VMAXPS       X1, X0, X0
	VMOVSHDUP    X0, X1              // X1[0] = X0[1]
	VMAXSS       X1, X0, X0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET
