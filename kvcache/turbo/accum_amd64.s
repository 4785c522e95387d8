//go:build !purego

#include "textflag.h"
#include "tcqpairs_amd64.h"
#include "scalardec_amd64.h"

// Fused value sums (semantics in accum.go, AccumulateRows4; stubs in
// accum_amd64.go). The loop order is dims outer, rows inner: a pass takes
// one slice of the block (32 values on AVX-512, 16 on AVX2), loads the
// four heads' sums of that slice into registers, then walks all n rows,
// decoding just the slice of each row at the slice's fixed window offsets
// (VPERMPS for turbo2/3/4, the level-pair table, P4, for TCQ), scaling by
// the row's norm, and adding each head's rounded product p·v (VMULPS then
// VADDPS, never FMA, with p as the first operand, as
// kernels.AttnValues(F32) does). Only at the end of the pass are the sums
// stored, so nothing but the blocks and the probabilities is read per row.
// Heads the caller does not have alias head 0 (same sums, same
// probabilities), so they compute and store exactly head 0's values.
// SETUP puts a table's address in CB for every type; only TCQ uses it.

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
// probability in Z8+j; products in Z12, Z13; its sums in Z16+j (first 16)
// and Z20+j.

// HEAD16 adds head pj's products to its sums: sa += p·Z1, sb += p·Z5.
#define HEAD16(pj, zp, sa, sb) \
	VBROADCASTSS (pj)(RI*4), zp; \
	VMULPS       Z1, zp, Z12;    \
	VADDPS       Z12, sa, sa;    \
	VMULPS       Z5, zp, Z13;    \
	VADDPS       Z13, sb, sb

// PASS32 runs one 32-value slice (sums at byte off) over all rows; dec(w)
// leaves the slice's levels in Z1 and Z5 (w: its first window).
#define PASS32(dec, w, off, loop) \
	LOADSUMS(a0+0(FP), off, 64, Z16, Z20);  \
	LOADSUMS(a1+8(FP), off, 64, Z17, Z21);  \
	LOADSUMS(a2+16(FP), off, 64, Z18, Z22); \
	LOADSUMS(a3+24(FP), off, 64, Z19, Z23); \
	ROWS;                                   \
loop:                                       \
	VPBROADCASTW (SRC), Y0;                 \
	VCVTPH2PS    Y0, Z0;                    \
	dec(w);                                 \
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

// Q32 decodes slice k of a TCQ block from the four windows w, w+d, w+2d,
// w+3d (pairs at bits 0, s1, s2, s3 of each; see Q3_16 in expand_amd64.s).
#define Q32(w, d, s1, s2, s3, mask) \
	P4(w, s1, s2, s3, mask, X1, X2, Y1);     \
	P4(w+d, s1, s2, s3, mask, X3, X2, Y3);   \
	VINSERTI64X4 $1, Y3, Z1, Z1;             \
	P4(w+d+d, s1, s2, s3, mask, X5, X6, Y5); \
	P4(w+d+d+d, s1, s2, s3, mask, X7, X6, Y7); \
	VINSERTI64X4 $1, Y7, Z5, Z5

// Slice k of turbo3_tcq: windows 2+12k, 5+12k, 8+12k, 11+12k; turbo2_tcq:
// 2+8k, 4+8k, 6+8k, 8+8k.
#define Q3DEC32(w) Q32(w, 3, 6, 12, 18, $4095)
#define Q2DEC32(w) Q32(w, 2, 4, 8, 12, $1023)

// ACC512 is a whole AVX-512 routine: SETUP, the constants (init), and a
// pass of dec for each slice (first windows w0..w3).
#define ACC512(table, init, dec, w0, w1, w2, w3, l0, l1, l2, l3, done) \
	SETUP(table, done);    \
	init;                  \
	PASS32(dec, w0, 0, l0);   \
	PASS32(dec, w1, 128, l1); \
	PASS32(dec, w2, 256, l2); \
	PASS32(dec, w3, 384, l3); \
done:                      \
	VZEROUPPER;            \
	RET

// func accTurbo2AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTurbo2AVX512(SB), NOSPLIT, $0-88
	ACC512(·permLevels2, INIT2, S2DEC32, 2, 10, 18, 26, t2z_l0, t2z_l1, t2z_l2, t2z_l3, t2z_done) // last: bytes 30..33 of 34

// func accTurbo3AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTurbo3AVX512(SB), NOSPLIT, $0-88
	ACC512(·permLevels3, INIT3, S3DEC32, 2, 10, 18, 26, t3z_l0, t3z_l1, t3z_l2, t3z_l3, t3z_done) // last: bytes 46..49 of 50

// func accTurbo4AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTurbo4AVX512(SB), NOSPLIT, $0-88
	ACC512(·centroids4, INIT4, S4DEC32, 2, 18, 34, 50, t4z_l0, t4z_l1, t4z_l2, t4z_l3, t4z_done) // last: bytes 62..65 of 66

// func accTCQ3AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ3AVX512(SB), NOSPLIT, $0-88
	ACC512(·tcq3Pairs, NOINIT, Q3DEC32, 2, 14, 26, 38, q3z_l0, q3z_l1, q3z_l2, q3z_l3, q3z_done) // last: bytes 47..50 of 52

// func accTCQ2AVX512(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ2AVX512(SB), NOSPLIT, $0-88
	ACC512(·tcq2Pairs, NOINIT, Q2DEC32, 2, 10, 18, 26, q2z_l0, q2z_l1, q2z_l2, q2z_l3, q2z_done) // last: bytes 32..35 of 36

// AVX2: levels of values 16k..16k+7 in Y1, 16k+8.. in Y3; the probability
// in Y4, products in Y5; head j's sums in Y8+j (first 8) and Y12+j; Y2, Y6
// and Y7 are the decoders'.

// HEAD8 adds head pj's products to its sums: sa += p·Y1, sb += p·Y3.
#define HEAD8(pj, sa, sb) \
	VBROADCASTSS (pj)(RI*4), Y4; \
	VMULPS       Y1, Y4, Y5;     \
	VADDPS       Y5, sa, sa;     \
	VMULPS       Y3, Y4, Y5;     \
	VADDPS       Y5, sb, sb

// PASS16 runs one 16-value slice (sums at byte off) over all rows; dec(w)
// leaves the slice's levels in Y1 and Y3.
#define PASS16(dec, w, off, loop) \
	LOADSUMS(a0+0(FP), off, 32, Y8, Y12);  \
	LOADSUMS(a1+8(FP), off, 32, Y9, Y13);  \
	LOADSUMS(a2+16(FP), off, 32, Y10, Y14); \
	LOADSUMS(a3+24(FP), off, 32, Y11, Y15); \
	ROWS;                                  \
loop:                                      \
	VPBROADCASTW (SRC), X0;                \
	VCVTPH2PS    X0, Y0;                   \
	dec(w);                                \
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

// ACC256 is a whole AVX2 routine: SETUP, the constants (init), and a pass
// of dec for each slice (first windows w0..w7).
#define ACC256(table, init, dec, w0, w1, w2, w3, w4, w5, w6, w7, l0, l1, l2, l3, l4, l5, l6, l7, done) \
	SETUP(table, done);         \
	init;                       \
	PASS16(dec, w0, 0, l0);   \
	PASS16(dec, w1, 64, l1);  \
	PASS16(dec, w2, 128, l2); \
	PASS16(dec, w3, 192, l3); \
	PASS16(dec, w4, 256, l4); \
	PASS16(dec, w5, 320, l5); \
	PASS16(dec, w6, 384, l6); \
	PASS16(dec, w7, 448, l7); \
done:                           \
	VZEROUPPER;                 \
	RET

// TCQ slice k: turbo3_tcq windows 2+6k, 5+6k; turbo2_tcq 2+4k, 4+4k.
#define Q3DEC16(w) \
	P4(w, 6, 12, 18, $4095, X1, X2, Y1); \
	P4(w+3, 6, 12, 18, $4095, X3, X2, Y3)

#define Q2DEC16(w) \
	P4(w, 4, 8, 12, $1023, X1, X2, Y1); \
	P4(w+2, 4, 8, 12, $1023, X3, X2, Y3)

// Scalar slice k (windows as T2_8, T3_8, T4_8 in expand_amd64.s, tables
// and shift counts read from memory): turbo2 at w = 4k and w+2; turbo3 low
// bits at w = 2+4k and w+2, bit 2 at 30+w/2 and 31+w/2 (3s in Y6). No
// turbo4: its two lookups and blend per 8 values, with the tables in memory
// for want of registers, measured 1.2-1.35x slower than expanding.
#define S2GROUP8(w, out) \
	VPBROADCASTD w(SRC), Y2;                \
	VPSRLVD      ·shift2x16+32(SB), Y2, Y2; \
	VPERMPS      ·permLevels2(SB), Y2, out

#define S2DEC16(w) S2GROUP8(w, Y1); S2GROUP8(w+2, Y3)

#define S3GROUP8(lo, hi, out) \
	VPBROADCASTD lo(SRC), Y2;               \
	VPBROADCASTD hi(SRC), Y7;               \
	VPSRLVD      ·shift2x8(SB), Y2, Y2;     \
	VPSRLVD      ·shiftT3Hi+32(SB), Y7, Y7; \
	VPAND        Y6, Y2, Y2;                \
	VPANDN       Y7, Y6, Y7;                \
	VPOR         Y7, Y2, Y2;                \
	VPERMPS      ·centroids3(SB), Y2, out

#define S3DEC16(w) S3GROUP8(w, 30+w/2, Y1); S3GROUP8(w+2, 31+w/2, Y3)

#define INIT3Y \
	MOVL         $3, AX;  \
	VMOVD        AX, X6;  \
	VPBROADCASTD X6, Y6

// func accTCQ3AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ3AVX2(SB), NOSPLIT, $0-88
	ACC256(·tcq3Pairs, NOINIT, Q3DEC16, 2, 8, 14, 20, 26, 32, 38, 44, q3y_l0, q3y_l1, q3y_l2, q3y_l3, q3y_l4, q3y_l5, q3y_l6, q3y_l7, q3y_done) // last: bytes 47..50 of 52

// func accTCQ2AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTCQ2AVX2(SB), NOSPLIT, $0-88
	ACC256(·tcq2Pairs, NOINIT, Q2DEC16, 2, 6, 10, 14, 18, 22, 26, 30, q2y_l0, q2y_l1, q2y_l2, q2y_l3, q2y_l4, q2y_l5, q2y_l6, q2y_l7, q2y_done) // last: bytes 32..35 of 36

// func accTurbo2AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTurbo2AVX2(SB), NOSPLIT, $0-88
	ACC256(·permLevels2, NOINIT, S2DEC16, 0, 4, 8, 12, 16, 20, 24, 28, t2y_l0, t2y_l1, t2y_l2, t2y_l3, t2y_l4, t2y_l5, t2y_l6, t2y_l7, t2y_done) // last: bytes 30..33 of 34

// func accTurbo3AVX2(a0, a1, a2, a3, p0, p1, p2, p3 *float32, src *byte, srcStride, n int)
TEXT ·accTurbo3AVX2(SB), NOSPLIT, $0-88
	ACC256(·centroids3, INIT3Y, S3DEC16, 2, 6, 10, 14, 18, 22, 26, 30, t3y_l0, t3y_l1, t3y_l2, t3y_l3, t3y_l4, t3y_l5, t3y_l6, t3y_l7, t3y_done) // last: bytes 46..49 of 50
