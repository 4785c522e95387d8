//go:build !purego

#include "textflag.h"

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S
#define FADD2D(m, n, d)   WORD $(0x4E60D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.2D, Vn.2D, Vm.2D
#define FADDPD(n, d)      WORD $(0x7E70D800 | ((n)<<5) | (d))             // faddp  Dd, Vn.2D
#define FCVTL2D(n, d)     WORD $(0x0E617800 | ((n)<<5) | (d))             // fcvtl  Vd.2D, Vn.2S
#define FCVTL22D(n, d)    WORD $(0x4E617800 | ((n)<<5) | (d))             // fcvtl2 Vd.2D, Vn.4S
#define FCVTL4S(n, d)     WORD $(0x0E217800 | ((n)<<5) | (d))             // fcvtl  Vd.4S, Vn.4H
#define FCVTL24S(n, d)    WORD $(0x4E217800 | ((n)<<5) | (d))             // fcvtl2 Vd.4S, Vn.8H
#define FCVTN4H(n, d)     WORD $(0x0E216800 | ((n)<<5) | (d))             // fcvtn  Vd.4H, Vn.4S
#define FCVTN28H(n, d)    WORD $(0x4E216800 | ((n)<<5) | (d))             // fcvtn2 Vd.8H, Vn.4S
#define FCMEQ4S(m, n, d)  WORD $(0x4E20E400 | ((m)<<16) | ((n)<<5) | (d)) // fcmeq  Vd.4S, Vn.4S, Vm.4S
#define XTN4H(n, d)       WORD $(0x0E612800 | ((n)<<5) | (d))             // xtn    Vd.4H, Vn.4S
#define XTN28H(n, d)      WORD $(0x4E612800 | ((n)<<5) | (d))             // xtn2   Vd.8H, Vn.4S

// BF16WIDEN widens the eight bf16 values in src (H8) to float32 in lo (the
// first four) and hi, exactly: a bf16 is the top half of a float32, so
// interleaving a zero half below each value (ZIP1/ZIP2 with zero) is the
// conversion. Arguments are register names.
#define BF16WIDEN(src, zero, lo, hi) \
	VZIP1 src.H8, zero.H8, lo.H8; /* lo = {0, src[0], 0, src[1], ...} as halves */ \
	VZIP2 src.H8, zero.H8, hi.H8

#define ap  R0 // first operand / destination of in-place ops
#define bp  R1 // second operand
#define dp  R2 // destination
#define cnt R3 // values left
#define tmp R4

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

// func addF32NEON(dst, a, b *float32, n int)
TEXT ·addF32NEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), dp
	MOVD a+8(FP), ap
	MOVD b+16(FP), bp
	MOVD n+24(FP), cnt
	LSR  $3, cnt
	CBZ  cnt, addF32NEON_done

addF32NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	VLD1.P 32(bp), [V2.S4, V3.S4]
	FADD4S(2, 0, 0)
	FADD4S(3, 1, 1)
	VST1.P [V0.S4, V1.S4], 32(dp)
	SUBS   $1, cnt
	BNE    addF32NEON_loop

addF32NEON_done:
	RET

// func mulF32NEON(dst, a, b *float32, n int)
TEXT ·mulF32NEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), dp
	MOVD a+8(FP), ap
	MOVD b+16(FP), bp
	MOVD n+24(FP), cnt
	LSR  $3, cnt
	CBZ  cnt, mulF32NEON_done

mulF32NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	VLD1.P 32(bp), [V2.S4, V3.S4]
	FMUL4S(2, 0, 0)
	FMUL4S(3, 1, 1)
	VST1.P [V0.S4, V1.S4], 32(dp)
	SUBS   $1, cnt
	BNE    mulF32NEON_loop

mulF32NEON_done:
	RET

// func scaleF32NEON(x *float32, n int, s float32)
TEXT ·scaleF32NEON(SB), NOSPLIT, $0-20
	MOVD  x+0(FP), ap
	MOVD  n+8(FP), cnt
	FMOVS s+16(FP), F31
	VDUP  V31.S[0], V31.S4
	MOVD  ap, dp
	LSR   $3, cnt
	CBZ   cnt, scaleF32NEON_done

scaleF32NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	FMUL4S(31, 0, 0)
	FMUL4S(31, 1, 1)
	VST1.P [V0.S4, V1.S4], 32(dp)
	SUBS   $1, cnt
	BNE    scaleF32NEON_loop

scaleF32NEON_done:
	RET

// func f32ToF16NEON(dst *byte, src *float32, n int)
TEXT ·f32ToF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	MOVD $0xfe00fe00fe00fe00, tmp
	VMOV tmp, V30.D[0]
	VMOV tmp, V30.D[1]         // V30 = 0xfe00 in every half
	LSR  $3, cnt
	CBZ  cnt, f32ToF16NEON_done

f32ToF16NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	FCVTN4H(0, 2)              // V2 = fp16(V0 ++ V1), round to nearest even
	FCVTN28H(1, 2)
	FCMEQ4S(0, 0, 3)           // V3 lane = x == x ? ones : 0 (0 for NaN)
	FCMEQ4S(1, 1, 4)
	XTN4H(3, 5)                // V5 = the masks as halves
	XTN28H(4, 5)
	VORR V30.B16, V5.B16, V5.B16 // keep = ones, or 0xfe00 for a NaN
	VAND V5.B16, V2.B16, V2.B16  // NaN -> sign | 0x7e00 (FCVTN gave sign|0x7e00|payload)
	VST1.P [V2.H8], 16(dp)
	SUBS   $1, cnt
	BNE    f32ToF16NEON_loop

f32ToF16NEON_done:
	RET

// func f16ToF32NEON(dst *float32, src *byte, n int)
TEXT ·f16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	LSR  $3, cnt
	CBZ  cnt, f16ToF32NEON_done

f16ToF32NEON_loop:
	VLD1.P 16(ap), [V0.H8]
	FCVTL4S(0, 1)              // exact; a NaN comes back quiet with its payload
	FCVTL24S(0, 2)
	VST1.P [V1.S4, V2.S4], 32(dp)
	SUBS   $1, cnt
	BNE    f16ToF32NEON_loop

f16ToF32NEON_done:
	RET

// func f32ToBF16NEON(dst *byte, src *float32, n int)
//
// bf16 = (bits + 0x7fff + (bits>>16)&1) >> 16 (round to nearest even in
// integer arithmetic; overflow carries into the exponent and gives Inf),
// except NaN: bits>>16 | 0x40, taken here as the top half of bits|0x400000.
TEXT ·f32ToBF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	MOVD $1, tmp
	VDUP tmp, V28.S4           // V28 = 1 in every lane
	MOVD $0x7fff, tmp
	VDUP tmp, V29.S4           // V29 = 0x7fff
	MOVD $0x400000, tmp
	VDUP tmp, V30.S4           // V30 = the quiet bit of the top half
	LSR  $3, cnt
	CBZ  cnt, f32ToBF16NEON_done

f32ToBF16NEON_loop:
	VLD1.P 32(ap), [V0.S4, V1.S4]
	VUSHR  $16, V0.S4, V2.S4     // V2 = bits >> 16
	VUSHR  $16, V1.S4, V3.S4
	VAND   V28.B16, V2.B16, V2.B16 // the lowest kept bit, for ties to even
	VAND   V28.B16, V3.B16, V3.B16
	VADD   V29.S4, V2.S4, V2.S4
	VADD   V29.S4, V3.S4, V3.S4
	VADD   V0.S4, V2.S4, V2.S4     // V2 = bits + 0x7fff + lsb: rounded in the top half
	VADD   V1.S4, V3.S4, V3.S4
	VORR   V30.B16, V0.B16, V4.B16 // V4 = the NaN form, bits | 0x400000
	VORR   V30.B16, V1.B16, V5.B16
	FCMEQ4S(0, 0, 6)               // V6 lane = x == x ? ones : 0 (0 for NaN)
	FCMEQ4S(1, 1, 7)
	VBSL   V4.B16, V2.B16, V6.B16  // V6 = not NaN ? rounded : NaN form
	VBSL   V5.B16, V3.B16, V7.B16
	VUZP2  V7.H8, V6.H8, V8.H8     // V8 = the top halves of V6 then V7
	VST1.P [V8.H8], 16(dp)
	SUBS   $1, cnt
	BNE    f32ToBF16NEON_loop

f32ToBF16NEON_done:
	RET

// func bf16ToF32NEON(dst *float32, src *byte, n int)
TEXT ·bf16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), dp
	MOVD src+8(FP), ap
	MOVD n+16(FP), cnt
	VEOR V31.B16, V31.B16, V31.B16
	LSR  $3, cnt
	CBZ  cnt, bf16ToF32NEON_done

bf16ToF32NEON_loop:
	VLD1.P 16(ap), [V0.H8]
	BF16WIDEN(V0, V31, V1, V2)     // exact, NaN payloads kept
	VST1.P [V1.S4, V2.S4], 32(dp)
	SUBS   $1, cnt
	BNE    bf16ToF32NEON_loop

bf16ToF32NEON_done:
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
