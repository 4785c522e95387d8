//go:build !purego

#include "textflag.h"

// Element-wise float32 ops and reductions for AVX2. Every routine takes n,
// a multiple of 8 and > 0 (the Go wrappers in float_vec_amd64.go handle the
// rest) and uses unaligned loads and stores. Element-wise results round
// exactly like the generic loops; only the reductions reorder.

// Register roles.
#define PD DI
#define PA SI
#define PB DX
#define CNT CX

// BINSTEP4 computes 32 values: dst[0:32] = a[0:32] OP b[0:32]. All loads
// precede the stores, so dst may equal a or b.
#define BINSTEP4(OP) \
	VMOVUPS 0(PA), Y0;      \
	VMOVUPS 32(PA), Y1;     \
	VMOVUPS 64(PA), Y2;     \
	VMOVUPS 96(PA), Y3;     \
	OP      0(PB), Y0, Y0;  \
	OP      32(PB), Y1, Y1; \
	OP      64(PB), Y2, Y2; \
	OP      96(PB), Y3, Y3; \
	VMOVUPS Y0, 0(PD);      \
	VMOVUPS Y1, 32(PD);     \
	VMOVUPS Y2, 64(PD);     \
	VMOVUPS Y3, 96(PD)

// BINSTEP1 computes 8 values.
#define BINSTEP1(OP) \
	VMOVUPS (PA), Y0;     \
	OP      (PB), Y0, Y0; \
	VMOVUPS Y0, (PD)

// ADVANCE moves the three pointers on by bytes and the count down by vals.
#define ADVANCE(bytes, vals) \
	ADDQ $bytes, PA; \
	ADDQ $bytes, PB; \
	ADDQ $bytes, PD; \
	SUBQ $vals, CNT

// func addAVX2(dst, a, b *float32, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), PD
	MOVQ a+8(FP), PA
	MOVQ b+16(FP), PB
	MOVQ n+24(FP), CNT

addAVX2_loop:
	CMPQ CNT, $32
	JLT  addAVX2_tail
	BINSTEP4(VADDPS)
	ADVANCE(128, 32)
	JMP  addAVX2_loop

addAVX2_tail:
	CMPQ CNT, $8
	JLT  addAVX2_done
	BINSTEP1(VADDPS)
	ADVANCE(32, 8)
	JMP  addAVX2_tail

addAVX2_done:
	VZEROUPPER
	RET

// func mulAVX2(dst, a, b *float32, n int)
TEXT ·mulAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), PD
	MOVQ a+8(FP), PA
	MOVQ b+16(FP), PB
	MOVQ n+24(FP), CNT

mulAVX2_loop:
	CMPQ CNT, $32
	JLT  mulAVX2_tail
	BINSTEP4(VMULPS)
	ADVANCE(128, 32)
	JMP  mulAVX2_loop

mulAVX2_tail:
	CMPQ CNT, $8
	JLT  mulAVX2_done
	BINSTEP1(VMULPS)
	ADVANCE(32, 8)
	JMP  mulAVX2_tail

mulAVX2_done:
	VZEROUPPER
	RET

// func scaleToAVX2(dst, x *float32, n int, s float32)
TEXT ·scaleToAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), PD
	MOVQ         x+8(FP), PA
	MOVQ         n+16(FP), CNT
	VBROADCASTSS s+24(FP), Y4     // Y4 = s in every lane

scaleToAVX2_loop:
	CMPQ    CNT, $32
	JLT     scaleToAVX2_tail
	VMULPS  0(PA), Y4, Y0
	VMULPS  32(PA), Y4, Y1
	VMULPS  64(PA), Y4, Y2
	VMULPS  96(PA), Y4, Y3
	VMOVUPS Y0, 0(PD)
	VMOVUPS Y1, 32(PD)
	VMOVUPS Y2, 64(PD)
	VMOVUPS Y3, 96(PD)
	ADDQ    $128, PA
	ADDQ    $128, PD
	SUBQ    $32, CNT
	JMP     scaleToAVX2_loop

scaleToAVX2_tail:
	CMPQ    CNT, $8
	JLT     scaleToAVX2_done
	VMULPS  (PA), Y4, Y0
	VMOVUPS Y0, (PD)
	ADDQ    $32, PA
	ADDQ    $32, PD
	SUBQ    $8, CNT
	JMP     scaleToAVX2_tail

scaleToAVX2_done:
	VZEROUPPER
	RET

// SQACC adds the squares of the eight floats at m, each rounded to float32
// and then widened, to the float64 accumulators LO (lanes 0-3) and HI
// (lanes 4-7). T and U are scratch.
#define SQACC(m, LO, HI, T, TX, U) \
	VMOVUPS      m, T;      \
	VMULPS       T, T, T;   \
	VCVTPS2PD    TX, U;     \
	VADDPD       U, LO, LO; \
	VEXTRACTF128 $1, T, TX; \
	VCVTPS2PD    TX, U;     \
	VADDPD       U, HI, HI

// func sumSquaresAVX2(x *float32, n int) float64
//
// The squares are rounded to float32 and summed in float64, as in
// rmsNormGeneric; only the order of the float64 additions differs.
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), PA
	MOVQ   n+8(FP), CNT
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

sumSquaresAVX2_loop:
	CMPQ CNT, $16
	JLT  sumSquaresAVX2_tail
	SQACC(0(PA), Y0, Y1, Y4, X4, Y5)
	SQACC(32(PA), Y2, Y3, Y6, X6, Y7)
	ADDQ $64, PA
	SUBQ $16, CNT
	JMP  sumSquaresAVX2_loop

sumSquaresAVX2_tail:
	CMPQ CNT, $8
	JLT  sumSquaresAVX2_done
	SQACC((PA), Y0, Y1, Y4, X4, Y5)

sumSquaresAVX2_done:
	VADDPD       Y2, Y0, Y0
	VADDPD       Y3, Y1, Y1
	VADDPD       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1    // X1[0] = X0[1]
	VADDSD       X1, X0, X0
	VMOVSD       X0, ret+16(FP)
	VZEROUPPER
	RET

// func maxAVX2(x *float32, n int) float32
//
// x must not hold NaN (VMAXPS would return its second operand).
TEXT ·maxAVX2(SB), NOSPLIT, $0-20
	MOVQ    x+0(FP), PA
	MOVQ    n+8(FP), CNT
	VMOVUPS (PA), Y0
	VMOVAPS Y0, Y1

maxAVX2_loop:
	CMPQ    CNT, $16
	JLT     maxAVX2_tail
	VMAXPS  0(PA), Y0, Y0
	VMAXPS  32(PA), Y1, Y1
	ADDQ    $64, PA
	SUBQ    $16, CNT
	JMP     maxAVX2_loop

maxAVX2_tail:
	CMPQ    CNT, $8
	JLT     maxAVX2_done
	VMAXPS  (PA), Y0, Y0

maxAVX2_done:
	VMAXPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1    // X1[0:2] = X0[2:4]
	VMAXPS       X1, X0, X0
	VMOVSHDUP    X0, X1        // X1[0] = X0[1]
	VMAXSS       X1, X0, X0
	VMOVSS       X0, ret+16(FP)
	VZEROUPPER
	RET
