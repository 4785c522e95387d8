//go:build !purego

#include "textflag.h"

// Weighted sums of attention value rows for AVX2+FMA+F16C (AttnValues):
// dst[d] = Σ_j p[j]·V_j[d] over nKeys rows vStride bytes apart. The columns
// are taken 64 at a time (then 8 at a time): their sums stay in eight (one)
// YMM accumulators while the loop walks every row, so dst is written once
// and each row is read once per block. Per column the rows are added in
// order, as in the generic kernels.

// Register roles.
#define DST DI    // next output block
#define PBASE SI  // p[0]
#define VBASE BX  // V_0 at the current column block
#define STRIDE DX // vStride
#define NKEYS CX  // nKeys
#define NCOL R8   // columns left
#define PP R9     // &p[j]
#define ROW R10   // V_j at the current column block
#define CNT R11   // rows left in the block's walk
#define PJ Y8     // p[j] in every lane
#define T0 Y9
#define T1 Y10
#define T2 Y11
#define T3 Y12

// LOADARGS reads the arguments, which both routines share.
#define LOADARGS \
	MOVQ dst+0(FP), DST;      \
	MOVQ p+8(FP), PBASE;      \
	MOVQ v+16(FP), VBASE;     \
	MOVQ vStride+24(FP), STRIDE; \
	MOVQ nKeys+32(FP), NKEYS; \
	MOVQ n+40(FP), NCOL

// WALK starts a walk over the rows at the current column block.
#define WALK \
	MOVQ PBASE, PP; \
	MOVQ VBASE, ROW; \
	MOVQ NKEYS, CNT

// ZERO8 clears the eight accumulators Y0..Y7.
#define ZERO8 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// STORE8 writes the eight accumulators to dst[0:64].
#define STORE8 \
	VMOVUPS Y0, 0(DST);   \
	VMOVUPS Y1, 32(DST);  \
	VMOVUPS Y2, 64(DST);  \
	VMOVUPS Y3, 96(DST);  \
	VMOVUPS Y4, 128(DST); \
	VMOVUPS Y5, 160(DST); \
	VMOVUPS Y6, 192(DST); \
	VMOVUPS Y7, 224(DST)

// F32STEP(off, T, ACC): ACC += float32(PJ*V[off/4:off/4+8]), rounded
// product then sum (no FMA), as attnValuesF32Generic.
#define F32STEP(off, T, ACC) \
	VMULPS off(ROW), PJ, T; \
	VADDPS T, ACC, ACC

// F16STEP(off, T, ACC): ACC += PJ*float32(V[off/2:off/2+8]) with one FMA.
#define F16STEP(off, T, ACC) \
	VCVTPH2PS   off(ROW), T; \
	VFMADD231PS T, PJ, ACC

// func attnValuesF32AVX2(dst, p *float32, v *byte, vStride, nKeys, n int)
TEXT ·attnValuesF32AVX2(SB), NOSPLIT, $0-48
	LOADARGS

attnValuesF32AVX2_block64:
	CMPQ NCOL, $64
	JLT  attnValuesF32AVX2_block8
	ZERO8
	WALK

attnValuesF32AVX2_loop64:
	TESTQ        CNT, CNT
	JZ           attnValuesF32AVX2_store64
	VBROADCASTSS (PP), PJ // PJ = p[j] in every lane
	F32STEP(0, T0, Y0)
	F32STEP(32, T1, Y1)
	F32STEP(64, T2, Y2)
	F32STEP(96, T3, Y3)
	F32STEP(128, T0, Y4)
	F32STEP(160, T1, Y5)
	F32STEP(192, T2, Y6)
	F32STEP(224, T3, Y7)
	ADDQ         $4, PP
	ADDQ         STRIDE, ROW
	DECQ         CNT
	JMP          attnValuesF32AVX2_loop64

attnValuesF32AVX2_store64:
	STORE8
	ADDQ $256, DST
	ADDQ $256, VBASE // 64 float32 columns
	SUBQ $64, NCOL
	JMP  attnValuesF32AVX2_block64

attnValuesF32AVX2_block8:
	CMPQ   NCOL, $8
	JLT    attnValuesF32AVX2_done
	VXORPS Y0, Y0, Y0
	WALK

attnValuesF32AVX2_loop8:
	TESTQ        CNT, CNT
	JZ           attnValuesF32AVX2_store8
	VBROADCASTSS (PP), PJ
	F32STEP(0, T0, Y0)
	ADDQ         $4, PP
	ADDQ         STRIDE, ROW
	DECQ         CNT
	JMP          attnValuesF32AVX2_loop8

attnValuesF32AVX2_store8:
	VMOVUPS Y0, (DST)
	ADDQ    $32, DST
	ADDQ    $32, VBASE
	SUBQ    $8, NCOL
	JMP     attnValuesF32AVX2_block8

attnValuesF32AVX2_done:
	VZEROUPPER
	RET

// func attnValuesF16AVX2(dst, p *float32, v *byte, vStride, nKeys, n int)
TEXT ·attnValuesF16AVX2(SB), NOSPLIT, $0-48
	LOADARGS

attnValuesF16AVX2_block64:
	CMPQ NCOL, $64
	JLT  attnValuesF16AVX2_block8
	ZERO8
	WALK

attnValuesF16AVX2_loop64:
	TESTQ        CNT, CNT
	JZ           attnValuesF16AVX2_store64
	VBROADCASTSS (PP), PJ // PJ = p[j] in every lane
	F16STEP(0, T0, Y0)
	F16STEP(16, T1, Y1)
	F16STEP(32, T2, Y2)
	F16STEP(48, T3, Y3)
	F16STEP(64, T0, Y4)
	F16STEP(80, T1, Y5)
	F16STEP(96, T2, Y6)
	F16STEP(112, T3, Y7)
	ADDQ         $4, PP
	ADDQ         STRIDE, ROW
	DECQ         CNT
	JMP          attnValuesF16AVX2_loop64

attnValuesF16AVX2_store64:
	STORE8
	ADDQ $256, DST
	ADDQ $128, VBASE // 64 f16 columns
	SUBQ $64, NCOL
	JMP  attnValuesF16AVX2_block64

attnValuesF16AVX2_block8:
	CMPQ   NCOL, $8
	JLT    attnValuesF16AVX2_done
	VXORPS Y0, Y0, Y0
	WALK

attnValuesF16AVX2_loop8:
	TESTQ        CNT, CNT
	JZ           attnValuesF16AVX2_store8
	VBROADCASTSS (PP), PJ
	F16STEP(0, T0, Y0)
	ADDQ         $4, PP
	ADDQ         STRIDE, ROW
	DECQ         CNT
	JMP          attnValuesF16AVX2_loop8

attnValuesF16AVX2_store8:
	VMOVUPS Y0, (DST)
	ADDQ    $32, DST
	ADDQ    $16, VBASE
	SUBQ    $8, NCOL
	JMP     attnValuesF16AVX2_block8

attnValuesF16AVX2_done:
	VZEROUPPER
	RET

// Scores of one f16 query against f16 keys (AttnScores): per key exactly
// the instructions of dotF16AVX2 (float_dot_amd64.s), so each score has the
// bits of VecDot(F16, ...) on that key, without a Go call per key.

// Score register roles (the value roles above are not used here).
#define OUT R8   // &dst[j]
#define KEY R12  // next key
#define QRY R13  // q[0]
#define NVAL R14 // n
#define PA SI    // key position in the dot
#define PB DI    // q position in the dot
#define ACC0 Y0
#define ACC1 Y1
#define ACC2 Y2
#define ACC3 Y3

// HSUM8, ZERO4 and FOLD4 as in float_dot_amd64.s.
// VMOVHLPS moves X[2:4] to T[0:2]; VMOVSHDUP moves X[1] to T[0].
#define HSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VADDPS       T, X, X;  \
	VMOVHLPS     X, X, T;  \
	VADDPS       T, X, X;  \
	VMOVSHDUP    X, T;     \
	VADDSS       T, X, X

#define ZERO4 \
	VXORPS ACC0, ACC0, ACC0; \
	VXORPS ACC1, ACC1, ACC1; \
	VXORPS ACC2, ACC2, ACC2; \
	VXORPS ACC3, ACC3, ACC3

#define FOLD4 \
	VADDPS ACC2, ACC0, ACC0; \
	VADDPS ACC3, ACC1, ACC1; \
	VADDPS ACC1, ACC0, ACC0; \
	HSUM8(ACC0, X0, X1)

// func attnScoresF16AVX2(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)
TEXT ·attnScoresF16AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), OUT
	MOVQ k+8(FP), KEY
	MOVQ kStride+16(FP), STRIDE
	MOVQ q+24(FP), QRY
	MOVQ nKeys+32(FP), NKEYS
	MOVQ n+40(FP), NVAL

attnScoresF16AVX2_key:
	TESTQ NKEYS, NKEYS
	JZ    attnScoresF16AVX2_done
	MOVQ  KEY, PA
	MOVQ  QRY, PB
	MOVQ  NVAL, CNT
	ZERO4

attnScoresF16AVX2_loop:
	CMPQ        CNT, $32
	JLT         attnScoresF16AVX2_tail
	VCVTPH2PS   0(PA), Y4 // Y4 = float32(key[0:8])
	VCVTPH2PS   16(PA), Y5
	VCVTPH2PS   32(PA), Y6
	VCVTPH2PS   48(PA), Y7
	VCVTPH2PS   0(PB), Y8 // Y8 = float32(q[0:8])
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
	JMP         attnScoresF16AVX2_loop

attnScoresF16AVX2_tail:
	CMPQ        CNT, $8
	JLT         attnScoresF16AVX2_store
	VCVTPH2PS   (PA), Y4
	VCVTPH2PS   (PB), Y8
	VFMADD231PS Y8, Y4, ACC0
	ADDQ        $16, PA
	ADDQ        $16, PB
	SUBQ        $8, CNT
	JMP         attnScoresF16AVX2_tail

attnScoresF16AVX2_store:
	FOLD4
	VMOVSS X0, (OUT) // dst[j] = the key's dot
	ADDQ   $4, OUT
	ADDQ   STRIDE, KEY
	DECQ   NKEYS
	JMP    attnScoresF16AVX2_key

attnScoresF16AVX2_done:
	VZEROUPPER
	RET
