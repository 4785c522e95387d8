//go:build !purego

#include "textflag.h"

// func vnniLoop(n int)
//
// n rounds of twelve independent VPDPBUSD zmm (each 64 unsigned-by-signed
// byte products added into 16 int32 lanes: 128 integer operations), so
// the multiply-add units, not one accumulator's latency, set the pace. The
// operands are whatever the registers hold: the instruction's timing does
// not depend on the values.
TEXT ·vnniLoop(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	TESTQ CX, CX
	JLE  vnniLoop_done

vnniLoop_loop:
	VPDPBUSD Z12, Z13, Z0
	VPDPBUSD Z12, Z13, Z1
	VPDPBUSD Z12, Z13, Z2
	VPDPBUSD Z12, Z13, Z3
	VPDPBUSD Z12, Z13, Z4
	VPDPBUSD Z12, Z13, Z5
	VPDPBUSD Z12, Z13, Z6
	VPDPBUSD Z12, Z13, Z7
	VPDPBUSD Z12, Z13, Z8
	VPDPBUSD Z12, Z13, Z9
	VPDPBUSD Z12, Z13, Z10
	VPDPBUSD Z12, Z13, Z11
	DECQ CX
	JNZ  vnniLoop_loop

vnniLoop_done:
	VZEROUPPER
	RET
