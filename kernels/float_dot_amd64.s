//go:build !purego

#include "textflag.h"

// Float dot products for AVX2+FMA+F16C: f32·f32, f16·f16 and bf16·bf16.
// Every routine takes n, a multiple of 8 (the Go wrappers in float_amd64.go
// add the last n%8 products), widens each operand to float32 and accumulates
// with FMA in float32 lanes, like ggml_vec_dot_f32/f16 on AVX2: four 8-lane
// accumulators over 32 values per step, then ((a0+a2)+(a1+a3)) and a
// horizontal sum. f16 and bf16 products are exact in float32, so fusing only
// changes the f32·f32 rounding.

// HSUM8 leaves the sum of the eight lanes of Y (alias X) in the low lane of
// X, using T as scratch.
// VMOVHLPS moves X[2:4] to T[0:2]; VMOVSHDUP moves X[1] to T[0].
#define HSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VADDPS       T, X, X;  \
	VMOVHLPS     X, X, T;  \
	VADDPS       T, X, X;  \
	VMOVSHDUP    X, T;     \
	VADDSS       T, X, X

// BF16LD widens eight bf16 at m to float32 in R: R[i] = uint32(m[i]) << 16.
#define BF16LD(m, R) \
	VPMOVZXWD m, R; \
	VPSLLD    $16, R, R

// Single-column register roles.
#define PA SI
#define PB DI
#define CNT CX
#define ACC0 Y0
#define ACC1 Y1
#define ACC2 Y2
#define ACC3 Y3

// ZERO4 clears the four accumulators.
#define ZERO4 \
	VXORPS ACC0, ACC0, ACC0; \
	VXORPS ACC1, ACC1, ACC1; \
	VXORPS ACC2, ACC2, ACC2; \
	VXORPS ACC3, ACC3, ACC3

// FOLD4 leaves the float32 sum of the four accumulators in X0.
#define FOLD4 \
	VADDPS ACC2, ACC0, ACC0; \
	VADDPS ACC3, ACC1, ACC1; \
	VADDPS ACC1, ACC0, ACC0; \
	HSUM8(ACC0, X0, X1)

// func dotF32AVX2(a, b *float32, n int) float32
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), PA
	MOVQ b+8(FP), PB
	MOVQ n+16(FP), CNT
	ZERO4

dotF32AVX2_loop:
	CMPQ        CNT, $32
	JLT         dotF32AVX2_tail
	VMOVUPS     0(PA), Y4
	VMOVUPS     32(PA), Y5
	VMOVUPS     64(PA), Y6
	VMOVUPS     96(PA), Y7
	VFMADD231PS 0(PB), Y4, ACC0  // ACC0 += a[0:8] * b[0:8]
	VFMADD231PS 32(PB), Y5, ACC1
	VFMADD231PS 64(PB), Y6, ACC2
	VFMADD231PS 96(PB), Y7, ACC3
	ADDQ        $128, PA
	ADDQ        $128, PB
	SUBQ        $32, CNT
	JMP         dotF32AVX2_loop

dotF32AVX2_tail:
	CMPQ        CNT, $8
	JLT         dotF32AVX2_done
	VMOVUPS     (PA), Y4
	VFMADD231PS (PB), Y4, ACC0
	ADDQ        $32, PA
	ADDQ        $32, PB
	SUBQ        $8, CNT
	JMP         dotF32AVX2_tail

dotF32AVX2_done:
	FOLD4
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotF16AVX2(a, b *byte, n int) float32
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), PA
	MOVQ b+8(FP), PB
	MOVQ n+16(FP), CNT
	ZERO4

dotF16AVX2_loop:
	CMPQ        CNT, $32
	JLT         dotF16AVX2_tail
	VCVTPH2PS   0(PA), Y4        // Y4 = float32(a[0:8])
	VCVTPH2PS   16(PA), Y5
	VCVTPH2PS   32(PA), Y6
	VCVTPH2PS   48(PA), Y7
	VCVTPH2PS   0(PB), Y8
	VCVTPH2PS   16(PB), Y9
	VCVTPH2PS   32(PB), Y10
	VCVTPH2PS   48(PB), Y11
	VFMADD231PS Y8, Y4, ACC0
	VFMADD231PS Y9, Y5, ACC1
	VFMADD231PS Y10, Y6, ACC2
	VFMADD231PS Y11, Y7, ACC3
	ADDQ        $64, PA
	ADDQ        $64, PB
	SUBQ        $32, CNT
	JMP         dotF16AVX2_loop

dotF16AVX2_tail:
	CMPQ        CNT, $8
	JLT         dotF16AVX2_done
	VCVTPH2PS   (PA), Y4
	VCVTPH2PS   (PB), Y8
	VFMADD231PS Y8, Y4, ACC0
	ADDQ        $16, PA
	ADDQ        $16, PB
	SUBQ        $8, CNT
	JMP         dotF16AVX2_tail

dotF16AVX2_done:
	FOLD4
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotBF16AVX2(a, b *byte, n int) float32
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), PA
	MOVQ b+8(FP), PB
	MOVQ n+16(FP), CNT
	ZERO4

dotBF16AVX2_loop:
	CMPQ        CNT, $32
	JLT         dotBF16AVX2_tail
	BF16LD(0(PA), Y4)
	BF16LD(16(PA), Y5)
	BF16LD(32(PA), Y6)
	BF16LD(48(PA), Y7)
	BF16LD(0(PB), Y8)
	BF16LD(16(PB), Y9)
	BF16LD(32(PB), Y10)
	BF16LD(48(PB), Y11)
	VFMADD231PS Y8, Y4, ACC0
	VFMADD231PS Y9, Y5, ACC1
	VFMADD231PS Y10, Y6, ACC2
	VFMADD231PS Y11, Y7, ACC3
	ADDQ        $64, PA
	ADDQ        $64, PB
	SUBQ        $32, CNT
	JMP         dotBF16AVX2_loop

dotBF16AVX2_tail:
	CMPQ        CNT, $8
	JLT         dotBF16AVX2_done
	BF16LD((PA), Y4)
	BF16LD((PB), Y8)
	VFMADD231PS Y8, Y4, ACC0
	ADDQ        $16, PA
	ADDQ        $16, PB
	SUBQ        $8, CNT
	JMP         dotBF16AVX2_tail

dotBF16AVX2_done:
	FOLD4
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// Four-column dots: out[c] = dot(w, xc) for c < 4, one pass over w. Each column keeps two 8-lane accumulators over 16 values per step, so a
// column's sum is rounded in a different order than the single-column dot's
// (within tolVecDotImpl of it).

// Four-column register roles. OFF is the byte offset shared by w and every
// column (both operands have the same element size); END16 is the byte
// length of the whole 16-value steps, END the byte length of all n values.
#define PW SI
#define PX0 DI
#define PX1 R8
#define PX2 R9
#define PX3 R10
#define OFF AX
#define END16 BX
#define END CX
#define POUT DX

// X4START scales the value count END to bytes (the element size is
// 1<<shift bytes), rounds it down to whole 16-value steps in END16 (mask =
// -16<<shift), and clears OFF and the eight accumulators Y2..Y9.
#define X4START(shift, mask) \
	SHLQ $shift, END;    \
	MOVQ END, END16;     \
	ANDQ $mask, END16;   \
	XORQ OFF, OFF;       \
	VXORPS Y2, Y2, Y2;   \
	VXORPS Y3, Y3, Y3;   \
	VXORPS Y4, Y4, Y4;   \
	VXORPS Y5, Y5, Y5;   \
	VXORPS Y6, Y6, Y6;   \
	VXORPS Y7, Y7, Y7;   \
	VXORPS Y8, Y8, Y8;   \
	VXORPS Y9, Y9, Y9

// X4FOLD stores the four column sums: out[c] = hsum(Y(2+2c) + Y(3+2c)).
#define X4FOLD \
	VADDPS Y3, Y2, Y2;      \
	VADDPS Y5, Y4, Y4;      \
	VADDPS Y7, Y6, Y6;      \
	VADDPS Y9, Y8, Y8;      \
	HSUM8(Y2, X2, X10);     \
	HSUM8(Y4, X4, X10);     \
	HSUM8(Y6, X6, X10);     \
	HSUM8(Y8, X8, X10);     \
	VMOVSS X2, 0(POUT);     \
	VMOVSS X4, 4(POUT);     \
	VMOVSS X6, 8(POUT);     \
	VMOVSS X8, 12(POUT);    \
	VZEROUPPER

// func dotF32x4AVX2(w, x0, x1, x2, x3 *float32, n int, out *[4]float32)
TEXT ·dotF32x4AVX2(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), PW
	MOVQ x0+8(FP), PX0
	MOVQ x1+16(FP), PX1
	MOVQ x2+24(FP), PX2
	MOVQ x3+32(FP), PX3
	MOVQ n+40(FP), END
	MOVQ out+48(FP), POUT
	X4START(2, -64)

dotF32x4AVX2_loop:
	CMPQ        OFF, END16
	JEQ         dotF32x4AVX2_tail
	VMOVUPS     (PW)(OFF*1), Y0
	VMOVUPS     32(PW)(OFF*1), Y1
	VFMADD231PS (PX0)(OFF*1), Y0, Y2 // Y2 += w[0:8] * x0[0:8]
	VFMADD231PS 32(PX0)(OFF*1), Y1, Y3
	VFMADD231PS (PX1)(OFF*1), Y0, Y4
	VFMADD231PS 32(PX1)(OFF*1), Y1, Y5
	VFMADD231PS (PX2)(OFF*1), Y0, Y6
	VFMADD231PS 32(PX2)(OFF*1), Y1, Y7
	VFMADD231PS (PX3)(OFF*1), Y0, Y8
	VFMADD231PS 32(PX3)(OFF*1), Y1, Y9
	ADDQ        $64, OFF
	JMP         dotF32x4AVX2_loop

dotF32x4AVX2_tail:
	CMPQ        OFF, END
	JEQ         dotF32x4AVX2_done
	VMOVUPS     (PW)(OFF*1), Y0
	VFMADD231PS (PX0)(OFF*1), Y0, Y2
	VFMADD231PS (PX1)(OFF*1), Y0, Y4
	VFMADD231PS (PX2)(OFF*1), Y0, Y6
	VFMADD231PS (PX3)(OFF*1), Y0, Y8

dotF32x4AVX2_done:
	X4FOLD
	RET

// F16FMA adds float32(x[0:8] at m) * W to ACC, with Y10 as scratch.
#define F16FMA(m, W, ACC) \
	VCVTPH2PS   m, Y10; \
	VFMADD231PS Y10, W, ACC

// func dotF16x4AVX2(w, x0, x1, x2, x3 *byte, n int, out *[4]float32)
TEXT ·dotF16x4AVX2(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), PW
	MOVQ x0+8(FP), PX0
	MOVQ x1+16(FP), PX1
	MOVQ x2+24(FP), PX2
	MOVQ x3+32(FP), PX3
	MOVQ n+40(FP), END
	MOVQ out+48(FP), POUT
	X4START(1, -32)

dotF16x4AVX2_loop:
	CMPQ      OFF, END16
	JEQ       dotF16x4AVX2_tail
	VCVTPH2PS (PW)(OFF*1), Y0
	VCVTPH2PS 16(PW)(OFF*1), Y1
	F16FMA((PX0)(OFF*1), Y0, Y2)
	F16FMA(16(PX0)(OFF*1), Y1, Y3)
	F16FMA((PX1)(OFF*1), Y0, Y4)
	F16FMA(16(PX1)(OFF*1), Y1, Y5)
	F16FMA((PX2)(OFF*1), Y0, Y6)
	F16FMA(16(PX2)(OFF*1), Y1, Y7)
	F16FMA((PX3)(OFF*1), Y0, Y8)
	F16FMA(16(PX3)(OFF*1), Y1, Y9)
	ADDQ      $32, OFF
	JMP       dotF16x4AVX2_loop

dotF16x4AVX2_tail:
	CMPQ      OFF, END
	JEQ       dotF16x4AVX2_done
	VCVTPH2PS (PW)(OFF*1), Y0
	F16FMA((PX0)(OFF*1), Y0, Y2)
	F16FMA((PX1)(OFF*1), Y0, Y4)
	F16FMA((PX2)(OFF*1), Y0, Y6)
	F16FMA((PX3)(OFF*1), Y0, Y8)

dotF16x4AVX2_done:
	X4FOLD
	RET

// BF16FMA adds float32(bf16 x[0:8] at m) * W to ACC, with Y10 as scratch.
#define BF16FMA(m, W, ACC) \
	BF16LD(m, Y10); \
	VFMADD231PS Y10, W, ACC

// func dotBF16x4AVX2(w, x0, x1, x2, x3 *byte, n int, out *[4]float32)
TEXT ·dotBF16x4AVX2(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), PW
	MOVQ x0+8(FP), PX0
	MOVQ x1+16(FP), PX1
	MOVQ x2+24(FP), PX2
	MOVQ x3+32(FP), PX3
	MOVQ n+40(FP), END
	MOVQ out+48(FP), POUT
	X4START(1, -32)

dotBF16x4AVX2_loop:
	CMPQ OFF, END16
	JEQ  dotBF16x4AVX2_tail
	BF16LD((PW)(OFF*1), Y0)
	BF16LD(16(PW)(OFF*1), Y1)
	BF16FMA((PX0)(OFF*1), Y0, Y2)
	BF16FMA(16(PX0)(OFF*1), Y1, Y3)
	BF16FMA((PX1)(OFF*1), Y0, Y4)
	BF16FMA(16(PX1)(OFF*1), Y1, Y5)
	BF16FMA((PX2)(OFF*1), Y0, Y6)
	BF16FMA(16(PX2)(OFF*1), Y1, Y7)
	BF16FMA((PX3)(OFF*1), Y0, Y8)
	BF16FMA(16(PX3)(OFF*1), Y1, Y9)
	ADDQ $32, OFF
	JMP  dotBF16x4AVX2_loop

dotBF16x4AVX2_tail:
	CMPQ OFF, END
	JEQ  dotBF16x4AVX2_done
	BF16LD((PW)(OFF*1), Y0)
	BF16FMA((PX0)(OFF*1), Y0, Y2)
	BF16FMA((PX1)(OFF*1), Y0, Y4)
	BF16FMA((PX2)(OFF*1), Y0, Y6)
	BF16FMA((PX3)(OFF*1), Y0, Y8)

dotBF16x4AVX2_done:
	X4FOLD
	RET
