//go:build !purego

#include "textflag.h"
#include "tcqpairs_amd64.h"

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

// SCORE is the whole routine for one code: per row, zero the accumulators,
// broadcast the norm, run the block, reduce and store nq scores.
#define SCORE(table, row, loop, next, done) \
	MOVQ dst+0(FP), DP;          \
	MOVQ dstStride+8(FP), DSS;   \
	MOVQ q+16(FP), QP;           \
	MOVQ src+24(FP), SRC;        \
	MOVQ srcStride+32(FP), SS;   \
	MOVQ n+40(FP), NR;           \
	TESTQ NR, NR;                \
	JLE  done;                   \
	LEAQ table(SB), CB;          \
loop:                            \
	VPXORD Z8, Z8, Z8;           \
	VPXORD Z9, Z9, Z9;           \
	VPXORD Z10, Z10, Z10;        \
	VPXORD Z11, Z11, Z11;        \
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

// func scoreTCQ3x4(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ3x4(SB), NOSPLIT, $0-56
	SCORE(·tcq3Pairs, ROWTCQ3, tcq3_loop, tcq3_next, tcq3_done)

// func scoreTCQ2x4(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ2x4(SB), NOSPLIT, $0-56
	SCORE(·tcq2Pairs, ROWTCQ2, tcq2_loop, tcq2_next, tcq2_done)

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
// XMM): a+b, then halves 4+4, 2+2, 1+1.
#define HSUM8(b, a, x) \
	VADDPS       b, a, a;       \
	VEXTRACTF128 $1, a, X4;     \
	VADDPS       X4, x, x;      \
	VPERMILPS    $0x4E, x, X4;  \
	VADDPS       X4, x, x;      \
	VPERMILPS    $0xB1, x, X4;  \
	VADDSS       X4, x, x

// SCOREY is SCORE with YMMs.
#define SCOREY(table, row, loop, next, done) \
	MOVQ dst+0(FP), DP;          \
	MOVQ dstStride+8(FP), DSS;   \
	MOVQ q+16(FP), QP;           \
	MOVQ src+24(FP), SRC;        \
	MOVQ srcStride+32(FP), SS;   \
	MOVQ n+40(FP), NR;           \
	TESTQ NR, NR;                \
	JLE  done;                   \
	LEAQ table(SB), CB;          \
loop:                            \
	VXORPS Y8, Y8, Y8;           \
	VXORPS Y9, Y9, Y9;           \
	VXORPS Y10, Y10, Y10;        \
	VXORPS Y11, Y11, Y11;        \
	VXORPS Y12, Y12, Y12;        \
	VXORPS Y13, Y13, Y13;        \
	VXORPS Y14, Y14, Y14;        \
	VXORPS Y15, Y15, Y15;        \
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
	SCOREY(·tcq3Pairs, ROWTCQ3Y, tcq3y_loop, tcq3y_next, tcq3y_done)

// func scoreTCQ2x4AVX2(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ2x4AVX2(SB), NOSPLIT, $0-56
	SCOREY(·tcq2Pairs, ROWTCQ2Y, tcq2y_loop, tcq2y_next, tcq2y_done)
