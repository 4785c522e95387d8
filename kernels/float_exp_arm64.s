//go:build !purego

#include "textflag.h"

// SwiGLU and SoftMax's max and exponential passes for NEON. Every routine
// takes n, a multiple of 8 and > 0 (the Go wrappers in float_exp_arm64.go
// do the rest), and works on 8 values per step as two vectors A and B, so
// the two long FMA chains of the exponential overlap.
//
// Every vector instruction in the EXP4 and EXPBIG macros is WORD-encoded,
// even those the Go assembler knows (SHL, ADD, SUB, AND, BIT, ORR), so the
// macros can take register numbers and run once per vector.

#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(m, n, d)   WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d)) // fsub   Vd.4S, Vn.4S, Vm.4S
#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FDIV4S(m, n, d)   WORD $(0x6E20FC00 | ((m)<<16) | ((n)<<5) | (d)) // fdiv   Vd.4S, Vn.4S, Vm.4S
#define FMLA4S(m, n, d)   WORD $(0x4E20CC00 | ((m)<<16) | ((n)<<5) | (d)) // fmla   Vd.4S, Vn.4S, Vm.4S (Vd += Vn*Vm, fused)
#define FMLS4S(m, n, d)   WORD $(0x4EA0CC00 | ((m)<<16) | ((n)<<5) | (d)) // fmls   Vd.4S, Vn.4S, Vm.4S (Vd -= Vn*Vm, fused)
#define FMAX4S(m, n, d)   WORD $(0x4E20F400 | ((m)<<16) | ((n)<<5) | (d)) // fmax   Vd.4S, Vn.4S, Vm.4S
#define FACGT4S(m, n, d)  WORD $(0x6EA0EC00 | ((m)<<16) | ((n)<<5) | (d)) // facgt  Vd.4S, Vn.4S, Vm.4S (|Vn| > |Vm|)
#define FCMLEZ4S(n, d)    WORD $(0x6EA0D800 | ((n)<<5) | (d))             // fcmle  Vd.4S, Vn.4S, #0
#define FNEG4S(n, d)      WORD $(0x6EA0F800 | ((n)<<5) | (d))             // fneg   Vd.4S, Vn.4S
#define FMAXVS(n, d)      WORD $(0x6E30F800 | ((n)<<5) | (d))             // fmaxv  Sd, Vn.4S
#define UMAXVS(n, d)      WORD $(0x6EB0A800 | ((n)<<5) | (d))             // umaxv  Sd, Vn.4S
#define ADD4S(m, n, d)    WORD $(0x4EA08400 | ((m)<<16) | ((n)<<5) | (d)) // add    Vd.4S, Vn.4S, Vm.4S
#define SUB4S(m, n, d)    WORD $(0x6EA08400 | ((m)<<16) | ((n)<<5) | (d)) // sub    Vd.4S, Vn.4S, Vm.4S
#define SHL4S23(n, d)     WORD $(0x4F375400 | ((n)<<5) | (d))             // shl    Vd.4S, Vn.4S, #23
#define AND16B(m, n, d)   WORD $(0x4E201C00 | ((m)<<16) | ((n)<<5) | (d)) // and    Vd.16B, Vn.16B, Vm.16B
#define BIT16B(m, n, d)   WORD $(0x6EA01C00 | ((m)<<16) | ((n)<<5) | (d)) // bit    Vd.16B, Vn.16B, Vm.16B (Vd = Vm ? Vn : Vd)
#define MOV16B(n, d)      WORD $(0x4EA01C00 | ((n)<<16) | ((n)<<5) | (d)) // mov    Vd.16B, Vn.16B (orr)
#define FADD2D(m, n, d)   WORD $(0x4E60D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.2D, Vn.2D, Vm.2D
#define FADDPD(n, d)      WORD $(0x7E70D800 | ((n)<<5) | (d))             // faddp  Dd, Vn.2D
#define FCVTL2D(n, d)     WORD $(0x0E617800 | ((n)<<5) | (d))             // fcvtl  Vd.2D, Vn.2S
#define FCVTL22D(n, d)    WORD $(0x4E617800 | ((n)<<5) | (d))             // fcvtl2 Vd.2D, Vn.4S

// SPLAT sets V(v) to the 32-bit value c in every lane.
#define SPLAT(c, v) \
	MOVD $c, R9; \
	VDUP R9, v.S4

// EXPCONSTS loads the constants of EXP4 and EXPBIG into V16..V29 (the
// same values as float_exp_amd64.s).
#define EXPCONSTS \
	SPLAT(0x4b400000, V16) /* 0x1.8p23: adding it rounds to an integer */ \
	SPLAT(0x3fb8aa3b, V17) /* log2(e) */ \
	SPLAT(0x3f317200, V18) /* ln2 = Hi + Lo (Cody-Waite split) */ \
	SPLAT(0x35bfbe8e, V19) \
	SPLAT(0x3f800000, V20) /* 1.0 */ \
	SPLAT(0x3f7ffff6, V21) /* c1..c5: minimax polynomial for */ \
	SPLAT(0x3efffedb, V22) /* exp(b)-1 = c1*b + c2*b^2 + ... + c5*b^5 */ \
	SPLAT(0x3e2aaf33, V23) /* on |b| <= ln2/2 */ \
	SPLAT(0x3d2b9f17, V24) \
	SPLAT(0x3c072010, V25) \
	SPLAT(0x42fc0000, V26) /* 126.0 */ \
	SPLAT(0x43400000, V27) /* 192.0 */ \
	SPLAT(0x82000000, V28) \
	SPLAT(0x7f000000, V29)

// EXP4 sets V(x) = exp(V(x)) in every lane for |x| up to about 87, with
// the algorithm and the rounding steps of EXP8 in float_exp_amd64.s (that
// of ggml_v_expf, from Arm's optimized-routines): n = round(x/ln2), b = x -
// n*ln2, exp(x) = 2^n * (1 + p(b)) with 2^n built in the exponent bits,
// about 1.5 ulp. Each fused step here is the fused step there, so the
// results are those of the AVX2 kernels bit for bit. In pseudo-Go:
//
//	z := x*log2e + 0x1.8p23       // n sits in z's low mantissa bits
//	nn := z - 0x1.8p23
//	b := x - nn*ln2Hi - nn*ln2Lo
//	z = bits(z) << 23             // e: n moved into the exponent field
//	x = frombits(z + bits(1.0))   // k = 2^n when |n| <= 126
//	u := b*b
//	t := c5*b + c4; c := c3*b + c2; c = t*u + c
//	b = c*u + c1*b                // j
//	x = k + k*j
//	c = |nn| > 126                // the lanes EXPBIG must fix
#define EXP4(x, z, nn, b, u, t, c) \
	MOV16B(16, z);     \
	FMLA4S(17, x, z);  \
	FSUB4S(16, z, nn); \
	MOV16B(x, b);      \
	FMLS4S(18, nn, b); \
	FMLS4S(19, nn, b); \
	SHL4S23(z, z);     \
	ADD4S(20, z, x);   \
	FMUL4S(b, b, u);   \
	MOV16B(24, t);     \
	FMLA4S(25, b, t);  \
	MOV16B(22, c);     \
	FMLA4S(23, b, c);  \
	FMLA4S(u, t, c);   \
	FMUL4S(21, b, b);  \
	FMLA4S(u, c, b);   \
	FMLA4S(x, b, x);   \
	FACGT4S(26, nn, c)

// EXPBIG fixes the lanes of V(x) with |n| > 126 after EXP4 (e, nn, j and c
// as EXP4 leaves them in its z, nn, b and c; d and g are scratch): a
// two-step scale for subnormal and huge results, and 0 or +Inf past |n| >
// 192 (-Inf gives 0, +Inf gives +Inf). As EXP8BIG:
//
//	d := |nn| > 192
//	g := nn <= 0 ? 0x82000000 : 0
//	s1 := frombits(g + 0x7f000000); s2 := frombits(e - g)
//	if c { x = (s2 + s2*j) * s1 }
//	if d { x = s1 * s1 }
#define EXPBIG(x, e, nn, j, c, d, g) \
	FACGT4S(27, nn, d); \
	FCMLEZ4S(nn, g);    \
	AND16B(28, g, g);   \
	SUB4S(g, e, nn);    \
	ADD4S(29, g, g);    \
	FMLA4S(j, nn, nn);  \
	FMUL4S(g, nn, nn);  \
	FMUL4S(g, g, g);    \
	BIT16B(c, nn, x);   \
	BIT16B(d, g, x)

// EXP8 runs EXP4 on A = V0 and B = V1 and EXPBIG on both when a lane of
// either needs it (rare: only results below 2^-126 or above 2^127). A
// uses V2..V7 as scratch, B V8..V13; afterwards only V0 and V1 are live.
#define EXP8(big, done) \
	EXP4(0, 2, 3, 4, 5, 6, 7);      \
	EXP4(1, 8, 9, 10, 11, 12, 13);  \
	VORR   V7.B16, V13.B16, V5.B16; /* V5 = the big lanes of A or B */ \
	UMAXVS(5, 5);                   \
	VMOV   V5.S[0], R9;             \
	CBZ    R9, done;                \
big:                                \
	EXPBIG(0, 2, 3, 4, 7, 5, 6);    \
	EXPBIG(1, 8, 9, 10, 13, 11, 12); \
done:

#define dp  R0 // destination
#define gp  R1 // gate, or x
#define upp R2 // up
#define cnt R3 // groups of 8 left

// func swiGLUF32NEON(dst, gate, up *float32, n int)
//
// dst[i] = gate[i] / (1 + exp(-gate[i])) * up[i], as swiGLUGeneric (the
// division and the product rounded separately). V14, V15 hold the gate.
TEXT ·swiGLUF32NEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), dp
	MOVD gate+8(FP), gp
	MOVD up+16(FP), upp
	MOVD n+24(FP), cnt
	EXPCONSTS
	LSR  $3, cnt

swiGLUF32NEON_loop:
	VLD1.P 32(gp), [V14.S4, V15.S4]
	FNEG4S(14, 0)                  // A = -g
	FNEG4S(15, 1)                  // B
	EXP8(swiGLUF32NEON_big, swiGLUF32NEON_small)
	FADD4S(20, 0, 0)               // 1 + exp(-g)
	FADD4S(20, 1, 1)
	FDIV4S(0, 14, 14)              // g / (1 + exp(-g))
	FDIV4S(1, 15, 15)
	VLD1.P 32(upp), [V0.S4, V1.S4] // loaded before the store: dst may be up
	FMUL4S(0, 14, 14)
	FMUL4S(1, 15, 15)
	VST1.P [V14.S4, V15.S4], 32(dp)
	SUBS   $1, cnt
	BNE    swiGLUF32NEON_loop
	RET

// func expSumF32NEON(x *float32, n int, m float32) float64
//
// x[i] = exp(x[i] - m) in place; returns the float64 sum of the new x[i]
// (each widened exactly, as softMaxGeneric sums them, in another order):
// V14 gathers lanes 0,1 and 4,5, V15 lanes 2,3 and 6,7.
TEXT ·expSumF32NEON(SB), NOSPLIT, $0-32
	MOVD  x+0(FP), gp
	MOVD  n+8(FP), cnt
	FMOVS m+16(FP), F30
	VDUP  V30.S[0], V30.S4         // V30 = m in every lane
	MOVD  gp, dp
	EXPCONSTS
	VEOR  V14.B16, V14.B16, V14.B16
	VEOR  V15.B16, V15.B16, V15.B16
	LSR   $3, cnt

expSumF32NEON_loop:
	VLD1.P 32(gp), [V0.S4, V1.S4]
	FSUB4S(30, 0, 0)               // x - m
	FSUB4S(30, 1, 1)
	EXP8(expSumF32NEON_big, expSumF32NEON_small)
	VST1.P [V0.S4, V1.S4], 32(dp)
	FCVTL2D(0, 2)                  // lanes 0,1 as float64
	FCVTL22D(0, 3)                 // 2,3
	FCVTL2D(1, 8)                  // 4,5
	FCVTL22D(1, 9)                 // 6,7
	FADD2D(8, 2, 2)
	FADD2D(9, 3, 3)
	FADD2D(2, 14, 14)
	FADD2D(3, 15, 15)
	SUBS   $1, cnt
	BNE    expSumF32NEON_loop

	FADD2D(15, 14, 14)
	FADDPD(14, 14)
	FMOVD  F14, ret+24(FP)
	RET

// func maxF32NEON(x *float32, n int) float32
TEXT ·maxF32NEON(SB), NOSPLIT, $0-20
	MOVD   x+0(FP), gp
	MOVD   n+8(FP), cnt
	VLD1.P 32(gp), [V0.S4, V1.S4]  // the first 8 (n >= 8)
	LSR    $3, cnt
	SUBS   $1, cnt
	BEQ    maxF32NEON_done

maxF32NEON_loop:
	VLD1.P 32(gp), [V2.S4, V3.S4]
	FMAX4S(2, 0, 0)
	FMAX4S(3, 1, 1)
	SUBS   $1, cnt
	BNE    maxF32NEON_loop

maxF32NEON_done:
	FMAX4S(1, 0, 0)
	FMAXVS(0, 0)                   // F0 = the largest lane
	FMOVS  F0, ret+16(FP)
	RET
