//go:build !purego

#include "textflag.h"

#define rounds CX // rounds left
#define ua Z12    // unsigned bytes (any values)
#define sb Z13    // signed bytes (any values)

// func int8LoopAVX512VNNI(n int)
//
// n rounds of twelve independent VPDPBUSD zmm (each 64 unsigned-by-signed
// byte products added into 16 int32 lanes: 128 integer operations), so
// the multiply-add units, not one accumulator's latency, set the pace. The
// operands are whatever the registers hold: the instruction's timing does
// not depend on the values.
TEXT ·int8LoopAVX512VNNI(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), rounds
	TESTQ rounds, rounds
	JLE  int8LoopAVX512VNNI_done

int8LoopAVX512VNNI_loop:
	VPDPBUSD ua, sb, Z0
	VPDPBUSD ua, sb, Z1
	VPDPBUSD ua, sb, Z2
	VPDPBUSD ua, sb, Z3
	VPDPBUSD ua, sb, Z4
	VPDPBUSD ua, sb, Z5
	VPDPBUSD ua, sb, Z6
	VPDPBUSD ua, sb, Z7
	VPDPBUSD ua, sb, Z8
	VPDPBUSD ua, sb, Z9
	VPDPBUSD ua, sb, Z10
	VPDPBUSD ua, sb, Z11
	DECQ rounds
	JNZ  int8LoopAVX512VNNI_loop

int8LoopAVX512VNNI_done:
	VZEROUPPER
	RET
