//go:build !purego

#include "textflag.h"
#include "tcqpairs_arm64.h"
#include "scalarplanes_arm64.h"

// Row expansion kernels for ExpandRows (semantics as Go in expand_arm64.go).
// Each routine walks n rows of one block column. Per block it widens the
// fp16 norm N to every lane (LD1R + FCVTL). The scalar kernels multiply the
// level table by N (4, 8 or 16 products, decodeBlock's own), split the
// products into byte planes P0..P3 (plane k = byte k of every product), and
// then, per 16 values, unpack the 16 indices one per byte, look each plane
// up with TBL and store the four planes interleaved with ST4, which puts
// the bytes of each float32 back together in order. The TCQ kernels load
// level pairs from a pair table. Offsets below are block byte offsets; every
// load ends inside the block (noted where it is close).

// Register roles.
#define DP R0   // &dst[r*w]: the row's 128 outputs
#define SRC R1  // the row's block
#define DS R2   // dst stride, bytes
#define SS R3   // src stride, bytes
#define NR R4   // rows left
#define OUT R5  // output cursor in the row
#define CB R6   // &tcq3Pairs[0] or &tcq2Pairs[0]
#define WIN R7  // TCQ: 8-byte window of the stream
#define IX R8   // TCQ: pair index
#define QP R9   // scalar types: index byte cursor

// Vector roles, scalar kernels (scalarplanes_arm64.h): V0 N; V1-V4 levels; V5-V8 levels·N;
// V9-V12 plane selectors; V13-V16 planes; V17 index mask; V19 the bit of
// each lane in its sign byte (turbo3); V20-V23 output bytes; V24-V29 index
// work; V30 index bytes; V31 sign bytes (turbo3); V3, V4, V7, V8 sign-byte
// selectors (turbo3, which has only two level registers).

// ARGS loads the arguments and returns at once when n <= 0.
#define ARGS(done) \
	MOVD dst+0(FP), DP;        \
	MOVD src+8(FP), SRC;       \
	MOVD dstStride+16(FP), DS; \
	MOVD srcStride+24(FP), SS; \
	MOVD n+32(FP), NR;         \
	CMP  $0, NR;               \
	BLE  done

// NEXT advances to the next row and jumps to loop while rows are left.
#define NEXT(loop) \
	ADD  DS, DP;  \
	ADD  SS, SRC; \
	SUBS $1, NR;  \
	BNE  loop

// NORM sets every lane of V0 to the block's norm; OUT to the row start.
#define NORM \
	VLD1R (SRC), [V0.H8]; \
	FCVTL4S(0, 0);        \
	MOVD  DP, OUT


// LOOKUP16(y) stores the 16 values whose indices are the bytes of y.
#define LOOKUP16(y) \
	VTBL   y, [V13.B16], V20.B16; \
	VTBL   y, [V14.B16], V21.B16; \
	VTBL   y, [V15.B16], V22.B16; \
	VTBL   y, [V16.B16], V23.B16; \
	VST4.P [V20.B16, V21.B16, V22.B16, V23.B16], 64(OUT)


// func expandTurbo2NEON(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo2NEON(SB), NOSPLIT, $0-40
	ARGS(expandTurbo2NEON_done)
	T2INIT

expandTurbo2NEON_loop:
	T2PLANES
	ADD    $2, SRC, QP
	VLD1.P 16(QP), [V30.B16] // values 0..63
	UNPACK2
	LOOKUP16(V26.B16)
	LOOKUP16(V27.B16)
	LOOKUP16(V28.B16)
	LOOKUP16(V29.B16)
	VLD1   (QP), [V30.B16]   // values 64..127: bytes 18..33 of 34
	UNPACK2
	LOOKUP16(V26.B16)
	LOOKUP16(V27.B16)
	LOOKUP16(V28.B16)
	LOOKUP16(V29.B16)
	NEXT(expandTurbo2NEON_loop)

expandTurbo2NEON_done:
	RET


// T3_64 stores 64 values of turbo3: low bits from the 16 bytes at QP (then
// advanced), sign bytes already in V31 (one per 8 values).
#define T3_64 \
	VLD1.P 16(QP), [V30.B16]; \
	T3IDX64;                  \
	LOOKUP16(V26.B16);        \
	LOOKUP16(V27.B16);        \
	LOOKUP16(V28.B16);        \
	LOOKUP16(V29.B16)

// func expandTurbo3NEON(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo3NEON(SB), NOSPLIT, $0-40
	ARGS(expandTurbo3NEON_done)
	T3INIT

expandTurbo3NEON_loop:
	T3PLANES
	ADD   $2, SRC, QP
	FMOVD 34(SRC), F31 // signs of values 0..63
	T3_64
	FMOVD 42(SRC), F31 // signs of values 64..127: bytes 42..49 of 50
	T3_64
	NEXT(expandTurbo3NEON_loop)

expandTurbo3NEON_done:
	RET

// T4_32 stores 32 values of turbo4 from the 16 bytes at QP (then advanced):
// even values in the low nibbles, odd ones in the high (V17 = 15).
#define T4_32 \
	VLD1.P 16(QP), [V30.B16]; \
	T4IDX32;                  \
	LOOKUP16(V26.B16);                \
	LOOKUP16(V27.B16)

// func expandTurbo4NEON(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo4NEON(SB), NOSPLIT, $0-40
	ARGS(expandTurbo4NEON_done)
	T4INIT

expandTurbo4NEON_loop:
	T4PLANES
	ADD $2, SRC, QP
	T4_32
	T4_32
	T4_32
	T4_32 // bytes 50..65 of 66
	NEXT(expandTurbo4NEON_loop)

expandTurbo4NEON_done:
	RET

// TCQ: pair-table decode (DECODE16, tcqpairs_arm64.h), 16 values per step.

// Q16(win, s, d, w) stores 16 values: pairs start at bits s, s+d, ... of
// the window at win.
#define Q16(win, s, d, w) \
	DECODE16(win, s, d, w, SRC); \
	VST1.P [V1.S4, V2.S4, V3.S4, V4.S4], 64(OUT)

// func expandTCQ3NEON(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ3NEON(SB), NOSPLIT, $0-40
	ARGS(expandTCQ3NEON_done)
	MOVD $·tcq3Pairs(SB), CB

expandTCQ3NEON_loop:
	NORM
	Q16(2, 0, 6, 12)  // pairs 0..7 at stream bits 0, 6, ..., 42
	Q16(8, 0, 6, 12)
	Q16(14, 0, 6, 12)
	Q16(20, 0, 6, 12)
	Q16(26, 0, 6, 12)
	Q16(32, 0, 6, 12)
	Q16(38, 0, 6, 12)
	Q16(44, 0, 6, 12) // bytes 44..51 of 52
	NEXT(expandTCQ3NEON_loop)

expandTCQ3NEON_done:
	RET

// func expandTCQ2NEON(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ2NEON(SB), NOSPLIT, $0-40
	ARGS(expandTCQ2NEON_done)
	MOVD $·tcq2Pairs(SB), CB

expandTCQ2NEON_loop:
	NORM
	Q16(2, 0, 4, 10)  // pairs 0..7 at stream bits 0, 4, ..., 28
	Q16(6, 0, 4, 10)
	Q16(10, 0, 4, 10)
	Q16(14, 0, 4, 10)
	Q16(18, 0, 4, 10)
	Q16(22, 0, 4, 10)
	Q16(26, 0, 4, 10)
	Q16(28, 16, 4, 10) // the last window moved back 2 bytes: bytes 28..35 of 36
	NEXT(expandTCQ2NEON_loop)

expandTCQ2NEON_done:
	RET
