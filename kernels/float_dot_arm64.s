//go:build !purego

#include "textflag.h"
#include "float_arm64.h"

// NEON dot products of F32, F16 and BF16 rows: one column (dotF32NEON …)
// and four (dotF32x4NEON …); the contracts are in float_dot_arm64.go.

// ACC8 rounds the 8 float32 products V4 = V0*V2, V5 = V1*V3 (as the generic
// float32(a*b)), widens them exactly to float64 and adds them to the four
// float64x2 accumulators V20..V23: lane i%8 of the running sum.
#define ACC8 \
	FMUL4S(2, 0, 4);   \
	FMUL4S(3, 1, 5);   \
	FCVTL2D(4, 16);    \
	FCVTL22D(4, 17);   \
	FCVTL2D(5, 18);    \
	FCVTL22D(5, 19);   \
	FADD2D(16, 20, 20); \
	FADD2D(17, 21, 21); \
	FADD2D(18, 22, 22); \
	FADD2D(19, 23, 23)

// CLEARACC zeroes V20..V23.
#define CLEARACC \
	VEOR V20.B16, V20.B16, V20.B16; \
	VEOR V21.B16, V21.B16, V21.B16; \
	VEOR V22.B16, V22.B16, V22.B16; \
	VEOR V23.B16, V23.B16, V23.B16

// SUMACC leaves ((V20+V21) + (V22+V23)) summed across its two lanes in F20.
#define SUMACC \
	FADD2D(21, 20, 20); \
	FADD2D(23, 22, 22); \
	FADD2D(22, 20, 20); \
	FADDPD(20, 20)

// func dotF32NEON(a, b *float32, n int) float64
TEXT ·dotF32NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), ap
	MOVD b+8(FP), bp
	MOVD n+16(FP), cnt
	CLEARACC
	LSR  $3, cnt
	CBZ  cnt, dotF32NEON_done

dotF32NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	VLD1.P 32(bp), [V2.S4, V3.S4]
	ACC8
	SUBS   $1, cnt
	BNE    dotF32NEON_loop

dotF32NEON_done:
	SUMACC
	FMOVD F20, ret+24(FP)
	RET

// func dotF16NEON(a, b *byte, n int) float64
TEXT ·dotF16NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), ap
	MOVD b+8(FP), bp
	MOVD n+16(FP), cnt
	CLEARACC
	LSR  $3, cnt
	CBZ  cnt, dotF16NEON_done

dotF16NEON_loop:
	VLD1.P 16(ap), [V6.H8]
	VLD1.P 16(bp), [V7.H8]
	FCVTL4S(6, 0)   // V0,V1 = a widened to float32 (exact)
	FCVTL24S(6, 1)
	FCVTL4S(7, 2)   // V2,V3 = b widened
	FCVTL24S(7, 3)
	ACC8
	SUBS   $1, cnt
	BNE    dotF16NEON_loop

dotF16NEON_done:
	SUMACC
	FMOVD F20, ret+24(FP)
	RET

// func dotBF16NEON(a, b *byte, n int) float64
TEXT ·dotBF16NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), ap
	MOVD b+8(FP), bp
	MOVD n+16(FP), cnt
	CLEARACC
	VEOR V24.B16, V24.B16, V24.B16 // V24 = 0, the low halves BF16WIDEN adds
	LSR  $3, cnt
	CBZ  cnt, dotBF16NEON_done

dotBF16NEON_loop:
	VLD1.P 16(ap), [V6.H8]
	VLD1.P 16(bp), [V7.H8]
	BF16WIDEN(V6, V24, V0, V1) // V0,V1 = a as float32 (exact)
	BF16WIDEN(V7, V24, V2, V3) // V2,V3 = b
	ACC8
	SUBS   $1, cnt
	BNE    dotBF16NEON_loop

dotBF16NEON_done:
	SUMACC
	FMOVD F20, ret+24(FP)
	RET

// Registers of the four-column dots (the one-column names above are unused).
#define wq   R0  // weight row
#define xc0  R1  // column 0
#define xc1  R2  // column 1 (column 0 again when there is none)
#define xc2  R3
#define xc3  R4
#define left R5  // groups of 8 left
#define strd R6
#define ncol R7
#define outq R8
// V0,V1 the 8 weights as float32; V2,V3 a column's; V4,V5 products;
// V8..V11 widened products; V16..V31 the column accumulators, four per
// column in ACC8's lane layout.

// COLUMNS4 sets xc1..xc3 to columns 1..3, or to column 0 past ncol.
#define COLUMNS4 \
	ADD  strd, xc0, xc1; \
	ADD  strd, xc1, xc2; \
	ADD  strd, xc2, xc3; \
	CMP  $2, ncol;       \
	CSEL LT, xc0, xc1, xc1; /* xc1 = ncol < 2 ? xc0 : xc1 */ \
	CMP  $3, ncol;       \
	CSEL LT, xc0, xc2, xc2; \
	CMP  $4, ncol;       \
	CSEL LT, xc0, xc3, xc3

// ACCCOL is ACC8 for one column whose float32 values are in V2,V3,
// accumulating into V(a0)..V(a3).
#define ACCCOL(a0, a1, a2, a3) \
	FMUL4S(2, 0, 4);    \
	FMUL4S(3, 1, 5);    \
	FCVTL2D(4, 8);      \
	FCVTL22D(4, 9);     \
	FCVTL2D(5, 10);     \
	FCVTL22D(5, 11);    \
	FADD2D(8, a0, a0);  \
	FADD2D(9, a1, a1);  \
	FADD2D(10, a2, a2); \
	FADD2D(11, a3, a3)

// COLF32 and COLF16 load 8 values of column xc as float32 into V2,V3 and
// run ACCCOL.
#define COLF32(xc, a0, a1, a2, a3) \
	VLD1.P 32(xc), [V2.S4, V3.S4]; \
	ACCCOL(a0, a1, a2, a3)

#define COLF16(xc, a0, a1, a2, a3) \
	VLD1.P 16(xc), [V7.H8]; \
	FCVTL4S(7, 2);          \
	FCVTL24S(7, 3);         \
	ACCCOL(a0, a1, a2, a3)

// SUMCOL is SUMACC for accumulators a0..a3 (fa0 names V(a0)'s low
// float64), storing the sum to off(outq).
#define SUMCOL(a0, a1, a2, a3, fa0, off) \
	FADD2D(a1, a0, a0); \
	FADD2D(a3, a2, a2); \
	FADD2D(a2, a0, a0); \
	FADDPD(a0, a0);     \
	FMOVD  fa0, off(outq)

// DOTX4 is the body of the four-column dots; LOADW puts the next 8 weights
// as float32 in V0,V1 and COL is COLF32 or COLF16.
#define DOTX4(LOADW, COL, loop, done) \
	COLUMNS4;                       \
	VEOR V16.B16, V16.B16, V16.B16; VEOR V17.B16, V17.B16, V17.B16; \
	VEOR V18.B16, V18.B16, V18.B16; VEOR V19.B16, V19.B16, V19.B16; \
	VEOR V20.B16, V20.B16, V20.B16; VEOR V21.B16, V21.B16, V21.B16; \
	VEOR V22.B16, V22.B16, V22.B16; VEOR V23.B16, V23.B16, V23.B16; \
	VEOR V24.B16, V24.B16, V24.B16; VEOR V25.B16, V25.B16, V25.B16; \
	VEOR V26.B16, V26.B16, V26.B16; VEOR V27.B16, V27.B16, V27.B16; \
	VEOR V28.B16, V28.B16, V28.B16; VEOR V29.B16, V29.B16, V29.B16; \
	VEOR V30.B16, V30.B16, V30.B16; VEOR V31.B16, V31.B16, V31.B16; \
	LSR  $3, left;                  \
	CBZ  left, done;                \
loop:                               \
	LOADW;                          \
	COL(xc0, 16, 17, 18, 19);       \
	COL(xc1, 20, 21, 22, 23);       \
	COL(xc2, 24, 25, 26, 27);       \
	COL(xc3, 28, 29, 30, 31);       \
	SUBS $1, left;                  \
	BNE  loop;                      \
done:                               \
	SUMCOL(16, 17, 18, 19, F16, 0);      \
	SUMCOL(20, 21, 22, 23, F20, 8);      \
	SUMCOL(24, 25, 26, 27, F24, 16);     \
	SUMCOL(28, 29, 30, 31, F28, 24)

// V12 is zero in the BF16 routine (the widening's low halves).
#define LOADW32 VLD1.P 32(wq), [V0.S4, V1.S4]
#define LOADW16 \
	VLD1.P 16(wq), [V6.H8]; \
	FCVTL4S(6, 0);          \
	FCVTL24S(6, 1)
#define LOADWBF16 \
	VLD1.P 16(wq), [V6.H8]; \
	BF16WIDEN(V6, V12, V0, V1)

#define COLBF16(xc, a0, a1, a2, a3) \
	VLD1.P 16(xc), [V7.H8];     \
	BF16WIDEN(V7, V12, V2, V3); \
	ACCCOL(a0, a1, a2, a3)

// func dotF32x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)
TEXT ·dotF32x4NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), wq
	MOVD x+8(FP), xc0
	MOVD xStride+16(FP), strd
	MOVD n+24(FP), left
	MOVD nc+32(FP), ncol
	MOVD out+40(FP), outq
	DOTX4(LOADW32, COLF32, dotF32x4NEON_loop, dotF32x4NEON_done)
	RET

// func dotF16x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)
TEXT ·dotF16x4NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), wq
	MOVD x+8(FP), xc0
	MOVD xStride+16(FP), strd
	MOVD n+24(FP), left
	MOVD nc+32(FP), ncol
	MOVD out+40(FP), outq
	DOTX4(LOADW16, COLF16, dotF16x4NEON_loop, dotF16x4NEON_done)
	RET

// func dotBF16x4NEON(w, x *byte, xStride, n, nc int, out *[4]float64)
TEXT ·dotBF16x4NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), wq
	MOVD x+8(FP), xc0
	MOVD xStride+16(FP), strd
	MOVD n+24(FP), left
	MOVD nc+32(FP), ncol
	MOVD out+40(FP), outq
	VEOR V12.B16, V12.B16, V12.B16
	DOTX4(LOADWBF16, COLBF16, dotBF16x4NEON_loop, dotBF16x4NEON_done)
	RET
