//go:build !purego

#include "textflag.h"

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FABS4S(n, d)       WORD $(0x4EA0F800 | ((n)<<5) | (d))             // fabs    Vd.4S, Vn.4S
#define FMAXNM4S(m, n, d)  WORD $(0x4E20C400 | ((m)<<16) | ((n)<<5) | (d)) // fmaxnm  Vd.4S, Vn.4S, Vm.4S
#define FMAXNMV(n, d)      WORD $(0x6E30C800 | ((n)<<5) | (d))             // fmaxnmv Sd, Vn.4S
#define FMUL4S(m, n, d)    WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul    Vd.4S, Vn.4S, Vm.4S
#define FCVTNS4S(n, d)     WORD $(0x4E21A800 | ((n)<<5) | (d))             // fcvtns  Vd.4S, Vn.4S
#define SMIN4S(m, n, d)    WORD $(0x4EA06C00 | ((m)<<16) | ((n)<<5) | (d)) // smin    Vd.4S, Vn.4S, Vm.4S
#define XTN4H(n, d)        WORD $(0x0E612800 | ((n)<<5) | (d))             // xtn     Vd.4H, Vn.4S
#define XTN28H(n, d)       WORD $(0x4E612800 | ((n)<<5) | (d))             // xtn2    Vd.8H, Vn.4S
#define XTN8B(n, d)        WORD $(0x0E212800 | ((n)<<5) | (d))             // xtn     Vd.8B, Vn.8H
#define XTN216B(n, d)      WORD $(0x4E212800 | ((n)<<5) | (d))             // xtn2    Vd.16B, Vn.8H

#define dp   R0  // next output block
#define sp   R1  // next input block
#define nblk R2  // blocks left
#define scan R3  // q8_K: search for the value of largest magnitude
#define t0   R4
#define abit R5  // bits of amax
#define qp   R6  // q8_K quants of the block
#define bp   R7  // q8_K bsums of the block
#define grp  R8  // q8_K groups of 16 left

// ABSMAX4 folds |V(a..a+3)| into the running maxima V20..V23.
#define ABSMAX4(a, b, c, d) \
	FABS4S(a, a); FABS4S(b, b); FABS4S(c, c); FABS4S(d, d); \
	FMAXNM4S(a, 20, 20); FMAXNM4S(b, 21, 21); FMAXNM4S(c, 22, 22); FMAXNM4S(d, 23, 23)

// MAXV reduces V20..V23 to F20 = amax and its bits to abit.
#define MAXV \
	FMAXNM4S(21, 20, 20); \
	FMAXNM4S(23, 22, 22); \
	FMAXNM4S(22, 20, 20); \
	FMAXNMV(20, 20);      \
	FMOVS F20, abit

// QUANT4 sets V(a..d) to the int32 FCVTNS(V * V30): the float32 product,
// rounded to nearest even.
#define QUANT4(a, b, c, d) \
	FMUL4S(30, a, a); FMUL4S(30, b, b); FMUL4S(30, c, c); FMUL4S(30, d, d); \
	FCVTNS4S(a, a); FCVTNS4S(b, b); FCVTNS4S(c, c); FCVTNS4S(d, d)

// NARROW4 packs the int32 lanes of V(a..d) into the 16 bytes of V(n),
// keeping the low byte of each as the generic int8 conversion does.
#define NARROW4(a, b, c, d, n) \
	XTN4H(a, 24); XTN28H(b, 24); XTN4H(c, 25); XTN28H(d, 25); \
	XTN8B(24, n); XTN216B(25, n)

// func quantizeQ8_0NEON(dst []byte, src []float32)
TEXT ·quantizeQ8_0NEON(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), dp
	MOVD src_base+24(FP), sp
	MOVD src_len+32(FP), nblk
	LSR  $5, nblk
	MOVW $0x42fe0000, t0 // 127.0
	FMOVS t0, F31
	CBZ  nblk, quantizeQ8_0NEON_done

quantizeQ8_0NEON_loop:
	VLD1.P 64(sp), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(sp), [V4.S4, V5.S4, V6.S4, V7.S4]
	VEOR   V20.B16, V20.B16, V20.B16
	VEOR   V21.B16, V21.B16, V21.B16
	VEOR   V22.B16, V22.B16, V22.B16
	VEOR   V23.B16, V23.B16, V23.B16
	FABS4S(0, 16); FABS4S(1, 17); FABS4S(2, 18); FABS4S(3, 19)
	FMAXNM4S(16, 20, 20); FMAXNM4S(17, 21, 21); FMAXNM4S(18, 22, 22); FMAXNM4S(19, 23, 23)
	FABS4S(4, 16); FABS4S(5, 17); FABS4S(6, 18); FABS4S(7, 19)
	FMAXNM4S(16, 20, 20); FMAXNM4S(17, 21, 21); FMAXNM4S(18, 22, 22); FMAXNM4S(19, 23, 23)
	MAXV
	FDIVS  F31, F20, F21       // d = amax/127
	FCVTSH F21, F21            // to fp16, round to nearest even
	FMOVS  F21, t0
	MOVH.P t0, 2(dp)
	FDIVS  F20, F31, F30       // id = 127/amax
	FCMPS  $(0.0), F20
	FCSELS EQ, F20, F30, F30   // id = 0 when amax == 0 (F20 is 0 then)
	VDUP   V30.S[0], V30.S4
	QUANT4(0, 1, 2, 3)
	NARROW4(0, 1, 2, 3, 16)
	QUANT4(4, 5, 6, 7)
	NARROW4(4, 5, 6, 7, 17)
	VST1.P [V16.B16, V17.B16], 32(dp)
	SUBS   $1, nblk
	BNE    quantizeQ8_0NEON_loop

quantizeQ8_0NEON_done:
	RET

// func quantizeQ8_KNEON(dst []byte, src []float32)
TEXT ·quantizeQ8_KNEON(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), dp
	MOVD src_base+24(FP), sp
	MOVD src_len+32(FP), nblk
	LSR  $8, nblk
	MOVW $0xc2fe0000, t0 // -127.0
	FMOVS t0, F31
	MOVW $127, t0
	VDUP t0, V29.S4
	CBZ  nblk, quantizeQ8_KNEON_done

quantizeQ8_KNEON_loop:
	// amax over the block, in four lanes of maxima.
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	MOVD sp, scan
	MOVD $16, grp

quantizeQ8_KNEON_max:
	VLD1.P 64(scan), [V0.S4, V1.S4, V2.S4, V3.S4]
	ABSMAX4(0, 1, 2, 3)
	SUBS $1, grp
	BNE  quantizeQ8_KNEON_max
	MAXV
	CBZ  abit, quantizeQ8_KNEON_zero

	// vmax: the first value whose |x| has amax's bits. FMAXNM returns one
	// of its operands, so the scan stops inside the block; the bound only
	// keeps a signalling NaN (whose FMAXNM is a new NaN) memory-safe.
	MOVD sp, scan
	MOVD $256, grp

quantizeQ8_KNEON_scan:
	MOVWU.P 4(scan), t0
	ANDW    $0x7fffffff, t0, qp
	CMPW    qp, abit
	BEQ     quantizeQ8_KNEON_found
	SUBS    $1, grp
	BNE     quantizeQ8_KNEON_scan
	MOVW    abit, t0

quantizeQ8_KNEON_found:
	FMOVS   t0, F20
	FDIVS   F20, F31, F30       // iscale = -127/vmax
	VDUP    V30.S[0], V30.S4
	ADD     $4, dp, qp
	ADD     $260, dp, bp
	MOVD    $16, grp

quantizeQ8_KNEON_group:
	VLD1.P 64(sp), [V0.S4, V1.S4, V2.S4, V3.S4]
	QUANT4(0, 1, 2, 3)
	SMIN4S(29, 0, 0); SMIN4S(29, 1, 1); SMIN4S(29, 2, 2); SMIN4S(29, 3, 3) // q = min(127, q)
	VADD   V1.S4, V0.S4, V4.S4
	VADD   V3.S4, V2.S4, V5.S4
	VADD   V5.S4, V4.S4, V4.S4
	VADDV  V4.S4, V4
	VMOV   V4.S[0], t0
	MOVH.P t0, 2(bp)            // bsums[j] = int16(sum of the 16 q)
	NARROW4(0, 1, 2, 3, 16)
	VST1.P [V16.B16], 16(qp)
	SUBS   $1, grp
	BNE    quantizeQ8_KNEON_group
	FMOVS  $(1.0), F21
	FDIVS  F30, F21, F21        // d = 1/iscale
	FMOVS  F21, (dp)
	ADD    $292, dp
	B      quantizeQ8_KNEON_next

quantizeQ8_KNEON_zero:
	VEOR   V0.B16, V0.B16, V0.B16
	VEOR   V1.B16, V1.B16, V1.B16
	VEOR   V2.B16, V2.B16, V2.B16
	VEOR   V3.B16, V3.B16, V3.B16
	MOVW.P ZR, 4(dp)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(dp)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(dp)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(dp)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(dp)
	VST1.P [V0.B16, V1.B16], 32(dp)
	ADD    $1024, sp

quantizeQ8_KNEON_next:
	SUBS $1, nblk
	BNE  quantizeQ8_KNEON_loop

quantizeQ8_KNEON_done:
	RET

// func quantizeQ8_1NEON(dst []byte, src []float32) int
TEXT ·quantizeQ8_1NEON(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), dp
	MOVD src_base+24(FP), sp
	MOVD src_len+32(FP), nblk
	LSR  $5, nblk
	MOVD $0, qp                // qp = blocks done
	MOVW $0x42fe0000, t0       // 127.0
	FMOVS t0, F31
	CBZ  nblk, quantizeQ8_1NEON_done

quantizeQ8_1NEON_loop:
	VLD1   (sp), [V0.S4, V1.S4, V2.S4, V3.S4]
	ADD    $64, sp, scan
	VLD1   (scan), [V4.S4, V5.S4, V6.S4, V7.S4]
	VEOR   V20.B16, V20.B16, V20.B16
	VEOR   V21.B16, V21.B16, V21.B16
	VEOR   V22.B16, V22.B16, V22.B16
	VEOR   V23.B16, V23.B16, V23.B16
	FABS4S(0, 16); FABS4S(1, 17); FABS4S(2, 18); FABS4S(3, 19)
	FMAXNM4S(16, 20, 20); FMAXNM4S(17, 21, 21); FMAXNM4S(18, 22, 22); FMAXNM4S(19, 23, 23)
	FABS4S(4, 16); FABS4S(5, 17); FABS4S(6, 18); FABS4S(7, 19)
	FMAXNM4S(16, 20, 20); FMAXNM4S(17, 21, 21); FMAXNM4S(18, 22, 22); FMAXNM4S(19, 23, 23)
	MAXV
	FDIVS  F20, F31, F30       // id = 127/amax
	FMOVS  F30, t0
	MOVW   $0x7f800000, bp
	CMPW   bp, t0
	BEQ    quantizeQ8_1NEON_done // id = +Inf (tiny amax): the caller does this block
	FCMPS  $(0.0), F20
	FCSELS EQ, F20, F30, F30   // id = 0 when amax == 0 (F20 is 0 then)
	FDIVS  F31, F20, F21       // d = amax/127, kept in float32 for s
	FCVTSH F21, F22            // to fp16, round to nearest even
	FMOVS  F22, t0
	MOVH   t0, (dp)
	VDUP   V30.S[0], V30.S4
	QUANT4(0, 1, 2, 3)
	QUANT4(4, 5, 6, 7)
	VADD   V1.S4, V0.S4, V16.S4  // sum(q), exact in int32
	VADD   V3.S4, V2.S4, V17.S4
	VADD   V5.S4, V4.S4, V18.S4
	VADD   V7.S4, V6.S4, V19.S4
	VADD   V17.S4, V16.S4, V16.S4
	VADD   V19.S4, V18.S4, V18.S4
	VADD   V18.S4, V16.S4, V16.S4
	VADDV  V16.S4, V16
	VMOV   V16.S[0], t0
	SCVTFWS t0, F23
	FMULS  F21, F23, F23       // float32(sum) * d
	FCVTSH F23, F23
	FMOVS  F23, t0
	MOVH   t0, 2(dp)           // s
	NARROW4(0, 1, 2, 3, 16)
	NARROW4(4, 5, 6, 7, 17)
	ADD    $4, dp
	VST1.P [V16.B16, V17.B16], 32(dp)
	ADD    $128, sp
	ADD    $1, qp
	SUBS   $1, nblk
	BNE    quantizeQ8_1NEON_loop

quantizeQ8_1NEON_done:
	MOVD qp, ret+48(FP)
	RET
