//go:build !purego

#include "textflag.h"
#include "tcqpairs_arm64.h"
#include "scalarplanes_arm64.h"

// Fused TCQ value accumulation (semantics in accum.go, AccumulateRows4; Go
// stubs and the packing of p in accum_arm64.go). Dims outer: the block is
// taken 16 values (one DECODE16 window) at a time; the four heads' 16 sums
// of that slice are loaded into V14..V29, every row adds its products to
// them, and they are stored back before the next slice. Per row and slice
// the 16 values are decoded (level·N as decodeBlock rounds it) and each
// head's product p·v is formed by FMUL and added by FADD, never FMLA, so
// every product is rounded before the add, in row order, as in
// accumulateRowsGo.

#define A0 R0   // head 0's sums, advanced one slice (64 bytes) at a time
#define A1 R1   // head 1's
#define A2 R2   // head 2's
#define A3 R3   // head 3's
#define PK R4   // p packed by row: p[r] holds the four heads' weights of row r
#define SRC R5  // row 0's block
#define SS R6   // src stride, bytes
#define NR R7   // rows
#define CB R8   // the level-pair table
#define WIN R9  // 8-byte window of the stream
#define IX R10  // pair index
#define ROW R11 // the row's block
#define PP R12  // the row's weights
#define CNT R13 // rows left in the slice

// Vector roles: V0 N; V1-V4 16 values; V5 the row's four weights; V6-V9,
// V10-V13 a head's products; V14-V29 sums, V(14+4j+k) for head j and
// vector k of the slice; V31 pair temporary (QUAD).

// HEAD(l, t0, t1, t2, t3, s0, s1, s2, s3) adds lane l of V5 times V1..V4,
// each product rounded (in t0..t3), to the sums s0..s3 (register numbers).
#define HEAD(l, t0, t1, t2, t3, s0, s1, s2, s3) \
	FMULE4S(5, l, 1, t0); \
	FMULE4S(5, l, 2, t1); \
	FMULE4S(5, l, 3, t2); \
	FMULE4S(5, l, 4, t3); \
	FADD4S(t0, s0, s0);   \
	FADD4S(t1, s1, s1);   \
	FADD4S(t2, s2, s2);   \
	FADD4S(t3, s3, s3)

// SLICE(win, s, d, w, loop) runs every row over one slice of 16 values
// (DECODE16's arguments), from loading the four heads' sums to storing
// them.
#define SLICE(win, s, d, w, loop) \
	VLD1  (A0), [V14.S4, V15.S4, V16.S4, V17.S4]; \
	VLD1  (A1), [V18.S4, V19.S4, V20.S4, V21.S4]; \
	VLD1  (A2), [V22.S4, V23.S4, V24.S4, V25.S4]; \
	VLD1  (A3), [V26.S4, V27.S4, V28.S4, V29.S4]; \
	MOVD  SRC, ROW;                               \
	MOVD  PK, PP;                                 \
	MOVD  NR, CNT;                                \
loop:                                             \
	VLD1R (ROW), [V0.H8];                         \
	FCVTL4S(0, 0);                                \
	DECODE16(win, s, d, w, ROW);                  \
	VLD1.P 16(PP), [V5.S4];                       \
	HEAD(0, 6, 7, 8, 9, 14, 15, 16, 17);          \
	HEAD(1, 10, 11, 12, 13, 18, 19, 20, 21);      \
	HEAD(2, 6, 7, 8, 9, 22, 23, 24, 25);          \
	HEAD(3, 10, 11, 12, 13, 26, 27, 28, 29);      \
	ADD   SS, ROW;                                \
	SUBS  $1, CNT;                                \
	BNE   loop;                                   \
	VST1.P [V14.S4, V15.S4, V16.S4, V17.S4], 64(A0); \
	VST1.P [V18.S4, V19.S4, V20.S4, V21.S4], 64(A1); \
	VST1.P [V22.S4, V23.S4, V24.S4, V25.S4], 64(A2); \
	VST1.P [V26.S4, V27.S4, V28.S4, V29.S4], 64(A3)

// ARGS loads the arguments and returns at once when n <= 0.
#define ARGS(table, done) \
	MOVD a0+0(FP), A0;         \
	MOVD a1+8(FP), A1;         \
	MOVD a2+16(FP), A2;        \
	MOVD a3+24(FP), A3;        \
	MOVD p+32(FP), PK;         \
	MOVD src+40(FP), SRC;      \
	MOVD srcStride+48(FP), SS; \
	MOVD n+56(FP), NR;         \
	CMP  $0, NR;               \
	BLE  done;                 \
	MOVD $table(SB), CB

// func accumTCQ3NEON(a0, a1, a2, a3 *float32, p *[4]float32, src *byte, srcStride, n int)
TEXT ·accumTCQ3NEON(SB), NOSPLIT, $0-64
	ARGS(·tcq3Pairs, accumTCQ3NEON_done)
	SLICE(2, 0, 6, 12, accumTCQ3NEON_s0) // pairs 0..7 at stream bits 0, 6, ..., 42
	SLICE(8, 0, 6, 12, accumTCQ3NEON_s1)
	SLICE(14, 0, 6, 12, accumTCQ3NEON_s2)
	SLICE(20, 0, 6, 12, accumTCQ3NEON_s3)
	SLICE(26, 0, 6, 12, accumTCQ3NEON_s4)
	SLICE(32, 0, 6, 12, accumTCQ3NEON_s5)
	SLICE(38, 0, 6, 12, accumTCQ3NEON_s6)
	SLICE(44, 0, 6, 12, accumTCQ3NEON_s7) // bytes 44..51 of 52

accumTCQ3NEON_done:
	RET

// func accumTCQ2NEON(a0, a1, a2, a3 *float32, p *[4]float32, src *byte, srcStride, n int)
TEXT ·accumTCQ2NEON(SB), NOSPLIT, $0-64
	ARGS(·tcq2Pairs, accumTCQ2NEON_done)
	SLICE(2, 0, 4, 10, accumTCQ2NEON_s0) // pairs 0..7 at stream bits 0, 4, ..., 28
	SLICE(6, 0, 4, 10, accumTCQ2NEON_s1)
	SLICE(10, 0, 4, 10, accumTCQ2NEON_s2)
	SLICE(14, 0, 4, 10, accumTCQ2NEON_s3)
	SLICE(18, 0, 4, 10, accumTCQ2NEON_s4)
	SLICE(22, 0, 4, 10, accumTCQ2NEON_s5)
	SLICE(26, 0, 4, 10, accumTCQ2NEON_s6)
	SLICE(28, 16, 4, 10, accumTCQ2NEON_s7) // the last window 2 bytes back: bytes 28..35 of 36

accumTCQ2NEON_done:
	RET

// Fused scalar value accumulation (turbo2, turbo3, turbo4) from 192-byte
// row records (scalar_arm64.s: byte planes of level·N, then 128 indices
// one per byte). Dims outer as above: per 16-value slice, every row loads
// its planes (V10..V13) and the slice's 16 indices (V0), LOOK16 rebuilds
// the values in V1..V4 (no multiply: the planes hold decodeBlock's
// products), and each head's products are rounded (FMUL) and added
// (FADD), in row order. PL walks the planes and ROW the slice's indices,
// both SS = 192 bytes a row.

#define PL R14 // the row's planes

// SSLICE(k, loop) runs every row over values 16k..16k+15.
#define SSLICE(k, loop) \
	VLD1  (A0), [V14.S4, V15.S4, V16.S4, V17.S4];                        \
	VLD1  (A1), [V18.S4, V19.S4, V20.S4, V21.S4];                        \
	VLD1  (A2), [V22.S4, V23.S4, V24.S4, V25.S4];                        \
	VLD1  (A3), [V26.S4, V27.S4, V28.S4, V29.S4];                        \
	MOVD  SRC, PL;                                                       \
	ADD   $(64+16*(k)), SRC, ROW;                                        \
	MOVD  PK, PP;                                                        \
	MOVD  NR, CNT;                                                       \
loop:                                                                    \
	VLD1.P (PL)(SS), [V10.B16, V11.B16, V12.B16, V13.B16];               \
	VLD1.P (ROW)(SS), [V0.B16];                                          \
	LOOK16(V0.B16, V10, V11, V12, V13, V6, V7, V8, V9, V1, V2, V3, V4);  \
	VLD1.P 16(PP), [V5.S4];                                              \
	HEAD(0, 6, 7, 8, 9, 14, 15, 16, 17);                                 \
	HEAD(1, 6, 7, 8, 9, 18, 19, 20, 21);                                 \
	HEAD(2, 6, 7, 8, 9, 22, 23, 24, 25);                                 \
	HEAD(3, 6, 7, 8, 9, 26, 27, 28, 29);                                 \
	SUBS  $1, CNT;                                                       \
	BNE   loop;                                                          \
	VST1.P [V14.S4, V15.S4, V16.S4, V17.S4], 64(A0);                     \
	VST1.P [V18.S4, V19.S4, V20.S4, V21.S4], 64(A1);                     \
	VST1.P [V22.S4, V23.S4, V24.S4, V25.S4], 64(A2);                     \
	VST1.P [V26.S4, V27.S4, V28.S4, V29.S4], 64(A3)

// func accumScalarNEON(a0, a1, a2, a3 *float32, p *[4]float32, rec *byte, n int)
TEXT ·accumScalarNEON(SB), NOSPLIT, $0-56
	MOVD a0+0(FP), A0
	MOVD a1+8(FP), A1
	MOVD a2+16(FP), A2
	MOVD a3+24(FP), A3
	MOVD p+32(FP), PK
	MOVD rec+40(FP), SRC
	MOVD n+48(FP), NR
	CMP  $0, NR
	BLE  accumScalarNEON_done
	MOVD $192, SS
	SSLICE(0, accumScalarNEON_s0)
	SSLICE(1, accumScalarNEON_s1)
	SSLICE(2, accumScalarNEON_s2)
	SSLICE(3, accumScalarNEON_s3)
	SSLICE(4, accumScalarNEON_s4)
	SSLICE(5, accumScalarNEON_s5)
	SSLICE(6, accumScalarNEON_s6)
	SSLICE(7, accumScalarNEON_s7)

accumScalarNEON_done:
	RET
