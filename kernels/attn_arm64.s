//go:build !purego

#include "textflag.h"

// Attention inner loops for NEON (AttnValues and AttnScores), F32 and F16.

#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S
#define FADD2D(m, n, d)   WORD $(0x4E60D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.2D, Vn.2D, Vm.2D
#define FADDPD(n, d)      WORD $(0x7E70D800 | ((n)<<5) | (d))             // faddp  Dd, Vn.2D
#define FCVTL2D(n, d)     WORD $(0x0E617800 | ((n)<<5) | (d))             // fcvtl  Vd.2D, Vn.2S
#define FCVTL22D(n, d)    WORD $(0x4E617800 | ((n)<<5) | (d))             // fcvtl2 Vd.2D, Vn.4S
#define FCVTL4S(n, d)     WORD $(0x0E217800 | ((n)<<5) | (d))             // fcvtl  Vd.4S, Vn.4H
#define FCVTL24S(n, d)    WORD $(0x4E217800 | ((n)<<5) | (d))             // fcvtl2 Vd.4S, Vn.8H

// ---- AttnValues: dst[d] = Σ_j p[j]·V_j[d] over nKeys rows vStride bytes
// apart. The columns are taken 64 at a time (then 8 at a time): their sums
// stay in sixteen (two) accumulators V0..V15 while the loop walks every
// row, so dst is written once and each row is read once per block. Per
// column the rows are added in order from zero, each product rounded to
// float32 before the addition (FMUL then FADD, never FMLA), which is
// attnValuesF32Generic / attnValuesF16Generic bit for bit for any p.

#define dstq  R0  // next output block
#define pbase R1  // &p[0]
#define vbase R2  // V_0 at the current column block
#define strd  R3  // vStride
#define nkey  R4  // nKeys
#define ncol  R5  // columns left
#define pq    R6  // &p[j]
#define row   R7  // V_j at the current column block
#define left  R8  // rows left in the block's walk
#define rp    R9  // position in the row
// V31 = p[j] in every lane; V16..V23 the row's values as float32 and then
// the products; V24..V27 f16 values before widening.

#define LOADARGS \
	MOVD dst+0(FP), dstq;     \
	MOVD p+8(FP), pbase;      \
	MOVD v+16(FP), vbase;     \
	MOVD vStride+24(FP), strd; \
	MOVD nKeys+32(FP), nkey;  \
	MOVD n+40(FP), ncol

// WALK starts a walk over the rows at the current column block.
#define WALK \
	MOVD pbase, pq; \
	MOVD vbase, row; \
	MOVD nkey, left

// MULADD(t, acc): V(acc) += float32(p[j] * V(t)), product rounded first.
#define MULADD(t, acc) \
	FMUL4S(31, t, t); \
	FADD4S(t, acc, acc)

// MULADD8(a) adds the products of V16..V23 to the eight accumulators from
// V(a) on.
#define MULADD8(a0, a1, a2, a3, a4, a5, a6, a7) \
	MULADD(16, a0); MULADD(17, a1); MULADD(18, a2); MULADD(19, a3); \
	MULADD(20, a4); MULADD(21, a5); MULADD(22, a6); MULADD(23, a7)

// WIDEN16 widens the 32 f16 values in V24..V27 to float32 in V16..V23.
#define WIDEN16 \
	FCVTL4S(24, 16); FCVTL24S(24, 17); \
	FCVTL4S(25, 18); FCVTL24S(25, 19); \
	FCVTL4S(26, 20); FCVTL24S(26, 21); \
	FCVTL4S(27, 22); FCVTL24S(27, 23)

#define ZERO16 \
	VEOR V0.B16, V0.B16, V0.B16; VEOR V1.B16, V1.B16, V1.B16;     \
	VEOR V2.B16, V2.B16, V2.B16; VEOR V3.B16, V3.B16, V3.B16;     \
	VEOR V4.B16, V4.B16, V4.B16; VEOR V5.B16, V5.B16, V5.B16;     \
	VEOR V6.B16, V6.B16, V6.B16; VEOR V7.B16, V7.B16, V7.B16;     \
	VEOR V8.B16, V8.B16, V8.B16; VEOR V9.B16, V9.B16, V9.B16;     \
	VEOR V10.B16, V10.B16, V10.B16; VEOR V11.B16, V11.B16, V11.B16; \
	VEOR V12.B16, V12.B16, V12.B16; VEOR V13.B16, V13.B16, V13.B16; \
	VEOR V14.B16, V14.B16, V14.B16; VEOR V15.B16, V15.B16, V15.B16

#define STORE16 \
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(dstq);     \
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(dstq);     \
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(dstq);   \
	VST1.P [V12.S4, V13.S4, V14.S4, V15.S4], 64(dstq)

// LOADF32x32 and LOADF16x32 put the row's next 32 values as float32 in
// V16..V23.
#define LOADF32x32 \
	VLD1.P 64(rp), [V16.S4, V17.S4, V18.S4, V19.S4]; \
	VLD1.P 64(rp), [V20.S4, V21.S4, V22.S4, V23.S4]

#define LOADF16x32 \
	VLD1.P 64(rp), [V24.H8, V25.H8, V26.H8, V27.H8]; \
	WIDEN16

// VALUES is the body of both routines: LOAD32 reads 32 columns of a row,
// LOAD8 puts 8 in V16,V17; rowbytes64 and rowbytes8 are the bytes of 64
// and 8 columns.
#define VALUES(LOAD32, LOAD8, rowbytes64, rowbytes8, block64, loop64, block8, loop8, done) \
block64:                                   \
	CMP  $64, ncol;                        \
	BLT  block8;                           \
	ZERO16;                                \
	WALK;                                  \
loop64:                                    \
	VLD1R.P 4(pq), [V31.S4];               \
	MOVD row, rp;                          \
	LOAD32;                                \
	MULADD8(0, 1, 2, 3, 4, 5, 6, 7);       \
	LOAD32;                                \
	MULADD8(8, 9, 10, 11, 12, 13, 14, 15); \
	ADD  strd, row;                        \
	SUBS $1, left;                         \
	BNE  loop64;                           \
	STORE16;                               \
	ADD  $rowbytes64, vbase;               \
	SUB  $64, ncol;                        \
	B    block64;                          \
block8:                                    \
	CBZ  ncol, done;                       \
	VEOR V0.B16, V0.B16, V0.B16;           \
	VEOR V1.B16, V1.B16, V1.B16;           \
	WALK;                                  \
loop8:                                     \
	VLD1R.P 4(pq), [V31.S4];               \
	LOAD8;                                 \
	MULADD(16, 0);                         \
	MULADD(17, 1);                         \
	ADD  strd, row;                        \
	SUBS $1, left;                         \
	BNE  loop8;                            \
	VST1.P [V0.S4, V1.S4], 32(dstq);       \
	ADD  $rowbytes8, vbase;                \
	SUB  $8, ncol;                         \
	B    block8;                           \
done:

#define LOADF32x8 VLD1 (row), [V16.S4, V17.S4]
#define LOADF16x8 \
	VLD1 (row), [V24.H8]; \
	FCVTL4S(24, 16);      \
	FCVTL24S(24, 17)

// func attnValuesF32NEON(dst, p *float32, v *byte, vStride, nKeys, n int)
TEXT ·attnValuesF32NEON(SB), NOSPLIT, $0-48
	LOADARGS
	VALUES(LOADF32x32, LOADF32x8, 256, 32, attnValuesF32NEON_block64, attnValuesF32NEON_loop64, attnValuesF32NEON_block8, attnValuesF32NEON_loop8, attnValuesF32NEON_done)
	RET

// func attnValuesF16NEON(dst, p *float32, v *byte, vStride, nKeys, n int)
TEXT ·attnValuesF16NEON(SB), NOSPLIT, $0-48
	LOADARGS
	VALUES(LOADF16x32, LOADF16x8, 128, 16, attnValuesF16NEON_block64, attnValuesF16NEON_loop64, attnValuesF16NEON_block8, attnValuesF16NEON_loop8, attnValuesF16NEON_done)
	RET

// ---- AttnScores: per key exactly the instructions of dotF32NEON /
// dotF16NEON (float_dot_arm64.s): float32 products widened to float64 and
// summed in eight lanes, folded as ((l0+l2)+(l4+l6)) + ((l1+l3)+(l5+l7)),
// then rounded to float32, so each score has the bits of vecDotF32NEON /
// vecDotF16NEON on a key whose length is a multiple of 8.

#define outq  R0  // &dst[j]
#define key   R1  // key j
#define kstr  R2  // kStride
#define qry   R3  // q[0]
#define keys  R4  // keys left
#define nval  R5  // n
#define kp    R6  // position in the key
#define qp    R7  // position in q
#define cnt   R8  // groups of 8 left in the key

// ACC8 rounds the 8 products V4 = V0*V2, V5 = V1*V3 to float32, widens
// them exactly and adds them to the float64 lanes V20..V23, as in
// float_dot_arm64.s.
#define ACC8 \
	FMUL4S(2, 0, 4);    \
	FMUL4S(3, 1, 5);    \
	FCVTL2D(4, 16);     \
	FCVTL22D(4, 17);    \
	FCVTL2D(5, 18);     \
	FCVTL22D(5, 19);    \
	FADD2D(16, 20, 20); \
	FADD2D(17, 21, 21); \
	FADD2D(18, 22, 22); \
	FADD2D(19, 23, 23)

#define LOADKQF32 \
	VLD1.P 32(kp), [V0.S4, V1.S4]; \
	VLD1.P 32(qp), [V2.S4, V3.S4]

#define LOADKQF16 \
	VLD1.P 16(kp), [V6.H8]; \
	VLD1.P 16(qp), [V7.H8]; \
	FCVTL4S(6, 0);          \
	FCVTL24S(6, 1);         \
	FCVTL4S(7, 2);          \
	FCVTL24S(7, 3)

// SCORES is the body of both routines; LOADKQ puts the next 8 values of
// the key in V0,V1 and of q in V2,V3 as float32.
#define SCORES(LOADKQ, keyloop, loop) \
	LSR  $3, nval;                  \
keyloop:                            \
	VEOR V20.B16, V20.B16, V20.B16; \
	VEOR V21.B16, V21.B16, V21.B16; \
	VEOR V22.B16, V22.B16, V22.B16; \
	VEOR V23.B16, V23.B16, V23.B16; \
	MOVD key, kp;                   \
	MOVD qry, qp;                   \
	MOVD nval, cnt;                 \
loop:                               \
	LOADKQ;                         \
	ACC8;                           \
	SUBS $1, cnt;                   \
	BNE  loop;                      \
	FADD2D(21, 20, 20);             \
	FADD2D(23, 22, 22);             \
	FADD2D(22, 20, 20);             \
	FADDPD(20, 20);                 \
	FCVTDS F20, F20;                \
	FMOVS F20, (outq);              \
	ADD  $4, outq;                  \
	ADD  kstr, key;                 \
	SUBS $1, keys;                  \
	BNE  keyloop

// func attnScoresF32NEON(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)
TEXT ·attnScoresF32NEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), outq
	MOVD k+8(FP), key
	MOVD kStride+16(FP), kstr
	MOVD q+24(FP), qry
	MOVD nKeys+32(FP), keys
	MOVD n+40(FP), nval
	SCORES(LOADKQF32, attnScoresF32NEON_key, attnScoresF32NEON_loop)
	RET

// func attnScoresF16NEON(dst *float32, k *byte, kStride int, q *byte, nKeys, n int)
TEXT ·attnScoresF16NEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), outq
	MOVD k+8(FP), key
	MOVD kStride+16(FP), kstr
	MOVD q+24(FP), qry
	MOVD nKeys+32(FP), keys
	MOVD n+40(FP), nval
	SCORES(LOADKQF16, attnScoresF16NEON_key, attnScoresF16NEON_loop)
	RET
