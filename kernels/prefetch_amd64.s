//go:build !purego

#include "textflag.h"

// func prefetchRowsAMD64(p unsafe.Pointer, stride, lines, n int)
// PREFETCHT0 of `lines` cache lines at the start of each of n rows.
TEXT ·prefetchRowsAMD64(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ lines+16(FP), CX
	MOVQ n+24(FP), BX
	TESTQ CX, CX
	JLE  done

row:
	MOVQ SI, DI
	MOVQ CX, AX

line:
	PREFETCHT0 (DI)
	ADDQ $64, DI
	DECQ AX
	JNZ  line
	ADDQ DX, SI
	DECQ BX
	JNZ  row

done:
	RET
