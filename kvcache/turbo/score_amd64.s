//go:build !purego

#include "textflag.h"
#include "tcqpairs_amd64.h"
#include "scalardec_amd64.h"

// Fused TCQ key scoring (semantics in score.go, ScoreRows4): per row, the
// block's 128 levels are assembled 16 at a time in a ZMM from the level-pair
// table (P4), multiplied by the block's norm, and fused multiply-added with
// the matching 16 values of each of the four queries into one accumulator
// per query; a fixed tree then sums each accumulator's lanes.

#define DP DI   // &dst[r]: query 0's score of the row
#define SRC SI  // the row's block
#define DSS R8  // dst stride between queries, bytes
#define SS R9   // src stride, bytes
#define NR R10  // rows left
#define CB R11  // the level-pair table
#define QP R13  // the four queries, 512 bytes apart

// S16 adds values 16i..16i+15 (windows w0, w1; see Q3_16 in expand_amd64.s)
// times the queries' values 16i.. (at byte qo of each query) into Z8..Z11.
#define S16(w0, w1, s1, s2, s3, mask, qo) \
	P4(w0, s1, s2, s3, mask, X1, X2, Y1); \
	P4(w1, s1, s2, s3, mask, X3, X4, Y3); \
	VINSERTI64X4 $1, Y3, Z1, Z1;          \
	VMULPS       Z0, Z1, Z1;              \
	VFMADD231PS  qo(QP), Z1, Z8;          \
	VFMADD231PS  512+qo(QP), Z1, Z9;      \
	VFMADD231PS  1024+qo(QP), Z1, Z10;    \
	VFMADD231PS  1536+qo(QP), Z1, Z11

// HSUM leaves the sum of z's 16 lanes in the low lane of x (z's low XMM),
// by halves: 8+8, 4+4, 2+2, 1+1.
#define HSUM(z, y, x) \
	VEXTRACTF64X4 $1, z, Y12;  \
	VADDPS        Y12, y, y;   \
	VEXTRACTF128  $1, y, X12;  \
	VADDPS        X12, x, x;   \
	VPERMILPS     $0x4E, x, X12; \
	VADDPS        X12, x, x;   \
	VPERMILPS     $0xB1, x, X12; \
	VADDSS        X12, x, x

// ROW runs S16 over a block, with the windows and index fields of k.
#define ROWTCQ3 \
	S16(2, 5, 6, 12, 18, $4095, 0);      \
	S16(8, 11, 6, 12, 18, $4095, 64);    \
	S16(14, 17, 6, 12, 18, $4095, 128);  \
	S16(20, 23, 6, 12, 18, $4095, 192);  \
	S16(26, 29, 6, 12, 18, $4095, 256);  \
	S16(32, 35, 6, 12, 18, $4095, 320);  \
	S16(38, 41, 6, 12, 18, $4095, 384);  \
	S16(44, 47, 6, 12, 18, $4095, 448)

#define ROWTCQ2 \
	S16(2, 4, 4, 8, 12, $1023, 0);     \
	S16(6, 8, 4, 8, 12, $1023, 64);    \
	S16(10, 12, 4, 8, 12, $1023, 128); \
	S16(14, 16, 4, 8, 12, $1023, 192); \
	S16(18, 20, 4, 8, 12, $1023, 256); \
	S16(22, 24, 4, 8, 12, $1023, 320); \
	S16(26, 28, 4, 8, 12, $1023, 384); \
	S16(30, 32, 4, 8, 12, $1023, 448)

// SCORE is the whole routine for one code: load its constants (init); per
// row, prefetch the block two rows on (both cache lines a block of up to 66
// bytes usually spans: a row's long decode leaves the out-of-order window
// too short to reach the next rows' loads by itself, and measured 1.3-1.8×
// faster with it in TestMeasureFused), zero the accumulators, broadcast the norm, run the block, reduce and store nq scores.
#define SCORE(table, init, row, loop, next, done) \
	MOVQ dst+0(FP), DP;          \
	MOVQ dstStride+8(FP), DSS;   \
	MOVQ q+16(FP), QP;           \
	MOVQ src+24(FP), SRC;        \
	MOVQ srcStride+32(FP), SS;   \
	MOVQ n+40(FP), NR;           \
	TESTQ NR, NR;                \
	JLE  done;                   \
	LEAQ table(SB), CB;          \
	init;                        \
loop:                            \
	VPXORD Z8, Z8, Z8;           \
	VPXORD Z9, Z9, Z9;           \
	VPXORD Z10, Z10, Z10;        \
	VPXORD Z11, Z11, Z11;        \
	PREFETCHT0 (SRC)(SS*2);      \
	PREFETCHT0 65(SRC)(SS*2);    \
	VPBROADCASTW (SRC), Y0;      \
	VCVTPH2PS    Y0, Z0;         \
	row;                         \
	HSUM(Z8, Y8, X8);            \
	VMOVSS X8, (DP);             \
	CMPQ nq+48(FP), $2;          \
	JLT  next;                   \
	HSUM(Z9, Y9, X9);            \
	VMOVSS X9, (DP)(DSS*1);      \
	CMPQ nq+48(FP), $3;          \
	JLT  next;                   \
	LEAQ (DP)(DSS*2), AX;        \
	HSUM(Z10, Y10, X10);         \
	VMOVSS X10, (AX);            \
	CMPQ nq+48(FP), $4;          \
	JLT  next;                   \
	HSUM(Z11, Y11, X11);         \
	VMOVSS X11, (AX)(DSS*1);     \
next:                            \
	ADDQ $4, DP;                 \
	ADDQ SS, SRC;                \
	DECQ NR;                     \
	JNZ  loop;                   \
done:                            \
	VZEROUPPER;                  \
	RET

// func scoreTCQ3x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ3x4AVX512(SB), NOSPLIT, $0-56
	SCORE(·tcq3Pairs, NOINIT, ROWTCQ3, tcq3_loop, tcq3_next, tcq3_done)

// func scoreTCQ2x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ2x4AVX512(SB), NOSPLIT, $0-56
	SCORE(·tcq2Pairs, NOINIT, ROWTCQ2, tcq2_loop, tcq2_next, tcq2_done)

// AVX2 scoring (scoreTCQ3x4AVX2, scoreTCQ2x4AVX2): the same pair decode, 8
// values per YMM; values 16i.. go to accumulators Y8..Y11 and 16i+8.. to
// Y12..Y15 (two independent FMA chains per query), which are added before
// the horizontal sum.

// S8 adds values 8i..8i+7 (window w; P4 into ylo via xlo, X2) times the
// queries' values 8i.. (at byte qo of each query) into a0..a3.
#define S8(w, s1, s2, s3, mask, qo, xlo, ylo, a0, a1, a2, a3) \
	P4(w, s1, s2, s3, mask, xlo, X2, ylo); \
	VMULPS      Y0, ylo, ylo;              \
	VFMADD231PS qo(QP), ylo, a0;           \
	VFMADD231PS 512+qo(QP), ylo, a1;       \
	VFMADD231PS 1024+qo(QP), ylo, a2;      \
	VFMADD231PS 1536+qo(QP), ylo, a3

// S16Y runs S8 over values 16i.. (window w0, accumulators Y8..Y11) and
// 16i+8.. (window w1, Y12..Y15).
#define S16Y(w0, w1, s1, s2, s3, mask, qo) \
	S8(w0, s1, s2, s3, mask, qo, X1, Y1, Y8, Y9, Y10, Y11); \
	S8(w1, s1, s2, s3, mask, 32+qo, X3, Y3, Y12, Y13, Y14, Y15)

#define ROWTCQ3Y \
	S16Y(2, 5, 6, 12, 18, $4095, 0);      \
	S16Y(8, 11, 6, 12, 18, $4095, 64);    \
	S16Y(14, 17, 6, 12, 18, $4095, 128);  \
	S16Y(20, 23, 6, 12, 18, $4095, 192);  \
	S16Y(26, 29, 6, 12, 18, $4095, 256);  \
	S16Y(32, 35, 6, 12, 18, $4095, 320);  \
	S16Y(38, 41, 6, 12, 18, $4095, 384);  \
	S16Y(44, 47, 6, 12, 18, $4095, 448)

#define ROWTCQ2Y \
	S16Y(2, 4, 4, 8, 12, $1023, 0);     \
	S16Y(6, 8, 4, 8, 12, $1023, 64);    \
	S16Y(10, 12, 4, 8, 12, $1023, 128); \
	S16Y(14, 16, 4, 8, 12, $1023, 192); \
	S16Y(18, 20, 4, 8, 12, $1023, 256); \
	S16Y(22, 24, 4, 8, 12, $1023, 320); \
	S16Y(26, 28, 4, 8, 12, $1023, 384); \
	S16Y(30, 32, 4, 8, 12, $1023, 448)

// HSUM8 leaves the sum of a + b's 8 lanes in the low lane of x (a's low
// XMM): a+b, then halves 4+4, 2+2, 1+1; X1, the row's values, is free by
// then and serves as scratch.
#define HSUM8(b, a, x) \
	VADDPS       b, a, a;       \
	VEXTRACTF128 $1, a, X1;     \
	VADDPS       X1, x, x;      \
	VPERMILPS    $0x4E, x, X1;  \
	VADDPS       X1, x, x;      \
	VPERMILPS    $0xB1, x, X1;  \
	VADDSS       X1, x, x

// SCOREY is SCORE with YMMs.
#define SCOREY(table, init, row, loop, next, done) \
	MOVQ dst+0(FP), DP;          \
	MOVQ dstStride+8(FP), DSS;   \
	MOVQ q+16(FP), QP;           \
	MOVQ src+24(FP), SRC;        \
	MOVQ srcStride+32(FP), SS;   \
	MOVQ n+40(FP), NR;           \
	TESTQ NR, NR;                \
	JLE  done;                   \
	LEAQ table(SB), CB;          \
	init;                        \
loop:                            \
	VXORPS Y8, Y8, Y8;           \
	VXORPS Y9, Y9, Y9;           \
	VXORPS Y10, Y10, Y10;        \
	VXORPS Y11, Y11, Y11;        \
	VXORPS Y12, Y12, Y12;        \
	VXORPS Y13, Y13, Y13;        \
	VXORPS Y14, Y14, Y14;        \
	VXORPS Y15, Y15, Y15;        \
	PREFETCHT0 (SRC)(SS*2);      \
	PREFETCHT0 65(SRC)(SS*2);    \
	VPBROADCASTW (SRC), X0;      \
	VCVTPH2PS    X0, Y0;         \
	row;                         \
	HSUM8(Y12, Y8, X8);          \
	VMOVSS X8, (DP);             \
	CMPQ nq+48(FP), $2;          \
	JLT  next;                   \
	HSUM8(Y13, Y9, X9);          \
	VMOVSS X9, (DP)(DSS*1);      \
	CMPQ nq+48(FP), $3;          \
	JLT  next;                   \
	LEAQ (DP)(DSS*2), AX;        \
	HSUM8(Y14, Y10, X10);        \
	VMOVSS X10, (AX);            \
	CMPQ nq+48(FP), $4;          \
	JLT  next;                   \
	HSUM8(Y15, Y11, X11);        \
	VMOVSS X11, (AX)(DSS*1);     \
next:                            \
	ADDQ $4, DP;                 \
	ADDQ SS, SRC;                \
	DECQ NR;                     \
	JNZ  loop;                   \
done:                            \
	VZEROUPPER;                  \
	RET

// func scoreTCQ3x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ3x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·tcq3Pairs, NOINIT, ROWTCQ3Y, tcq3y_loop, tcq3y_next, tcq3y_done)

// func scoreTCQ2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ2x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·tcq2Pairs, NOINIT, ROWTCQ2Y, tcq2y_loop, tcq2y_next, tcq2y_done)

// Scalar types on AVX-512 (scoreTurbo2x4AVX512, scoreTurbo3x4AVX512,
// scoreTurbo4x4AVX512): the VPERMPS decode of accum_amd64.s (scalardec_amd64.h), 32 values per
// step in Z1 and Z5, fused multiply-added into two accumulators per query,
// Z8..Z11 (values 32k..32k+15) and Z16..Z19 (32k+16..), added before the
// horizontal sum: the decode is short enough that one chain of 8 dependent
// FMAs per query would be the row's critical path. The decode looks up a
// table scaled by the row's norm (Z24 = levels·N, once per row from the
// levels kept in Z28), whose entries are the very products level·N that
// decodeBlock rounds, so no per-value multiply is left.

// SZ32 scores slice k (first window w; queries' values at byte qo = 128k).
#define SZ32(dec, w, qo) \
	dec(w);                           \
	VFMADD231PS qo(QP), Z1, Z8;       \
	VFMADD231PS 512+qo(QP), Z1, Z9;   \
	VFMADD231PS 1024+qo(QP), Z1, Z10; \
	VFMADD231PS 1536+qo(QP), Z1, Z11; \
	VFMADD231PS 64+qo(QP), Z5, Z16;   \
	VFMADD231PS 576+qo(QP), Z5, Z17;  \
	VFMADD231PS 1088+qo(QP), Z5, Z18; \
	VFMADD231PS 1600+qo(QP), Z5, Z19

// SROWZ scales the levels by the norm and runs a block's four slices
// (first windows w0..w3), leaving each query's sums in Z8..Z11.
#define SROWZ(dec, w0, w1, w2, w3) \
	VMULPS Z28, Z0, Z24;    \
	VPXORD Z16, Z16, Z16;   \
	VPXORD Z17, Z17, Z17;   \
	VPXORD Z18, Z18, Z18;   \
	VPXORD Z19, Z19, Z19;   \
	SZ32(dec, w0, 0);       \
	SZ32(dec, w1, 128);     \
	SZ32(dec, w2, 256);     \
	SZ32(dec, w3, 384);     \
	VADDPS Z16, Z8, Z8;     \
	VADDPS Z17, Z9, Z9;     \
	VADDPS Z18, Z10, Z10;   \
	VADDPS Z19, Z11, Z11

// INITnZ: scalardec_amd64.h's constants, the levels moved to Z28.
#define INIT2Z INIT2; VMOVAPS Z24, Z28
#define INIT3Z INIT3; VMOVAPS Z24, Z28
#define INIT4Z INIT4; VMOVAPS Z24, Z28

#define ROWT2 SROWZ(S2DEC32, 2, 10, 18, 26)  // last: bytes 30..33 of 34
#define ROWT3 SROWZ(S3DEC32, 2, 10, 18, 26)  // last: bytes 46..49 of 50
#define ROWT4 SROWZ(S4DEC32, 2, 18, 34, 50)  // last: bytes 62..65 of 66

// func scoreTurbo2x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo2x4AVX512(SB), NOSPLIT, $0-56
	SCORE(·permLevels2, INIT2Z, ROWT2, t2z_loop, t2z_next, t2z_done)

// func scoreTurbo3x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo3x4AVX512(SB), NOSPLIT, $0-56
	SCORE(·permLevels3, INIT3Z, ROWT3, t3z_loop, t3z_next, t3z_done)

// func scoreTurbo4x4AVX512(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo4x4AVX512(SB), NOSPLIT, $0-56
	SCORE(·centroids4, INIT4Z, ROWT4, t4z_loop, t4z_next, t4z_done)

// Scalar types on AVX2 (scoreTurbo2x4AVX2, scoreTurbo3x4AVX2,
// scoreTurbo4x4AVX2): the 8-value decodes of expand_amd64.s (T2_8, T3_8,
// T4_8) with every table, shift count and mask in a register, which the
// scores leave room for (Y0 the norm, Y1 the values, Y8..Y15 the sums, as
// in SCOREY): Y4 the levels·N (turbo4: levels 0-7), Y5 the shift counts,
// Y6 turbo3's sign-bit shift counts or turbo4's levels 8-15 ·N, Y7
// turbo3's 3s; Y2, Y3 (and Y7, turbo4) scratch. As on AVX-512 the tables
// are scaled by the norm once per row (from memory), so the lookups give
// decodeBlock's products directly. Values 16i.. go to Y8..Y11, 16i+8.. to
// Y12..Y15.

// T2Y decodes values 8i..8i+7 of turbo2 (window w = 2i) into Y1.
#define T2Y(w) \
	VPBROADCASTD w(SRC), Y2; \
	VPSRLVD      Y5, Y2, Y2; \
	VPERMPS      Y4, Y2, Y1

// T3Y decodes values 8i..8i+7 of turbo3 (low bits at lo = 2+2i, bit 2 at
// hi = 31+i) into Y1: index = lo&3 | hi&^3.
#define T3Y(lo, hi) \
	VPBROADCASTD lo(SRC), Y2; \
	VPBROADCASTD hi(SRC), Y3; \
	VPSRLVD      Y5, Y2, Y2;  \
	VPSRLVD      Y6, Y3, Y3;  \
	VPAND        Y7, Y2, Y2;  \
	VPANDN       Y3, Y7, Y3;  \
	VPOR         Y3, Y2, Y2;  \
	VPERMPS      Y4, Y2, Y1

// T4Y decodes values 8i..8i+7 of turbo4 (window w = 2+4i) into Y1: two
// 8-entry lookups blended on index bit 3, moved to the sign bit.
#define T4Y(w) \
	VPBROADCASTD w(SRC), Y2;    \
	VPSRLVD      Y5, Y2, Y2;    \
	VPERMPS      Y4, Y2, Y1;    \
	VPERMPS      Y6, Y2, Y3;    \
	VPSLLD       $28, Y2, Y7;   \
	VBLENDVPS    Y7, Y3, Y1, Y1

// FMA4 adds the values Y1 times the queries' values at byte qo into
// a0..a3.
#define FMA4(qo, a0, a1, a2, a3) \
	VFMADD231PS qo(QP), Y1, a0;      \
	VFMADD231PS 512+qo(QP), Y1, a1;  \
	VFMADD231PS 1024+qo(QP), Y1, a2; \
	VFMADD231PS 1536+qo(QP), Y1, a3

#define FMAA(qo) FMA4(qo, Y8, Y9, Y10, Y11)
#define FMAB(qo) FMA4(qo, Y12, Y13, Y14, Y15)

#define ROWT2Y \
	VMULPS ·permLevels2(SB), Y0, Y4; \
	T2Y(0); FMAA(0); \
	T2Y(2); FMAB(32); \
	T2Y(4); FMAA(64); \
	T2Y(6); FMAB(96); \
	T2Y(8); FMAA(128); \
	T2Y(10); FMAB(160); \
	T2Y(12); FMAA(192); \
	T2Y(14); FMAB(224); \
	T2Y(16); FMAA(256); \
	T2Y(18); FMAB(288); \
	T2Y(20); FMAA(320); \
	T2Y(22); FMAB(352); \
	T2Y(24); FMAA(384); \
	T2Y(26); FMAB(416); \
	T2Y(28); FMAA(448); \
	T2Y(30); FMAB(480)

#define ROWT3Y \
	VMULPS ·centroids3(SB), Y0, Y4; \
	T3Y(2, 31); FMAA(0); \
	T3Y(4, 32); FMAB(32); \
	T3Y(6, 33); FMAA(64); \
	T3Y(8, 34); FMAB(96); \
	T3Y(10, 35); FMAA(128); \
	T3Y(12, 36); FMAB(160); \
	T3Y(14, 37); FMAA(192); \
	T3Y(16, 38); FMAB(224); \
	T3Y(18, 39); FMAA(256); \
	T3Y(20, 40); FMAB(288); \
	T3Y(22, 41); FMAA(320); \
	T3Y(24, 42); FMAB(352); \
	T3Y(26, 43); FMAA(384); \
	T3Y(28, 44); FMAB(416); \
	T3Y(30, 45); FMAA(448); \
	T3Y(32, 46); FMAB(480)

#define ROWT4Y \
	VMULPS ·centroids4(SB), Y0, Y4; \
	VMULPS ·centroids4+32(SB), Y0, Y6; \
	T4Y(2); FMAA(0); \
	T4Y(6); FMAB(32); \
	T4Y(10); FMAA(64); \
	T4Y(14); FMAB(96); \
	T4Y(18); FMAA(128); \
	T4Y(22); FMAB(160); \
	T4Y(26); FMAA(192); \
	T4Y(30); FMAB(224); \
	T4Y(34); FMAA(256); \
	T4Y(38); FMAB(288); \
	T4Y(42); FMAA(320); \
	T4Y(46); FMAB(352); \
	T4Y(50); FMAA(384); \
	T4Y(54); FMAB(416); \
	T4Y(58); FMAA(448); \
	T4Y(62); FMAB(480)

#define INIT2Y \
	VMOVDQU ·shift2x16+32(SB), Y5

#define INIT3Y \
	VMOVDQU      ·shift2x8(SB), Y5;     \
	VMOVDQU      ·shiftT3Hi+32(SB), Y6; \
	MOVL         $3, AX;                \
	VMOVD        AX, X7;                \
	VPBROADCASTD X7, Y7

#define INIT4Y \
	VMOVDQU ·shift4x8(SB), Y5

// func scoreTurbo2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo2x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·permLevels2, INIT2Y, ROWT2Y, t2y_loop, t2y_next, t2y_done) // last: bytes 30..33 of 34

// func scoreTurbo3x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo3x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·centroids3, INIT3Y, ROWT3Y, t3y_loop, t3y_next, t3y_done) // last: bytes 46..49 of 50

// func scoreTurbo4x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTurbo4x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·centroids4, INIT4Y, ROWT4Y, t4y_loop, t4y_next, t4y_done) // last: bytes 62..65 of 66
