//go:build !purego

#include "textflag.h"
#include "tcqpairs_arm64.h"
#include "scalarplanes_arm64.h"

// Row records for the fused scalar kernels (scoreScalarNEON in
// score_arm64.s, accumScalarNEON in accum_arm64.s; Go side in
// scalar_arm64.go). Per row, 192 bytes: the block's four byte planes of
// level·N (64 bytes: V13..V16 of scalarplanes_arm64.h, decodeBlock's
// products), then its 128 indices, one byte each in value order, numbered
// as the planes are (turbo3: levels 4-7 at 7-10). This is expandTurbo*NEON
// (expand_arm64.s) up to the lookup, with the same loads, each ending
// inside its block; the lookup happens in registers where the values are
// used.

#define REC R0  // record cursor
#define SRC R1  // the row's block
#define SS R3   // src stride, bytes
#define NR R4   // rows left
#define QP R9   // index byte cursor

// ARGS loads the arguments and returns at once when n <= 0.
#define ARGS(done) \
	MOVD rec+0(FP), REC;       \
	MOVD src+8(FP), SRC;       \
	MOVD srcStride+16(FP), SS; \
	MOVD n+24(FP), NR;         \
	CMP  $0, NR;               \
	BLE  done

// NORM sets every lane of V0 to the block's norm.
#define NORM \
	VLD1R (SRC), [V0.H8]; \
	FCVTL4S(0, 0)

#define PUTPLANES VST1.P [V13.B16, V14.B16, V15.B16, V16.B16], 64(REC)

// PUT64 stores 64 indices (V26..V29).
#define PUT64 VST1.P [V26.B16, V27.B16, V28.B16, V29.B16], 64(REC)

#define NEXT(loop) \
	ADD  SS, SRC; \
	SUBS $1, NR;  \
	BNE  loop

// func prepTurbo2NEON(rec *byte, src *byte, srcStride, n int)
TEXT ·prepTurbo2NEON(SB), NOSPLIT, $0-32
	ARGS(prepTurbo2NEON_done)
	T2INIT

prepTurbo2NEON_loop:
	T2PLANES
	PUTPLANES
	ADD    $2, SRC, QP
	VLD1.P 16(QP), [V30.B16] // values 0..63
	UNPACK2
	PUT64
	VLD1   (QP), [V30.B16]   // values 64..127: bytes 18..33 of 34
	UNPACK2
	PUT64
	NEXT(prepTurbo2NEON_loop)

prepTurbo2NEON_done:
	RET

// func prepTurbo3NEON(rec *byte, src *byte, srcStride, n int)
TEXT ·prepTurbo3NEON(SB), NOSPLIT, $0-32
	ARGS(prepTurbo3NEON_done)
	T3INIT

prepTurbo3NEON_loop:
	T3PLANES
	PUTPLANES
	ADD    $2, SRC, QP
	FMOVD  34(SRC), F31      // signs of values 0..63
	VLD1.P 16(QP), [V30.B16]
	T3IDX64
	PUT64
	FMOVD  42(SRC), F31      // signs of values 64..127: bytes 42..49 of 50
	VLD1.P 16(QP), [V30.B16]
	T3IDX64
	PUT64
	NEXT(prepTurbo3NEON_loop)

prepTurbo3NEON_done:
	RET

// T4PUT32 stores the indices of the next 32 values (16 bytes at QP).
#define T4PUT32 \
	VLD1.P 16(QP), [V30.B16]; \
	T4IDX32;                  \
	VST1.P [V26.B16, V27.B16], 32(REC)

// func prepTurbo4NEON(rec *byte, src *byte, srcStride, n int)
TEXT ·prepTurbo4NEON(SB), NOSPLIT, $0-32
	ARGS(prepTurbo4NEON_done)
	T4INIT

prepTurbo4NEON_loop:
	T4PLANES
	PUTPLANES
	ADD $2, SRC, QP
	T4PUT32
	T4PUT32
	T4PUT32
	T4PUT32 // bytes 50..65 of 66
	NEXT(prepTurbo4NEON_loop)

prepTurbo4NEON_done:
	RET
