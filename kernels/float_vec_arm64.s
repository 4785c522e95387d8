//go:build !purego

#include "textflag.h"
#include "float_arm64.h"

// NEON element-wise ops (Add, Mul, Scale) and RMSNorm's two passes; the
// contracts are in float_vec_arm64.go.

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

// RMSNorm's passes: the float64 sum of the float32 squares and the
// scaling. Both take n, a multiple of 8 (0 allowed); the Go wrapper does
// the rest and the scalar steps between.
#undef dp
#undef cnt
#define xp  R0 // source
#define dp  R1 // destination
#define cnt R2 // groups of 8 left

// func sumSquaresNEON(x *float32, n int) float64
//
// V20..V23 hold float64 lanes 0-1, 2-3, 4-5, 6-7 of the running sum.
TEXT ·sumSquaresNEON(SB), NOSPLIT, $0-24
	MOVD x+0(FP), xp
	MOVD n+8(FP), cnt
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	LSR  $3, cnt
	CBZ  cnt, sumSquaresNEON_done

sumSquaresNEON_loop:
	VLD1.P 32(xp), [V0.S4, V1.S4]
	FMUL4S(0, 0, 4)      // V4 = float32(x*x), lanes 0-3
	FMUL4S(1, 1, 5)      // V5 = lanes 4-7
	FCVTL2D(4, 16)       // widened exactly to float64
	FCVTL22D(4, 17)
	FCVTL2D(5, 18)
	FCVTL22D(5, 19)
	FADD2D(16, 20, 20)
	FADD2D(17, 21, 21)
	FADD2D(18, 22, 22)
	FADD2D(19, 23, 23)
	SUBS   $1, cnt
	BNE    sumSquaresNEON_loop

sumSquaresNEON_done:
	FADD2D(21, 20, 20)   // (l0,l1)+(l2,l3)
	FADD2D(23, 22, 22)   // (l4,l5)+(l6,l7)
	FADD2D(22, 20, 20)
	FADDPD(20, 20)       // F20 = the two lanes summed
	FMOVD F20, ret+16(FP)
	RET

// func scaleToNEON(dst, x *float32, n int, s float32)
TEXT ·scaleToNEON(SB), NOSPLIT, $0-28
	MOVD  dst+0(FP), dp
	MOVD  x+8(FP), xp
	MOVD  n+16(FP), cnt
	FMOVS s+24(FP), F31
	VDUP  V31.S[0], V31.S4 // V31 = s in every lane
	LSR   $3, cnt
	CBZ   cnt, scaleToNEON_done

scaleToNEON_loop:
	VLD1.P 32(xp), [V0.S4, V1.S4]
	FMUL4S(31, 0, 0)
	FMUL4S(31, 1, 1)
	VST1.P [V0.S4, V1.S4], 32(dp)
	SUBS   $1, cnt
	BNE    scaleToNEON_loop

scaleToNEON_done:
	RET
