//go:build !purego

#include "textflag.h"
#include "tcqpairs_amd64.h"

// Fused TCQ value sums (semantics in accum.go, AccumulateRows4; stubs in
// accum_amd64.go). The loop order is dims outer, rows inner: a pass takes
// one slice of the block (32 values on AVX-512, 16 on AVX2), loads the
// four heads' sums of that slice into registers, then walks all n rows,
// decoding just the slice of each row from the level-pair table (P4 at the
// slice's fixed window offsets), scaling by the row's norm, and adding
// each head's rounded product p·v (VMULPS then VADDPS, never FMA, with p
// as the first operand, as kernels.AttnValues(F32) does). Only at the end
// of the pass are the sums stored, so nothing but the blocks and the
// probabilities is read per row. Heads the caller does not have alias head
// 0 (same sums, same probabilities), so they compute and store exactly
// head 0's values.

#define SRC SI  // the row's block
#define SS R9   // src stride, bytes
#define CB R11  // the level-pair table
#define RI DI   // row index - n: -n..-1
#define P0 R8   // head 0's probabilities, past the n-th
#define P1 R10
#define P2 R13
#define P3 R14

// SETUP loads the loop-invariant registers and jumps to done when n <= 0.
#define SETUP(table, done) \
	MOVQ  n+80(FP), BX;        \
	TESTQ BX, BX;              \
	JLE   done;                \
	MOVQ  p0+32(FP), P0;       \
	LEAQ  (P0)(BX*4), P0;      \
	MOVQ  p1+40(FP), P1;       \
	LEAQ  (P1)(BX*4), P1;      \
	MOVQ  p2+48(FP), P2;       \
	LEAQ  (P2)(BX*4), P2;      \
	MOVQ  p3+56(FP), P3;       \
	LEAQ  (P3)(BX*4), P3;      \
	MOVQ  srcStride+72(FP), SS; \
	LEAQ  table(SB), CB

// ROWS starts the walk over the rows: the first row, RI = -n.
#define ROWS \
	MOVQ src+64(FP), SRC; \
	MOVQ n+80(FP), RI;    \
	NEGQ RI

// NEXTROW steps to the next row and jumps to loop while rows are left.
#define NEXTROW(loop) \
	ADDQ SS, SRC; \
	INCQ RI;      \
	JNZ  loop

// LOADSUMS / STORESUMS move head j's sums of the slice at byte off (two
// vectors, w bytes apart) between memory (aj) and the registers ra, rb.
#define LOADSUMS(aj, off, w, ra, rb) \
	MOVQ    aj, AX;          \
	VMOVUPS off(AX), ra;     \
	VMOVUPS w+off(AX), rb

#define STORESUMS(aj, off, w, ra, rb) \
	MOVQ    aj, AX;          \
	VMOVUPS ra, off(AX);     \
	VMOVUPS rb, w+off(AX)

// AVX-512: levels of values 32k..32k+15 in Z1, 32k+16.. in Z5; head j's
// probability in Z8+j; its sums in Z16+j (first 16) and Z20+j.

// HEAD16 adds head pj's products to its sums: sa += p·Z1, sb += p·Z5.
#define HEAD16(pj, zp, sa, sb) \
	VBROADCASTSS (pj)(RI*4), zp; \
	VMULPS       Z1, zp, Z12;    \
	VADDPS       Z12, sa, sa;    \
	VMULPS       Z5, zp, Z13;    \
	VADDPS       Z13, sb, sb

// PASS32 runs one 32-value slice (windows w0..w3, sums at byte off) over
// all rows.
#define PASS32(w0, w1, w2, w3, s1, s2, s3, mask, off, loop) \
	LOADSUMS(a0+0(FP), off, 64, Z16, Z20);  \
	LOADSUMS(a1+8(FP), off, 64, Z17, Z21);  \
	LOADSUMS(a2+16(FP), off, 64, Z18, Z22); \
	LOADSUMS(a3+24(FP), off, 64, Z19, Z23); \
	ROWS;                                   \
loop:                                       \
	VPBROADCASTW (SRC), Y0;                 \
	VCVTPH2PS    Y0, Z0;                    \
	P4(w0, s1, s2, s3, mask, X1, X2, Y1);   \
	P4(w1, s1, s2, s3, mask, X3, X2, Y3);   \
	VINSERTI64X4 $1, Y3, Z1, Z1;            \
	P4(w2, s1, s2, s3, mask, X5, X6, Y5);   \
	P4(w3, s1, s2, s3, mask, X7, X6, Y7);   \
	VINSERTI64X4 $1, Y7, Z5, Z5;            \
	VMULPS       Z0, Z1, Z1;                \
	VMULPS       Z0, Z5, Z5;                \
	HEAD16(P0, Z8, Z16, Z20);               \
	HEAD16(P1, Z9, Z17, Z21);               \
	HEAD16(P2, Z10, Z18, Z22);              \
	HEAD16(P3, Z11, Z19, Z23);              \
	NEXTROW(loop);                          \
	STORESUMS(a0+0(FP), off, 64, Z16, Z20);  \
	STORESUMS(a1+8(FP), off, 64, Z17, Z21);  \
	STORESUMS(a2+16(FP), off, 64, Z18, Z22); \
	STORESUMS(a3+24(FP), off, 64, Z19, Z23)

// Slice k of turbo3_tcq: windows 2+12k, 5+12k, 8+12k, 11+12k (see Q3_16
// in expand_amd64.s); turbo2_tcq: 2+8k, 4+8k, 6+8k, 8+8k.
#define T3PASS32(w, off, loop) PASS32(w, w+3, w+6, w+9, 6, 12, 18, $4095, off, loop)
#define T2PASS32(w, off, loop) PASS32(w, w+2, w+4, w+6, 4, 8, 12, $1023, off, loop)

// func accTCQ3AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ3AVX512(SB), NOSPLIT, $0-88
	SETUP(·tcq3Pairs, accTCQ3AVX512_done)
	T3PASS32(2, 0, accTCQ3AVX512_loop0)
	T3PASS32(14, 128, accTCQ3AVX512_loop1)
	T3PASS32(26, 256, accTCQ3AVX512_loop2)
	T3PASS32(38, 384, accTCQ3AVX512_loop3) // bytes 47..50 of 52

accTCQ3AVX512_done:
	VZEROUPPER
	RET

// func accTCQ2AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ2AVX512(SB), NOSPLIT, $0-88
	SETUP(·tcq2Pairs, accTCQ2AVX512_done)
	T2PASS32(2, 0, accTCQ2AVX512_loop0)
	T2PASS32(10, 128, accTCQ2AVX512_loop1)
	T2PASS32(18, 256, accTCQ2AVX512_loop2)
	T2PASS32(26, 384, accTCQ2AVX512_loop3) // bytes 32..35 of 36

accTCQ2AVX512_done:
	VZEROUPPER
	RET

// AVX2: levels of values 16k..16k+7 in Y1, 16k+8.. in Y3; the probability
// in Y4; head j's sums in Y8+j (first 8) and Y12+j.

// HEAD8 adds head pj's products to its sums: sa += p·Y1, sb += p·Y3.
#define HEAD8(pj, sa, sb) \
	VBROADCASTSS (pj)(RI*4), Y4; \
	VMULPS       Y1, Y4, Y5;     \
	VADDPS       Y5, sa, sa;     \
	VMULPS       Y3, Y4, Y6;     \
	VADDPS       Y6, sb, sb

// PASS16 runs one 16-value slice (windows w0, w1, sums at byte off) over
// all rows.
#define PASS16(w0, w1, s1, s2, s3, mask, off, loop) \
	LOADSUMS(a0+0(FP), off, 32, Y8, Y12);  \
	LOADSUMS(a1+8(FP), off, 32, Y9, Y13);  \
	LOADSUMS(a2+16(FP), off, 32, Y10, Y14); \
	LOADSUMS(a3+24(FP), off, 32, Y11, Y15); \
	ROWS;                                  \
loop:                                      \
	VPBROADCASTW (SRC), X0;                \
	VCVTPH2PS    X0, Y0;                   \
	P4(w0, s1, s2, s3, mask, X1, X2, Y1);  \
	P4(w1, s1, s2, s3, mask, X3, X2, Y3);  \
	VMULPS       Y0, Y1, Y1;               \
	VMULPS       Y0, Y3, Y3;               \
	HEAD8(P0, Y8, Y12);                    \
	HEAD8(P1, Y9, Y13);                    \
	HEAD8(P2, Y10, Y14);                   \
	HEAD8(P3, Y11, Y15);                   \
	NEXTROW(loop);                         \
	STORESUMS(a0+0(FP), off, 32, Y8, Y12);  \
	STORESUMS(a1+8(FP), off, 32, Y9, Y13);  \
	STORESUMS(a2+16(FP), off, 32, Y10, Y14); \
	STORESUMS(a3+24(FP), off, 32, Y11, Y15)

// Slice k of turbo3_tcq: windows 2+6k, 5+6k; turbo2_tcq: 2+4k, 4+4k.
#define T3PASS16(w, off, loop) PASS16(w, w+3, 6, 12, 18, $4095, off, loop)
#define T2PASS16(w, off, loop) PASS16(w, w+2, 4, 8, 12, $1023, off, loop)

// func accTCQ3AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ3AVX2(SB), NOSPLIT, $0-88
	SETUP(·tcq3Pairs, accTCQ3AVX2_done)
	T3PASS16(2, 0, accTCQ3AVX2_loop0)
	T3PASS16(8, 64, accTCQ3AVX2_loop1)
	T3PASS16(14, 128, accTCQ3AVX2_loop2)
	T3PASS16(20, 192, accTCQ3AVX2_loop3)
	T3PASS16(26, 256, accTCQ3AVX2_loop4)
	T3PASS16(32, 320, accTCQ3AVX2_loop5)
	T3PASS16(38, 384, accTCQ3AVX2_loop6)
	T3PASS16(44, 448, accTCQ3AVX2_loop7) // bytes 47..50 of 52

accTCQ3AVX2_done:
	VZEROUPPER
	RET

// func accTCQ2AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ2AVX2(SB), NOSPLIT, $0-88
	SETUP(·tcq2Pairs, accTCQ2AVX2_done)
	T2PASS16(2, 0, accTCQ2AVX2_loop0)
	T2PASS16(6, 64, accTCQ2AVX2_loop1)
	T2PASS16(10, 128, accTCQ2AVX2_loop2)
	T2PASS16(14, 192, accTCQ2AVX2_loop3)
	T2PASS16(18, 256, accTCQ2AVX2_loop4)
	T2PASS16(22, 320, accTCQ2AVX2_loop5)
	T2PASS16(26, 384, accTCQ2AVX2_loop6)
	T2PASS16(30, 448, accTCQ2AVX2_loop7) // bytes 32..35 of 36

accTCQ2AVX2_done:
	VZEROUPPER
	RET
