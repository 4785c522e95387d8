//go:build !purego

#include "textflag.h"

// Float dot products for AVX2+FMA+F16C: f32·f32, f16·f16 and bf16·bf16.
// Every routine takes n, a multiple of 8 (the Go wrappers in float_amd64.go
// add the last n%8 products), widens each operand to float32 and accumulates
// with FMA in float32 lanes, like ggml_vec_dot_f32/f16 on AVX2: four 8-lane
// accumulators over 32 values per step (8-value chunk 4k+j into accumulator
// j, the chunks after the last whole step into accumulator 0), then
// ((a0+a2)+(a1+a3)) and a horizontal sum. The two-column routines keep
// exactly this order per column, so a column's dot has the same bits either
// way (which batching and speculative verification rely on). f16 and bf16
// products are exact in float32, so fusing only changes the f32·f32
// rounding.

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

// Two-column f16 and bf16 dots: out[c] = dot(w, xc) for c < 2, one pass
// over w (f32 has none: with one operand from memory per FMA, two single
// dots are as fast, see BenchmarkFloatVecDotN). Each
// column keeps four accumulators in the single-column order (chunk 4k+j
// into accumulator j, the tail chunks into accumulator 0) and folds them
// the same way, so out[c] has the bits of the single-column dot of xc.
// (Four columns would need sixteen accumulators, all of the YMM registers.)

// Two-column register roles. OFF is the byte offset shared by w and both
// columns (both operands have the same element size); END32 is the byte
// length of the whole 32-value steps, END the byte length of all n values.
// Column 0 accumulates in Y2..Y5, column 1 in Y6..Y9; W holds the widened
// weight chunk, XT a widened activation chunk.
#define PW SI
#define PX0 DI
#define PX1 R8
#define OFF AX
#define END32 BX
#define END CX
#define POUT DX
#define W Y0
#define XT Y1

// X2START(shift, mask) scales the value count END to bytes (the element
// size is 1<<shift bytes), rounds it down to whole 32-value steps in END32
// (mask = -32<<shift), and clears OFF and the eight accumulators Y2..Y9.
#define X2START(shift, mask) \
	SHLQ   $shift, END; \
	MOVQ   END, END32;  \
	ANDQ   $mask, END32; \
	XORQ   OFF, OFF;    \
	VXORPS Y2, Y2, Y2;  \
	VXORPS Y3, Y3, Y3;  \
	VXORPS Y4, Y4, Y4;  \
	VXORPS Y5, Y5, Y5;  \
	VXORPS Y6, Y6, Y6;  \
	VXORPS Y7, Y7, Y7;  \
	VXORPS Y8, Y8, Y8;  \
	VXORPS Y9, Y9, Y9

// X2COL(a0, a1, a2, a3, x, off) stores hsum((a0+a2)+(a1+a3)), x the low
// half of a0, at off(POUT): FOLD4's order.
#define X2COL(a0, a1, a2, a3, x, off) \
	VADDPS a2, a0, a0;  \
	VADDPS a3, a1, a1;  \
	VADDPS a1, a0, a0;  \
	HSUM8(a0, x, X10);  \
	VMOVSS x, off(POUT)

// X2FOLD stores the two column sums.
#define X2FOLD \
	X2COL(Y2, Y3, Y4, Y5, X2, 0); \
	X2COL(Y6, Y7, Y8, Y9, X6, 4); \
	VZEROUPPER

// F16CHUNK(m, a, b) adds the 8-value chunk of w at m(PW)(OFF) times column
// 0's chunk at the same place to a, and times column 1's to b, widening each
// chunk from f16.
#define F16CHUNK(m, a, b) \
	VCVTPH2PS   m(PW)(OFF*1), W;   \
	VCVTPH2PS   m(PX0)(OFF*1), XT; \
	VFMADD231PS XT, W, a;          \
	VCVTPH2PS   m(PX1)(OFF*1), XT; \
	VFMADD231PS XT, W, b

// func dotF16x2AVX2(w, x0, x1 *byte, n int, out *[2]float32)
TEXT ·dotF16x2AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), PW
	MOVQ x0+8(FP), PX0
	MOVQ x1+16(FP), PX1
	MOVQ n+24(FP), END
	MOVQ out+32(FP), POUT
	X2START(1, -64)

dotF16x2AVX2_loop:
	CMPQ OFF, END32
	JEQ  dotF16x2AVX2_tail
	F16CHUNK(0, Y2, Y6)
	F16CHUNK(16, Y3, Y7)
	F16CHUNK(32, Y4, Y8)
	F16CHUNK(48, Y5, Y9)
	ADDQ $64, OFF
	JMP  dotF16x2AVX2_loop

dotF16x2AVX2_tail:
	CMPQ OFF, END
	JEQ  dotF16x2AVX2_done
	F16CHUNK(0, Y2, Y6)
	ADDQ $16, OFF
	JMP  dotF16x2AVX2_tail

dotF16x2AVX2_done:
	X2FOLD
	RET

// BF16CHUNK(m, a, b): F16CHUNK for bf16 rows.
#define BF16CHUNK(m, a, b) \
	BF16LD(m(PW)(OFF*1), W);   \
	BF16LD(m(PX0)(OFF*1), XT); \
	VFMADD231PS XT, W, a;      \
	BF16LD(m(PX1)(OFF*1), XT); \
	VFMADD231PS XT, W, b

// func dotBF16x2AVX2(w, x0, x1 *byte, n int, out *[2]float32)
TEXT ·dotBF16x2AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), PW
	MOVQ x0+8(FP), PX0
	MOVQ x1+16(FP), PX1
	MOVQ n+24(FP), END
	MOVQ out+32(FP), POUT
	X2START(1, -64)

dotBF16x2AVX2_loop:
	CMPQ OFF, END32
	JEQ  dotBF16x2AVX2_tail
	BF16CHUNK(0, Y2, Y6)
	BF16CHUNK(16, Y3, Y7)
	BF16CHUNK(32, Y4, Y8)
	BF16CHUNK(48, Y5, Y9)
	ADDQ $64, OFF
	JMP  dotBF16x2AVX2_loop

dotBF16x2AVX2_tail:
	CMPQ OFF, END
	JEQ  dotBF16x2AVX2_done
	BF16CHUNK(0, Y2, Y6)
	ADDQ $16, OFF
	JMP  dotBF16x2AVX2_tail

dotBF16x2AVX2_done:
	X2FOLD
	RET
