//go:build !purego

#include "textflag.h"

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define SDOT(m, n, d)     WORD $(0x4E809400 | ((m)<<16) | ((n)<<5) | (d)) // sdot   Vd.4S, Vn.16B, Vm.16B
#define SMULL8H(m, n, d)  WORD $(0x0E20C000 | ((m)<<16) | ((n)<<5) | (d)) // smull  Vd.8H, Vn.8B, Vm.8B
#define SMULL28H(m, n, d) WORD $(0x4E20C000 | ((m)<<16) | ((n)<<5) | (d)) // smull2 Vd.8H, Vn.16B, Vm.16B
#define SADDLP4S(n, d)    WORD $(0x4E602800 | ((n)<<5) | (d))             // saddlp Vd.4S, Vn.8H
#define SADALP4S(n, d)    WORD $(0x4E606800 | ((n)<<5) | (d))             // sadalp Vd.4S, Vn.8H
#define MOVI0(d)          WORD $(0x6F00E400 | (d))                        // movi   Vd.2D, #0
#define SCVTF4S(n, d)     WORD $(0x4E21D800 | ((n)<<5) | (d))             // scvtf  Vd.4S, Vn.4S
#define FCVTL4S(n, d)     WORD $(0x0E217800 | ((n)<<5) | (d))             // fcvtl  Vd.4S, Vn.4H
#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S

// DOT32NEON sets Vd.4S to partial sums (lanes add up to the exact total) of
// the 32 int8 products a0·b0 ++ a1·b1: SMULL widens each product to int16
// (|p| <= 2^14), SADDLP/SADALP add neighbouring pairs into int32.
// Scratch: V24-V27.
#define DOT32NEON(a0, b0, a1, b1, d) \
	SMULL8H(b0, a0, 24);  \
	SMULL28H(b0, a0, 25); \
	SMULL8H(b1, a1, 26);  \
	SMULL28H(b1, a1, 27); \
	SADDLP4S(24, d);      \
	SADALP4S(25, d);      \
	SADALP4S(26, d);      \
	SADALP4S(27, d)

// DOT32SDOT is DOT32NEON with two SDOTs (dot-product extension).
#define DOT32SDOT(a0, b0, a1, b1, d) \
	MOVI0(d);        \
	SDOT(b0, a0, d); \
	SDOT(b1, a1, d)

// Registers of the one-column kernels.
#define nblk R0 // blocks left
#define wp   R1 // next weight block
#define xp   R2 // next activation block
#define dw   R3 // fp16 bits of the weight scale
#define dx   R4 // fp16 bits of the activation scale
#define sumi R5 // integer block sum
// V0,V1 weight quants; V2,V3 activation quants; V4 block partial sums;
// V8 = 15s, V9 = 8s; F20 the running sum; F21-F23 float scratch.

// HALVES converts the fp16 bits in dw and dx to float32 F22 and F23.
#define HALVES \
	FMOVS  dw, F22;  \
	FCVTHS F22, F22; \
	FMOVS  dx, F23;  \
	FCVTHS F23, F23

// SUMI moves the total of V4's lanes to F21 as float32.
#define SUMI \
	VADDV   V4.S4, V4;     \
	VMOV    V4.S[0], sumi; \
	SCVTFWS sumi, F21

// LOAD_Q8_0 reads a q8_0 block's scale into dw and its quants into V0,V1.
#define LOAD_Q8_0 \
	MOVHU.P 2(wp), dw; \
	VLD1.P  32(wp), [V0.B16, V1.B16]

// LOAD_Q4_0 reads a q4_0 block: dw, V1 = (qs & 15) - 8 (values 0..15 of
// the block), V0 = (qs >> 4) - 8 (values 16..31).
#define LOAD_Q4_0 \
	MOVHU.P 2(wp), dw;           \
	VLD1.P  16(wp), [V0.B16];    \
	VAND    V8.B16, V0.B16, V1.B16; \
	VUSHR   $4, V0.B16, V0.B16;  \
	VSUB    V9.B16, V1.B16, V1.B16; \
	VSUB    V9.B16, V0.B16, V0.B16

// LOAD_X reads one q8_0 activation block: dx, V2,V3 = quants.
#define LOAD_X(xc) \
	MOVHU.P 2(xc), dx; \
	VLD1.P  32(xc), [V2.B16, V3.B16]

// Q8_0_BODY is the loop of vecDotQ8_0NEON/NEONDot:
// sumf += float32(sumi) * (dw*dx) per block.
#define Q8_0_BODY(DOT32, loop, done) \
	LSR   $5, nblk;                \
	VEOR  V20.B16, V20.B16, V20.B16; \
	CBZ   nblk, done;              \
loop:                              \
	LOAD_Q8_0;                     \
	LOAD_X(xp);                    \
	DOT32(0, 2, 1, 3, 4);          \
	SUMI;                          \
	HALVES;                        \
	FMULS F23, F22, F22;           \
	FMULS F22, F21, F21;           \
	FADDS F21, F20, F20;           \
	SUBS  $1, nblk;                \
	BNE   loop;                    \
done:

// Q4_0_BODY is the loop of vecDotQ4_0NEON/NEONDot:
// sumf += float32(sumi) * dw * dx per block, left to right.
#define Q4_0_BODY(DOT32, loop, done) \
	LSR   $5, nblk;                \
	VMOVI $15, V8.B16;             \
	VMOVI $8, V9.B16;              \
	VEOR  V20.B16, V20.B16, V20.B16; \
	CBZ   nblk, done;              \
loop:                              \
	LOAD_Q4_0;                     \
	LOAD_X(xp);                    \
	DOT32(1, 2, 0, 3, 4);          \
	SUMI;                          \
	HALVES;                        \
	FMULS F22, F21, F21;           \
	FMULS F23, F21, F21;           \
	FADDS F21, F20, F20;           \
	SUBS  $1, nblk;                \
	BNE   loop;                    \
done:

// Registers of the VecDotN kernels, besides nblk, wp, dw, dx above.
#define x0     R2  // column 0
#define x1     R6  // column 1 (column 0 again when there is none)
#define x2     R7
#define x3     R8
#define nc     R9  // len(out)
#define outp   R10
#define stride R11
// V16-V19 per-column block partial sums; V20 the four block sums; V21 the
// four activation scales; V22 the weight scale in every lane; V28 the four
// running sums; V29,V30 scratch.

// COLUMNS sets up x0..x3 and clears the running sums.
#define COLUMNS \
	LSR   $5, nblk;                 \
	ADD   stride, x0, x1;           \
	ADD   stride, x1, x2;           \
	ADD   stride, x2, x3;           \
	CMP   $2, nc;                   \
	CSEL  LT, x0, x1, x1;           /* x1 = nc < 2 ? x0 : x1 */ \
	CMP   $3, nc;                   \
	CSEL  LT, x0, x2, x2;           \
	CMP   $4, nc;                   \
	CSEL  LT, x0, x3, x3;           \
	VEOR  V28.B16, V28.B16, V28.B16

// COL dots the unpacked weight block (a0 with the first 16 activations, a1
// with the last 16) with column xc's next block into V(acc), and puts the
// column's fp16 scale into lane `lane` of V21.
#define COL(DOT32, a0, a1, xc, lane, acc) \
	LOAD_X(xc);               \
	VMOV dx, V21.H[lane];     \
	DOT32(a0, 2, a1, 3, acc)

// ALLCOLS runs COL for the four columns and leaves float32 block sums in
// V20 (lane c = column c) and the float32 activation scales in V21.
#define ALLCOLS(DOT32, a0, a1) \
	COL(DOT32, a0, a1, x0, 0, 16); \
	COL(DOT32, a0, a1, x1, 1, 17); \
	COL(DOT32, a0, a1, x2, 2, 18); \
	COL(DOT32, a0, a1, x3, 3, 19); \
	VADDP V17.S4, V16.S4, V29.S4;  /* V29 = pairwise sums of V16 ++ V17 */ \
	VADDP V19.S4, V18.S4, V30.S4;  \
	VADDP V30.S4, V29.S4, V20.S4;  /* V20[c] = sumi of column c */ \
	SCVTF4S(20, 20);               \
	FCVTL4S(21, 21);               \
	FMOVS  dw, F22;                \
	FCVTHS F22, F22;               \
	VDUP   V22.S[0], V22.S4

// STORE writes lanes 0..nc-1 of V28 to out.
#define STORE(done) \
	FMOVS F28, (outp);       \
	CMP   $2, nc;            \
	BLT   done;              \
	VMOV  V28.S[1], dx;      \
	MOVW  dx, 4(outp);       \
	CMP   $3, nc;            \
	BLT   done;              \
	VMOV  V28.S[2], dx;      \
	MOVW  dx, 8(outp);       \
	CMP   $4, nc;            \
	BLT   done;              \
	VMOV  V28.S[3], dx;      \
	MOVW  dx, 12(outp)

// VECDOTN_Q8_0 is the loop of vecDotNQ8_0NEON/NEONDot.
#define VECDOTN_Q8_0(DOT32, loop, done, ret) \
	COLUMNS;                 \
	CBZ  nblk, done;         \
loop:                        \
	LOAD_Q8_0;               \
	ALLCOLS(DOT32, 0, 1);    \
	FMUL4S(21, 22, 22);      /* dw*dx */ \
	FMUL4S(22, 20, 20);      /* float32(sumi)*(dw*dx) */ \
	FADD4S(20, 28, 28);      \
	SUBS $1, nblk;           \
	BNE  loop;               \
done:                        \
	STORE(ret);              \
ret:

// VECDOTN_Q4_0 is the loop of vecDotNQ4_0NEON/NEONDot.
#define VECDOTN_Q4_0(DOT32, loop, done, ret) \
	COLUMNS;                 \
	VMOVI $15, V8.B16;       \
	VMOVI $8, V9.B16;        \
	CBZ  nblk, done;         \
loop:                        \
	LOAD_Q4_0;               \
	ALLCOLS(DOT32, 1, 0);    \
	FMUL4S(22, 20, 20);      /* float32(sumi)*dw */ \
	FMUL4S(21, 20, 20);      /* (float32(sumi)*dw)*dx */ \
	FADD4S(20, 28, 28);      \
	SUBS $1, nblk;           \
	BNE  loop;               \
done:                        \
	STORE(ret);              \
ret:

// Registers of the q4_1/q5_0/q5_1 kernels, besides the ones above.
#define mw   R12 // fp16 bits of the weight minimum (q4_1, q5_1)
#define sx   R13 // fp16 bits of the activation block sum s (q8_1)
#define qh   R14 // q5: the 32 fifth bits
#define ctmp R5  // constant set-up (sumi is free then)
// V10,V11 byte-broadcast indices, V12 the bit of each byte, V13 = 0x10s
// (q5 high bits); V8 = 15s, V9 = 8s or 16s as above.

// Q5_CONSTS sets V10 = {0 x8, 1 x8}, V11 = {2 x8, 3 x8} (VTBL indices that
// spread qh's four bytes over 32), V12 = {1,2,4,...,128} twice, V13 = 0x10s.
#define Q5_CONSTS \
	MOVD  $0x0101010101010101, ctmp; \
	VMOV  ZR, V10.D[0];              \
	VMOV  ctmp, V10.D[1];            \
	MOVD  $0x0202020202020202, ctmp; \
	VMOV  ctmp, V11.D[0];            \
	MOVD  $0x0303030303030303, ctmp; \
	VMOV  ctmp, V11.D[1];            \
	MOVD  $0x8040201008040201, ctmp; \
	VMOV  ctmp, V12.D[0];            \
	VMOV  ctmp, V12.D[1];            \
	VMOVI $0x10, V13.B16

// Q5_HIGH ors the fifth bits in qh into the nibbles: bit j goes to byte j
// of V1 (values 0..15), bit 16+j to byte j of V0 (values 16..31).
#define Q5_HIGH \
	VMOV   qh, V5.S[0];               \
	VTBL   V10.B16, [V5.B16], V6.B16; /* V6[j] = byte j/8 of qh */ \
	VTBL   V11.B16, [V5.B16], V7.B16; /* V7[j] = byte 2+j/8 of qh */ \
	VCMTST V12.B16, V6.B16, V6.B16;   /* V6[j] = bit j set ? 0xff : 0 */ \
	VCMTST V12.B16, V7.B16, V7.B16;   \
	VAND   V13.B16, V6.B16, V6.B16;   \
	VAND   V13.B16, V7.B16, V7.B16;   \
	VORR   V6.B16, V1.B16, V1.B16;    \
	VORR   V7.B16, V0.B16, V0.B16

// LOAD_Q4_1 reads a q4_1 block: dw, mw, V1 = qs & 15 (values 0..15),
// V0 = qs >> 4 (values 16..31).
#define LOAD_Q4_1 \
	MOVHU.P 2(wp), dw;              \
	MOVHU.P 2(wp), mw;              \
	VLD1.P  16(wp), [V0.B16];       \
	VAND    V8.B16, V0.B16, V1.B16; \
	VUSHR   $4, V0.B16, V0.B16

// LOAD_Q5_0 reads a q5_0 block: dw, V1 and V0 = 5-bit values - 16.
#define LOAD_Q5_0 \
	MOVHU.P 2(wp), dw;              \
	MOVWU.P 4(wp), qh;              \
	VLD1.P  16(wp), [V0.B16];       \
	VAND    V8.B16, V0.B16, V1.B16; \
	VUSHR   $4, V0.B16, V0.B16;     \
	Q5_HIGH;                        \
	VSUB    V9.B16, V1.B16, V1.B16; \
	VSUB    V9.B16, V0.B16, V0.B16

// LOAD_Q5_1 reads a q5_1 block: dw, mw, V1 and V0 = 5-bit values 0..31.
#define LOAD_Q5_1 \
	MOVHU.P 2(wp), dw;              \
	MOVHU.P 2(wp), mw;              \
	MOVWU.P 4(wp), qh;              \
	VLD1.P  16(wp), [V0.B16];       \
	VAND    V8.B16, V0.B16, V1.B16; \
	VUSHR   $4, V0.B16, V0.B16;     \
	Q5_HIGH

// LOAD_X1 reads one q8_1 activation block: dx, sx, V2,V3 = quants.
#define LOAD_X1(xc) \
	MOVHU.P 2(xc), dx; \
	MOVHU.P 2(xc), sx; \
	VLD1.P  32(xc), [V2.B16, V3.B16]

// DXW_BODY is the loop of the q5_0 kernels (as Q8_0_BODY):
// sumf += float32(sumi) * (dw*dx) per block. SETUP runs once.
#define DXW_BODY(SETUP, LOAD, DOT32, loop, done) \
	LSR   $5, nblk;                  \
	SETUP;                           \
	VEOR  V20.B16, V20.B16, V20.B16; \
	CBZ   nblk, done;                \
loop:                                \
	LOAD;                            \
	LOAD_X(xp);                      \
	DOT32(1, 2, 0, 3, 4);            \
	SUMI;                            \
	HALVES;                          \
	FMULS F23, F22, F22;             \
	FMULS F22, F21, F21;             \
	FADDS F21, F20, F20;             \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:

// MIN_BODY is the loop of the q4_1/q5_1 kernels:
// sumf += (float32(sumi)*(dw*dx) + mw*sx) per block, in that order.
#define MIN_BODY(SETUP, LOAD, DOT32, loop, done) \
	LSR   $5, nblk;                  \
	SETUP;                           \
	VEOR  V20.B16, V20.B16, V20.B16; \
	CBZ   nblk, done;                \
loop:                                \
	LOAD;                            \
	LOAD_X1(xp);                     \
	DOT32(1, 2, 0, 3, 4);            \
	SUMI;                            \
	HALVES;                          \
	FMULS  F23, F22, F22;            /* dw*dx */ \
	FMULS  F22, F21, F21;            /* scaled = float32(sumi)*(dw*dx) */ \
	FMOVS  mw, F22;                  \
	FCVTHS F22, F22;                 \
	FMOVS  sx, F23;                  \
	FCVTHS F23, F23;                 \
	FMULS  F23, F22, F22;            /* mw*sx */ \
	FADDS  F22, F21, F21;            \
	FADDS  F21, F20, F20;            \
	SUBS   $1, nblk;                 \
	BNE    loop;                     \
done:

#define SETUP_Q4_1 VMOVI $15, V8.B16
#define SETUP_Q5_0 \
	VMOVI $15, V8.B16; \
	VMOVI $16, V9.B16; \
	Q5_CONSTS
#define SETUP_Q5_1 \
	VMOVI $15, V8.B16; \
	Q5_CONSTS

// COL1 is COL for q8_1 columns: also puts the fp16 s into lane `lane` of
// V23.
#define COL1(DOT32, a0, a1, xc, lane, acc) \
	LOAD_X1(xc);              \
	VMOV dx, V21.H[lane];     \
	VMOV sx, V23.H[lane];     \
	DOT32(a0, 2, a1, 3, acc)

// ALLCOLS1 is ALLCOLS for q8_1 columns; it also leaves the float32 s of
// each column in V23 and the weight minimum in every lane of V31.
#define ALLCOLS1(DOT32, a0, a1) \
	COL1(DOT32, a0, a1, x0, 0, 16); \
	COL1(DOT32, a0, a1, x1, 1, 17); \
	COL1(DOT32, a0, a1, x2, 2, 18); \
	COL1(DOT32, a0, a1, x3, 3, 19); \
	VADDP V17.S4, V16.S4, V29.S4;   \
	VADDP V19.S4, V18.S4, V30.S4;   \
	VADDP V30.S4, V29.S4, V20.S4;   /* V20[c] = sumi of column c */ \
	SCVTF4S(20, 20);                \
	FCVTL4S(21, 21);                \
	FCVTL4S(23, 23);                \
	FMOVS  dw, F22;                 \
	FCVTHS F22, F22;                \
	VDUP   V22.S[0], V22.S4;        \
	FMOVS  mw, F31;                 \
	FCVTHS F31, F31;                \
	VDUP   V31.S[0], V31.S4

// VECDOTN_DXW is the VecDotN loop of the q5_0 kernels (as VECDOTN_Q8_0).
#define VECDOTN_DXW(SETUP, LOAD, DOT32, loop, done, ret) \
	COLUMNS;                 \
	SETUP;                   \
	CBZ  nblk, done;         \
loop:                        \
	LOAD;                    \
	ALLCOLS(DOT32, 1, 0);    \
	FMUL4S(21, 22, 22);      /* dw*dx */ \
	FMUL4S(22, 20, 20);      /* float32(sumi)*(dw*dx) */ \
	FADD4S(20, 28, 28);      \
	SUBS $1, nblk;           \
	BNE  loop;               \
done:                        \
	STORE(ret);              \
ret:

// VECDOTN_MIN is the VecDotN loop of the q4_1/q5_1 kernels, MIN_BODY's
// float steps in four lanes.
#define VECDOTN_MIN(SETUP, LOAD, DOT32, loop, done, ret) \
	COLUMNS;                 \
	SETUP;                   \
	CBZ  nblk, done;         \
loop:                        \
	LOAD;                    \
	ALLCOLS1(DOT32, 1, 0);   \
	FMUL4S(21, 22, 22);      /* dw*dx */ \
	FMUL4S(22, 20, 20);      /* scaled */ \
	FMUL4S(23, 31, 31);      /* mw*sx */ \
	FADD4S(31, 20, 20);      /* scaled + mw*sx */ \
	FADD4S(20, 28, 28);      \
	SUBS $1, nblk;           \
	BNE  loop;               \
done:                        \
	STORE(ret);              \
ret:

// func vecDotQ8_0NEON(n int, w, x []byte) float32
TEXT ·vecDotQ8_0NEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q8_0_BODY(DOT32NEON, vecDotQ8_0NEON_loop, vecDotQ8_0NEON_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ8_0NEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ8_0NEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q8_0_BODY(DOT32SDOT, vecDotQ8_0NEONDot_loop, vecDotQ8_0NEONDot_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ4_0NEON(n int, w, x []byte) float32
TEXT ·vecDotQ4_0NEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q4_0_BODY(DOT32NEON, vecDotQ4_0NEON_loop, vecDotQ4_0NEON_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ4_0NEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ4_0NEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q4_0_BODY(DOT32SDOT, vecDotQ4_0NEONDot_loop, vecDotQ4_0NEONDot_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotNQ8_0NEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ8_0NEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_Q8_0(DOT32NEON, vecDotNQ8_0NEON_loop, vecDotNQ8_0NEON_done, vecDotNQ8_0NEON_ret)
	RET

// func vecDotNQ8_0NEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ8_0NEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_Q8_0(DOT32SDOT, vecDotNQ8_0NEONDot_loop, vecDotNQ8_0NEONDot_done, vecDotNQ8_0NEONDot_ret)
	RET

// func vecDotNQ4_0NEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_0NEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_Q4_0(DOT32NEON, vecDotNQ4_0NEON_loop, vecDotNQ4_0NEON_done, vecDotNQ4_0NEON_ret)
	RET

// func vecDotNQ4_0NEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_0NEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_Q4_0(DOT32SDOT, vecDotNQ4_0NEONDot_loop, vecDotNQ4_0NEONDot_done, vecDotNQ4_0NEONDot_ret)
	RET

// func vecDotQ4_1NEON(n int, w, x []byte) float32
TEXT ·vecDotQ4_1NEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MIN_BODY(SETUP_Q4_1, LOAD_Q4_1, DOT32NEON, vecDotQ4_1NEON_loop, vecDotQ4_1NEON_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ4_1NEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ4_1NEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MIN_BODY(SETUP_Q4_1, LOAD_Q4_1, DOT32SDOT, vecDotQ4_1NEONDot_loop, vecDotQ4_1NEONDot_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotNQ4_1NEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_1NEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_MIN(SETUP_Q4_1, LOAD_Q4_1, DOT32NEON, vecDotNQ4_1NEON_loop, vecDotNQ4_1NEON_done, vecDotNQ4_1NEON_ret)
	RET

// func vecDotNQ4_1NEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_1NEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_MIN(SETUP_Q4_1, LOAD_Q4_1, DOT32SDOT, vecDotNQ4_1NEONDot_loop, vecDotNQ4_1NEONDot_done, vecDotNQ4_1NEONDot_ret)
	RET

// func vecDotQ5_0NEON(n int, w, x []byte) float32
TEXT ·vecDotQ5_0NEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	DXW_BODY(SETUP_Q5_0, LOAD_Q5_0, DOT32NEON, vecDotQ5_0NEON_loop, vecDotQ5_0NEON_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ5_0NEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ5_0NEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	DXW_BODY(SETUP_Q5_0, LOAD_Q5_0, DOT32SDOT, vecDotQ5_0NEONDot_loop, vecDotQ5_0NEONDot_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotNQ5_0NEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_0NEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_DXW(SETUP_Q5_0, LOAD_Q5_0, DOT32NEON, vecDotNQ5_0NEON_loop, vecDotNQ5_0NEON_done, vecDotNQ5_0NEON_ret)
	RET

// func vecDotNQ5_0NEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_0NEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_DXW(SETUP_Q5_0, LOAD_Q5_0, DOT32SDOT, vecDotNQ5_0NEONDot_loop, vecDotNQ5_0NEONDot_done, vecDotNQ5_0NEONDot_ret)
	RET

// func vecDotQ5_1NEON(n int, w, x []byte) float32
TEXT ·vecDotQ5_1NEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MIN_BODY(SETUP_Q5_1, LOAD_Q5_1, DOT32NEON, vecDotQ5_1NEON_loop, vecDotQ5_1NEON_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotQ5_1NEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ5_1NEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MIN_BODY(SETUP_Q5_1, LOAD_Q5_1, DOT32SDOT, vecDotQ5_1NEONDot_loop, vecDotQ5_1NEONDot_done)
	FMOVS F20, ret+56(FP)
	RET

// func vecDotNQ5_1NEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_1NEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_MIN(SETUP_Q5_1, LOAD_Q5_1, DOT32NEON, vecDotNQ5_1NEON_loop, vecDotNQ5_1NEON_done, vecDotNQ5_1NEON_ret)
	RET

// func vecDotNQ5_1NEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_1NEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), x0
	MOVD xStride+56(FP), stride
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	VECDOTN_MIN(SETUP_Q5_1, LOAD_Q5_1, DOT32SDOT, vecDotNQ5_1NEONDot_loop, vecDotNQ5_1NEONDot_done, vecDotNQ5_1NEONDot_ret)
	RET
