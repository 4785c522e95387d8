//go:build !purego

#include "textflag.h"

// SwiGLU and the exponential pass of SoftMax for AVX2+FMA. Both take n, a
// multiple of 8 and > 0 (the Go wrappers in float_exp_amd64.go do the rest)
// and evaluate exp with EXP8 below.

#define SPLAT32(sym, v) \
	DATA sym+0(SB)/4, $v;  \
	DATA sym+4(SB)/4, $v;  \
	DATA sym+8(SB)/4, $v;  \
	DATA sym+12(SB)/4, $v; \
	DATA sym+16(SB)/4, $v; \
	DATA sym+20(SB)/4, $v; \
	DATA sym+24(SB)/4, $v; \
	DATA sym+28(SB)/4, $v; \
	GLOBL sym(SB), RODATA|NOPTR, $32

SPLAT32(expShift<>, 0x4b400000)   // 0x1.8p23: adding it rounds to an integer
SPLAT32(expLog2e<>, 0x3fb8aa3b)   // log2(e)
SPLAT32(expLn2Hi<>, 0x3f317200)   // ln2 = Hi + Lo (Cody-Waite split)
SPLAT32(expLn2Lo<>, 0x35bfbe8e)
SPLAT32(expOneBits<>, 0x3f800000) // 1.0
SPLAT32(expC1<>, 0x3f7ffff6)      // c1..c5: minimax polynomial for
SPLAT32(expC2<>, 0x3efffedb)      // exp(b)-1 = c1*b + c2*b^2 + ... + c5*b^5
SPLAT32(expC3<>, 0x3e2aaf33)      // on |b| <= ln2/2
SPLAT32(expC4<>, 0x3d2b9f17)
SPLAT32(expC5<>, 0x3c072010)
SPLAT32(expAbs<>, 0x7fffffff)
SPLAT32(exp126<>, 0x42fc0000)     // 126.0
SPLAT32(exp192<>, 0x43400000)     // 192.0
SPLAT32(expNegBias<>, 0x82000000)
SPLAT32(expScaleBias<>, 0x7f000000)

// EXP8 sets Y0 = exp(Y0) in every lane for |x| up to about 87, with Y1..Y7
// as scratch. It is the algorithm of ggml_v_expf (from Arm's
// optimized-routines): n = round(x/ln2), b = x - n*ln2, exp(x) = 2^n *
// (1 + p(b)) with 2^n built in the exponent bits; about 1.5 ulp plus
// rounding, so within tolSoftMax and tolSwiGLU of a correctly rounded expf.
// It leaves Y1 = e, Y2 = n, Y6 = j (see below), Y3 = the lanes with
// |n| > 126, and AX = their sign mask; when AX != 0 the caller must run
// EXP8BIG. That path is a branch because its scale factors underflow for
// ordinary lanes, and a denormal result costs a microcode assist of about
// a hundred cycles on current x86 cores.
#define EXP8 \
	VMOVUPS      expShift<>(SB), Y1;         \
	VFMADD231PS  expLog2e<>(SB), Y0, Y1;     \
	VSUBPS       expShift<>(SB), Y1, Y2;     \
	VMOVAPS      Y0, Y3;                     \
	VFNMADD231PS expLn2Hi<>(SB), Y2, Y3;     \
	VFNMADD231PS expLn2Lo<>(SB), Y2, Y3;     \
	VPSLLD       $23, Y1, Y1;                \
	VPADDD       expOneBits<>(SB), Y1, Y4;   \
	VMULPS       Y3, Y3, Y5;                 \
	VMOVUPS      expC4<>(SB), Y6;            \
	VFMADD231PS  expC5<>(SB), Y3, Y6;        \
	VMOVUPS      expC2<>(SB), Y7;            \
	VFMADD231PS  expC3<>(SB), Y3, Y7;        \
	VFMADD213PS  Y7, Y5, Y6;                 \
	VMULPS       expC1<>(SB), Y3, Y3;        \
	VFMADD213PS  Y3, Y5, Y6;                 \
	VMOVAPS      Y4, Y0;                     \
	VFMADD231PS  Y6, Y4, Y0;                 \
	VANDPS       expAbs<>(SB), Y2, Y5;       \
	VCMPPS       $0x1e, exp126<>(SB), Y5, Y3; \
	VMOVMSKPS    Y3, AX

// EXP8BIG fixes the lanes of Y0 with |n| > 126: a two-step scale for
// subnormal and huge results, 0 or +Inf past |n| > 192 (-Inf gives 0,
// +Inf gives +Inf, NaN stays NaN).
#define EXP8BIG \
	VCMPPS       $0x1e, exp192<>(SB), Y5, Y5; \
	VXORPS       Y7, Y7, Y7;                 \
	VCMPPS       $0x12, Y7, Y2, Y7;          \
	VANDPS       expNegBias<>(SB), Y7, Y7;   \
	VPSUBD       Y7, Y1, Y2;                 \
	VPADDD       expScaleBias<>(SB), Y7, Y7; \
	VFMADD231PS  Y6, Y2, Y2;                 \
	VMULPS       Y7, Y2, Y2;                 \
	VMULPS       Y7, Y7, Y7;                 \
	VBLENDVPS    Y3, Y2, Y0, Y0;             \
	VBLENDVPS    Y5, Y7, Y0, Y0

// In pseudo-Go, with z, n, b, e, k, u, j, c, d, g, s1, s2 in Y1..Y7:
//
//	z := x*log2e + 0x1.8p23       // n sits in z's low mantissa bits
//	n := z - 0x1.8p23
//	b := x - n*ln2Hi - n*ln2Lo
//	e := bits(z) << 23            // n moved into the exponent field
//	k := frombits(e + bits(1.0))  // 2^n when |n| <= 126
//	u := b*b
//	j := (c5*b+c4)*u + (c3*b+c2); j = j*u + c1*b
//	r := k + k*j
//	c := |n| > 126                // EXP8 ends here
//	d := |n| > 192
//	g := n <= 0 ? 0x82000000 : 0
//	s1 := frombits(g + 0x7f000000); s2 := frombits(e - g)
//	if c { r = (s2 + s2*j) * s1 }
//	if d { r = s1 * s1 }

// func swiGLUAVX2(dst, gate, up *float32, n int)
//
// dst[i] = gate[i] / (1 + exp(-gate[i])) * up[i], as ggml_vec_swiglu_f32.
// dst may equal gate or up.
TEXT ·swiGLUAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ gate+8(FP), SI
	MOVQ up+16(FP), DX
	MOVQ n+24(FP), CX

swiGLUAVX2_loop:
	VMOVUPS (SI), Y8
	VXORPS  Y0, Y0, Y0
	VSUBPS  Y8, Y0, Y0                 // Y0 = 0 - g
	EXP8
	TESTL   AX, AX
	JZ      swiGLUAVX2_small
	EXP8BIG

swiGLUAVX2_small:
	VADDPS  expOneBits<>(SB), Y0, Y0   // Y0 = 1 + exp(-g)
	VDIVPS  Y0, Y8, Y8                 // Y8 = g / (1 + exp(-g))
	VMULPS  (DX), Y8, Y8
	VMOVUPS Y8, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     swiGLUAVX2_loop
	VZEROUPPER
	RET

// func expSumAVX2(x *float32, n int, m float32) float64
//
// x[i] = exp(x[i] - m) in place; returns the float64 sum of the new x[i]
// (each float32 widened, as softMaxGeneric sums them).
TEXT ·expSumAVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y10
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9

expSumAVX2_loop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y10, Y0, Y0           // Y0 = x - m
	EXP8
	TESTL        AX, AX
	JZ           expSumAVX2_small
	EXP8BIG

expSumAVX2_small:
	VMOVUPS      Y0, (SI)
	VCVTPS2PD    X0, Y1
	VADDPD       Y1, Y8, Y8            // lanes 0-3 in float64
	VEXTRACTF128 $1, Y0, X0
	VCVTPS2PD    X0, Y1
	VADDPD       Y1, Y9, Y9            // lanes 4-7
	ADDQ         $32, SI
	SUBQ         $8, CX
	JNZ          expSumAVX2_loop

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X1
	VADDPD       X1, X8, X8
	VUNPCKHPD    X8, X8, X1            // X1[0] = X8[1]
	VADDSD       X1, X8, X8
	VMOVSD       X8, ret+24(FP)
	VZEROUPPER
	RET
