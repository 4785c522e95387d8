//go:build !purego

#include "textflag.h"
#include "tcqpairs_arm64.h"
#include "scalarplanes_arm64.h"

// Fused TCQ key scoring (semantics in score.go, ScoreRows4; Go stubs in
// score_arm64.go): per row, the block's 128 values are decoded 16 at a time
// into V1..V4 from the level-pair table (DECODE16, level·N as decodeBlock
// rounds it) and fused multiply-added with the matching values of each of
// the four queries. Query j keeps four accumulators, one per vector of a
// 16-value step (16 independent chains of 8 FMLAs per row); after the row
// each query's four are added, and three pairwise adds leave the four
// scores in the lanes of V13.

#define DP R0   // &dst[r]: query 0's score of the row
#define DSS R1  // dst stride between queries, bytes
#define QP R2   // the four queries, 512 bytes apart
#define SRC R3  // the row's block
#define SS R4   // src stride, bytes
#define NR R5   // rows left
#define NQ R6   // queries to store
#define CB R7   // the level-pair table
#define WIN R8  // 8-byte window of the stream
#define IX R9   // pair index
#define Q0 R10  // query 0's cursor in the row (then 1, 2, 3)
#define Q1 R11
#define Q2 R12
#define Q3 R13
#define T R14   // a score's address; a lane's bits

// Vector roles: V0 N; V1-V4 16 values; V5-V8, V9-V12 16 values of a query;
// V13-V28 accumulators, V(13+4j+k) for query j and vector k of a step; V31
// pair temporary (QUAD).

// FMA4(a, b, c, d, x, y, z, u): the query values in a..d times V1..V4 into
// accumulators x..u.
#define FMA4(a, b, c, d, x, y, z, u) \
	VFMLA a.S4, V1.S4, x.S4; \
	VFMLA b.S4, V2.S4, y.S4; \
	VFMLA c.S4, V3.S4, z.S4; \
	VFMLA d.S4, V4.S4, u.S4

// S16(win, s, d, w) adds the next 16 values (DECODE16's arguments) times
// the four queries' next 16 values into the accumulators.
#define S16(win, s, d, w) \
	DECODE16(win, s, d, w, SRC);                      \
	VLD1.P 64(Q0), [V5.S4, V6.S4, V7.S4, V8.S4];      \
	FMA4(V5, V6, V7, V8, V13, V14, V15, V16);         \
	VLD1.P 64(Q1), [V9.S4, V10.S4, V11.S4, V12.S4];   \
	FMA4(V9, V10, V11, V12, V17, V18, V19, V20);      \
	VLD1.P 64(Q2), [V5.S4, V6.S4, V7.S4, V8.S4];      \
	FMA4(V5, V6, V7, V8, V21, V22, V23, V24);         \
	VLD1.P 64(Q3), [V9.S4, V10.S4, V11.S4, V12.S4];   \
	FMA4(V9, V10, V11, V12, V25, V26, V27, V28)

#define ROWTCQ3 \
	S16(2, 0, 6, 12);  /* pairs 0..7 at stream bits 0, 6, ..., 42 */ \
	S16(8, 0, 6, 12);  \
	S16(14, 0, 6, 12); \
	S16(20, 0, 6, 12); \
	S16(26, 0, 6, 12); \
	S16(32, 0, 6, 12); \
	S16(38, 0, 6, 12); \
	S16(44, 0, 6, 12)  /* bytes 44..51 of 52 */

#define ROWTCQ2 \
	S16(2, 0, 4, 10);  /* pairs 0..7 at stream bits 0, 4, ..., 28 */ \
	S16(6, 0, 4, 10);  \
	S16(10, 0, 4, 10); \
	S16(14, 0, 4, 10); \
	S16(18, 0, 4, 10); \
	S16(22, 0, 4, 10); \
	S16(26, 0, 4, 10); \
	S16(28, 16, 4, 10) /* the last window 2 bytes back: bytes 28..35 of 36 */

// ZEROQ zeroes the accumulators and points Q0..Q3 at the queries.
#define ZEROQ \
	VEOR  V13.B16, V13.B16, V13.B16; VEOR V14.B16, V14.B16, V14.B16; \
	VEOR  V15.B16, V15.B16, V15.B16; VEOR V16.B16, V16.B16, V16.B16; \
	VEOR  V17.B16, V17.B16, V17.B16; VEOR V18.B16, V18.B16, V18.B16; \
	VEOR  V19.B16, V19.B16, V19.B16; VEOR V20.B16, V20.B16, V20.B16; \
	VEOR  V21.B16, V21.B16, V21.B16; VEOR V22.B16, V22.B16, V22.B16; \
	VEOR  V23.B16, V23.B16, V23.B16; VEOR V24.B16, V24.B16, V24.B16; \
	VEOR  V25.B16, V25.B16, V25.B16; VEOR V26.B16, V26.B16, V26.B16; \
	VEOR  V27.B16, V27.B16, V27.B16; VEOR V28.B16, V28.B16, V28.B16; \
	MOVD  QP, Q0;                                                    \
	ADD   $512, QP, Q1;                                              \
	ADD   $1024, QP, Q2;                                             \
	ADD   $1536, QP, Q3

// START is ZEROQ and sets every lane of V0 to the row's norm.
#define START \
	ZEROQ;                \
	VLD1R (SRC), [V0.H8]; \
	FCVTL4S(0, 0)

// REDUCE leaves query j's score in lane j of V13.
#define REDUCE \
	FADD4S(14, 13, 13); FADD4S(16, 15, 15); FADD4S(15, 13, 13); /* query 0 */ \
	FADD4S(18, 17, 17); FADD4S(20, 19, 19); FADD4S(19, 17, 17); \
	FADD4S(22, 21, 21); FADD4S(24, 23, 23); FADD4S(23, 21, 21); \
	FADD4S(26, 25, 25); FADD4S(28, 27, 27); FADD4S(27, 25, 25); \
	FADDP4S(17, 13, 13); /* pair sums of queries 0, 1 */        \
	FADDP4S(25, 21, 21); /* of queries 2, 3 */                  \
	FADDP4S(21, 13, 13)

// STORE writes the first NQ lanes of V13 to DP, DP+DSS, ...; next is the
// label after it.
#define STORE(next) \
	FMOVS F13, (DP);         \
	CMP   $2, NQ;            \
	BLT   next;              \
	VMOV  V13.S[1], T;       \
	MOVW  T, (DP)(DSS);      \
	CMP   $3, NQ;            \
	BLT   next;              \
	ADD   DSS<<1, DP, Q0;    \
	VMOV  V13.S[2], T;       \
	MOVW  T, (Q0);           \
	CMP   $4, NQ;            \
	BLT   next;              \
	VMOV  V13.S[3], T;       \
	MOVW  T, (Q0)(DSS)

// SCORE is the whole routine for one code.
#define SCORE(table, row, loop, next, done) \
	MOVD dst+0(FP), DP;        \
	MOVD dstStride+8(FP), DSS; \
	MOVD q+16(FP), QP;         \
	MOVD src+24(FP), SRC;      \
	MOVD srcStride+32(FP), SS; \
	MOVD n+40(FP), NR;         \
	MOVD nq+48(FP), NQ;        \
	CMP  $0, NR;               \
	BLE  done;                 \
	MOVD $table(SB), CB;       \
loop:                          \
	START;                     \
	row;                       \
	REDUCE;                    \
	STORE(next);               \
next:                          \
	ADD  $4, DP;               \
	ADD  SS, SRC;              \
	SUBS $1, NR;               \
	BNE  loop;                 \
done:                          \
	RET

// func scoreTCQ3NEON(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ3NEON(SB), NOSPLIT, $0-56
	SCORE(·tcq3Pairs, ROWTCQ3, scoreTCQ3NEON_loop, scoreTCQ3NEON_next, scoreTCQ3NEON_done)

// func scoreTCQ2NEON(dst *float32, dstStride int, q *float32, src *byte, srcStride, n, nq int)
TEXT ·scoreTCQ2NEON(SB), NOSPLIT, $0-56
	SCORE(·tcq2Pairs, ROWTCQ2, scoreTCQ2NEON_loop, scoreTCQ2NEON_next, scoreTCQ2NEON_done)

// Fused scalar key scoring (turbo2, turbo3, turbo4): the rows come as
// 192-byte records (scalar_arm64.s: a block's byte planes of level·N, then
// its 128 indices one per byte), so one routine serves the three types.
// Per 16 values LOOK16 rebuilds the floats in V1..V4 (four TBLs and eight
// ZIPs, no multiply), then each query's 16 values are loaded into V5..V8
// in turn and fused multiply-added into its four accumulators, as for
// TCQ. SRC walks the records; SS is unused.

// SQ16 adds the next 16 values (indices at SRC, planes in V9..V12) times
// the four queries' next 16 values into the accumulators.
#define SQ16 \
	VLD1.P 16(SRC), [V29.B16];                                          \
	LOOK16(V29.B16, V9, V10, V11, V12, V5, V6, V7, V8, V1, V2, V3, V4); \
	VLD1.P 64(Q0), [V5.S4, V6.S4, V7.S4, V8.S4];                        \
	FMA4(V5, V6, V7, V8, V13, V14, V15, V16);                           \
	VLD1.P 64(Q1), [V5.S4, V6.S4, V7.S4, V8.S4];                        \
	FMA4(V5, V6, V7, V8, V17, V18, V19, V20);                           \
	VLD1.P 64(Q2), [V5.S4, V6.S4, V7.S4, V8.S4];                        \
	FMA4(V5, V6, V7, V8, V21, V22, V23, V24);                           \
	VLD1.P 64(Q3), [V5.S4, V6.S4, V7.S4, V8.S4];                        \
	FMA4(V5, V6, V7, V8, V25, V26, V27, V28)

// func scoreScalarNEON(dst *float32, dstStride int, q *float32, rec *byte, n, nq int)
TEXT ·scoreScalarNEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), DP
	MOVD dstStride+8(FP), DSS
	MOVD q+16(FP), QP
	MOVD rec+24(FP), SRC
	MOVD n+32(FP), NR
	MOVD nq+40(FP), NQ
	CMP  $0, NR
	BLE  scoreScalarNEON_done

scoreScalarNEON_loop:
	ZEROQ
	VLD1.P 64(SRC), [V9.B16, V10.B16, V11.B16, V12.B16] // the row's planes
	SQ16
	SQ16
	SQ16
	SQ16
	SQ16
	SQ16
	SQ16
	SQ16
	REDUCE
	STORE(scoreScalarNEON_next)

scoreScalarNEON_next:
	ADD  $4, DP
	SUBS $1, NR
	BNE  scoreScalarNEON_loop

scoreScalarNEON_done:
	RET
