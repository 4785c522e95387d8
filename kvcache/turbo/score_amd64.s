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
