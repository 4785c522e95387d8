//go:build !purego

#include "textflag.h"

// func prefetchRowsARM64(p unsafe.Pointer, stride, lines, n int)
// PRFM PLDL1KEEP of `lines` 64-byte lines at the start of each of n rows.
TEXT ·prefetchRowsARM64(SB), NOSPLIT, $0-32
	MOVD p+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD lines+16(FP), R2
	MOVD n+24(FP), R3
	CBZ  R2, done

row:
	MOVD R0, R4
	MOVD R2, R5

line:
	PRFM (R4), PLDL1KEEP
	ADD  $64, R4
	SUBS $1, R5
	BNE  line
	ADD  R1, R0
	SUBS $1, R3
	BNE  row

done:
	RET
