//go:build !purego

#include "textflag.h"

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define SDOT(m, n, d)      WORD $(0x4E809400 | ((m)<<16) | ((n)<<5) | (d)) // sdot   Vd.4S, Vn.16B, Vm.16B
#define SMULL8H(m, n, d)   WORD $(0x0E20C000 | ((m)<<16) | ((n)<<5) | (d)) // smull  Vd.8H, Vn.8B, Vm.8B
#define SMULL28H(m, n, d)  WORD $(0x4E20C000 | ((m)<<16) | ((n)<<5) | (d)) // smull2 Vd.8H, Vn.16B, Vm.16B
#define SADDLP4S(n, d)     WORD $(0x4E602800 | ((n)<<5) | (d))             // saddlp Vd.4S, Vn.8H
#define SADALP4S(n, d)     WORD $(0x4E606800 | ((n)<<5) | (d))             // sadalp Vd.4S, Vn.8H
#define MOVI0(d)           WORD $(0x6F00E400 | (d))                        // movi   Vd.2D, #0
#define MUL4S(m, n, d)     WORD $(0x4EA09C00 | ((m)<<16) | ((n)<<5) | (d)) // mul    Vd.4S, Vn.4S, Vm.4S
#define MLA4S(m, n, d)     WORD $(0x4EA09400 | ((m)<<16) | ((n)<<5) | (d)) // mla    Vd.4S, Vn.4S, Vm.4S
#define MLAELEM(m, i, n, d) WORD $(0x6F800000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d)) // mla Vd.4S, Vn.4S, Vm.S[i]
#define SXTL8H(n, d)       WORD $(0x0F08A400 | ((n)<<5) | (d))             // sshll  Vd.8H, Vn.8B, #0
#define SXTL28H(n, d)      WORD $(0x4F08A400 | ((n)<<5) | (d))             // sshll2 Vd.8H, Vn.16B, #0
#define SXTL4S(n, d)       WORD $(0x0F10A400 | ((n)<<5) | (d))             // sshll  Vd.4S, Vn.4H, #0
#define SXTL24S(n, d)      WORD $(0x4F10A400 | ((n)<<5) | (d))             // sshll2 Vd.4S, Vn.8H, #0
#define SCVTF4S(n, d)      WORD $(0x4E21D800 | ((n)<<5) | (d))             // scvtf  Vd.4S, Vn.4S
#define FMUL4S(m, n, d)    WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)    WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(m, n, d)    WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d)) // fsub   Vd.4S, Vn.4S, Vm.4S

// DOT32NEON sets Vd.4S to partial sums (lanes add up to the exact total) of
// the 32 int8 products a0·b0 ++ a1·b1: SMULL widens each product to int16,
// SADDLP/SADALP add neighbouring pairs into int32. Scratch: V24-V27.
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

// DOT16NEON and DOT16SDOT are the 16-product versions (a·b into Vd).
#define DOT16NEON(a, b, d) \
	SMULL8H(b, a, 24);  \
	SMULL28H(b, a, 25); \
	SADDLP4S(24, d);    \
	SADALP4S(25, d)

#define DOT16SDOT(a, b, d) \
	MOVI0(d); \
	SDOT(b, a, d)

// Registers shared by the K-quant kernels.
#define nblk R0  // super-blocks left
#define wp   R1  // weight pointer
#define xp   R2  // activation pointer (column 0)
#define x1   R3  // columns 1-3 of VecDotN (column 0 again when absent)
#define x2   R4
#define x3   R5
#define dw   R6  // fp16 bits of d
#define dmin R7  // fp16 bits of dmin
#define s0   R9  // scales[0:4], [4:8], [8:12] of a q4_K block
#define s1   R10
#define s2   R11
#define t0   R12
#define t1   R13
#define nc   R14 // len(out)
#define outp R15
#define qhp  R19 // q6_K: qh of the current half
#define strd R20 // VecDotN column stride

// Q4K_SCALES reads d, dmin and the packed 6-bit scales and mins of a q4_K
// block (advancing wp to its quants) and widens them to int32 lanes:
// V10 = sc[0:4], V11 = sc[4:8], V12 = min[0:4], V13 = min[4:8]. Bytes
// 0-3 of each word come from ggml's get_scale_min_k4 in four lanes at once:
// sc[0:4] = s0 & 63, min[0:4] = s1 & 63,
// sc[4:8] = (s2 & 15) | (s0 >> 6 & 3) << 4, min[4:8] = (s2 >> 4 & 15) | (s1 >> 6 & 3) << 4.
#define Q4K_SCALES \
	MOVHU.P 2(wp), dw;                 \
	MOVHU.P 2(wp), dmin;               \
	MOVWU.P 4(wp), s0;                 \
	MOVWU.P 4(wp), s1;                 \
	MOVWU.P 4(wp), s2;                 \
	ANDW    $0x3f3f3f3f, s0, t0;       \
	VMOV    t0, V10.S[0];              \
	UBFXW   $6, s0, $26, t0;           /* t0 = s0 >> 6 */ \
	ANDW    $0x03030303, t0, t0;       \
	ANDW    $0x0f0f0f0f, s2, t1;       \
	ORRW    t0<<4, t1, t1;             \
	VMOV    t1, V10.S[1];              \
	ANDW    $0x3f3f3f3f, s1, t0;       \
	VMOV    t0, V12.S[0];              \
	UBFXW   $6, s1, $26, t0;           \
	ANDW    $0x03030303, t0, t0;       \
	UBFXW   $4, s2, $28, t1;           /* t1 = s2 >> 4 */ \
	ANDW    $0x0f0f0f0f, t1, t1;       \
	ORRW    t0<<4, t1, t1;             \
	VMOV    t1, V12.S[1];              \
	VUXTL   V10.B8, V10.H8;            \
	VUXTL2  V10.H8, V11.S4;            \
	VUXTL   V10.H4, V10.S4;            \
	VUXTL   V12.B8, V12.H8;            \
	VUXTL2  V12.H8, V13.S4;            \
	VUXTL   V12.H4, V12.S4

// Q4K_UNPACK reads 32 bytes of q4_K quants: V6,V7 = low nibbles (the
// even sub-block), V0,V1 = high nibbles (the odd one). V8 = 15s.
#define Q4K_UNPACK \
	VLD1.P 32(wp), [V0.B16, V1.B16]; \
	VAND   V8.B16, V0.B16, V6.B16;   \
	VAND   V8.B16, V1.B16, V7.B16;   \
	VUSHR  $4, V0.B16, V0.B16;       \
	VUSHR  $4, V1.B16, V1.B16

// Q4K_COL dots the unpacked pair of sub-blocks with the next 64
// activations of column xc and adds sc_lo*dot_lo + sc_hi*dot_hi to the
// int32 lanes of V(isum); the scales are lanes ilo, ihi of V(sreg).
#define Q4K_COL(DOT32, xc, sreg, ilo, ihi, isum) \
	VLD1.P  64(xc), [V2.B16, V3.B16, V4.B16, V5.B16]; \
	DOT32(6, 2, 7, 3, 20);          \
	DOT32(0, 4, 1, 5, 21);          \
	MLAELEM(sreg, ilo, 20, isum);   \
	MLAELEM(sreg, ihi, 21, isum)

// Q4K_MINS reads column xc's 16 bsums and sets V(m) to int32 lanes summing
// to sum_s min_s * (bsums[2s] + bsums[2s+1]), advancing xc to the next block.
#define Q4K_MINS(xc, m) \
	VLD1.P 32(xc), [V2.H8, V3.H8]; \
	SADDLP4S(2, 2);                \
	SADDLP4S(3, 3);                \
	MUL4S(12, 2, m);               \
	MLA4S(13, 3, m)

// Q4K_BLOCK adds one q4_K super-block to F28 (d*isum terms) and F29
// (-dmin*summ terms), in generic's float order per super-block.
#define Q4K_BLOCK(DOT32) \
	Q4K_SCALES;                               \
	MOVWU.P 4(xp), t0;                        \
	FMOVS   t0, F9;                           /* F9 = x.d */ \
	MOVI0(16);                                \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 10, 0, 1, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 10, 2, 3, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 11, 0, 1, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 11, 2, 3, 16);         \
	Q4K_MINS(xp, 17);                         \
	VADDV   V16.S4, V16;                      \
	VMOV    V16.S[0], t0;                     \
	SCVTFWS t0, F16;                          /* F16 = float32(isum) */ \
	VADDV   V17.S4, V17;                      \
	VMOV    V17.S[0], t0;                     \
	SCVTFWS t0, F17;                          /* F17 = float32(summ) */ \
	FMOVS   dw, F18;                          \
	FCVTHS  F18, F18;                         \
	FMULS   F9, F18, F18;                     /* d = dw*dx */ \
	FMULS   F18, F16, F16;                    \
	FADDS   F16, F28, F28;                    /* accP += d*isum */ \
	FMOVS   dmin, F19;                        \
	FCVTHS  F19, F19;                         \
	FMULS   F9, F19, F19;                     /* dmin*dx */ \
	FMULS   F19, F17, F17;                    \
	FSUBS   F17, F29, F29                     /* accM -= dmin*dx*summ */

// Q4K_LOOP runs Q4K_BLOCK n/256 times and leaves accM + accP in F29.
#define Q4K_LOOP(DOT32, loop, done) \
	LSR   $8, nblk;                 \
	VMOVI $15, V8.B16;              \
	VEOR  V28.B16, V28.B16, V28.B16; \
	VEOR  V29.B16, V29.B16, V29.B16; \
	CBZ   nblk, done;               \
loop:                               \
	Q4K_BLOCK(DOT32);               \
	SUBS  $1, nblk;                 \
	BNE   loop;                     \
done:                               \
	FADDS F28, F29, F29

// Q4KN_BLOCK is Q4K_BLOCK for four columns: lane c of V14 (accP) and V15
// (accM) takes the same float steps as F28/F29 of the one-column kernel.
#define Q4KN_BLOCK(DOT32) \
	Q4K_SCALES;                                   \
	MOVWU.P 4(xp), t0;                            \
	VMOV    t0, V9.S[0];                          \
	MOVWU.P 4(x1), t0;                            \
	VMOV    t0, V9.S[1];                          \
	MOVWU.P 4(x2), t0;                            \
	VMOV    t0, V9.S[2];                          \
	MOVWU.P 4(x3), t0;                            \
	VMOV    t0, V9.S[3];                          /* V9[c] = x_c.d */ \
	MOVI0(16); MOVI0(17); MOVI0(18); MOVI0(19);   \
	Q4K_UNPACK;                                   \
	Q4K_COL(DOT32, xp, 10, 0, 1, 16); Q4K_COL(DOT32, x1, 10, 0, 1, 17); \
	Q4K_COL(DOT32, x2, 10, 0, 1, 18); Q4K_COL(DOT32, x3, 10, 0, 1, 19); \
	Q4K_UNPACK;                                   \
	Q4K_COL(DOT32, xp, 10, 2, 3, 16); Q4K_COL(DOT32, x1, 10, 2, 3, 17); \
	Q4K_COL(DOT32, x2, 10, 2, 3, 18); Q4K_COL(DOT32, x3, 10, 2, 3, 19); \
	Q4K_UNPACK;                                   \
	Q4K_COL(DOT32, xp, 11, 0, 1, 16); Q4K_COL(DOT32, x1, 11, 0, 1, 17); \
	Q4K_COL(DOT32, x2, 11, 0, 1, 18); Q4K_COL(DOT32, x3, 11, 0, 1, 19); \
	Q4K_UNPACK;                                   \
	Q4K_COL(DOT32, xp, 11, 2, 3, 16); Q4K_COL(DOT32, x1, 11, 2, 3, 17); \
	Q4K_COL(DOT32, x2, 11, 2, 3, 18); Q4K_COL(DOT32, x3, 11, 2, 3, 19); \
	Q4K_MINS(xp, 28); Q4K_MINS(x1, 29); Q4K_MINS(x2, 30); Q4K_MINS(x3, 31); \
	VADDP   V17.S4, V16.S4, V0.S4;                \
	VADDP   V19.S4, V18.S4, V1.S4;                \
	VADDP   V1.S4, V0.S4, V0.S4;                  /* V0[c] = isum of column c */ \
	VADDP   V29.S4, V28.S4, V1.S4;                \
	VADDP   V31.S4, V30.S4, V2.S4;                \
	VADDP   V2.S4, V1.S4, V1.S4;                  /* V1[c] = summ of column c */ \
	SCVTF4S(0, 0);                                \
	SCVTF4S(1, 1);                                \
	FMOVS   dw, F4;                               \
	FCVTHS  F4, F4;                               \
	VDUP    V4.S[0], V4.S4;                       \
	FMUL4S(9, 4, 4);                              /* d = dw*dx */ \
	FMUL4S(4, 0, 0);                              \
	FADD4S(0, 14, 14);                            /* accP += d*isum */ \
	FMOVS   dmin, F5;                             \
	FCVTHS  F5, F5;                               \
	VDUP    V5.S[0], V5.S4;                       \
	FMUL4S(9, 5, 5);                              \
	FMUL4S(5, 1, 1);                              \
	FSUB4S(1, 15, 15)                             /* accM -= dmin*dx*summ */

// COLUMNS points x1..x3 at columns 1..3, or at column 0 past len(out).
#define COLUMNS \
	ADD  strd, xp, x1;     \
	ADD  strd, x1, x2;     \
	ADD  strd, x2, x3;     \
	CMP  $2, nc;           \
	CSEL LT, xp, x1, x1;   /* x1 = nc < 2 ? xp : x1 */ \
	CMP  $3, nc;           \
	CSEL LT, xp, x2, x2;   \
	CMP  $4, nc;           \
	CSEL LT, xp, x3, x3

// STORE writes lanes 0..nc-1 of V28 to out.
#define STORE(done) \
	FMOVS F28, (outp);  \
	CMP   $2, nc;       \
	BLT   done;         \
	VMOV  V28.S[1], t0; \
	MOVW  t0, 4(outp);  \
	CMP   $3, nc;       \
	BLT   done;         \
	VMOV  V28.S[2], t0; \
	MOVW  t0, 8(outp);  \
	CMP   $4, nc;       \
	BLT   done;         \
	VMOV  V28.S[3], t0; \
	MOVW  t0, 12(outp)

// Q4KN_LOOP runs Q4KN_BLOCK n/256 times, stores accM + accP and returns.
#define Q4KN_LOOP(DOT32, loop, done, ret) \
	LSR   $8, nblk;                 \
	COLUMNS;                        \
	VMOVI $15, V8.B16;              \
	VEOR  V14.B16, V14.B16, V14.B16; \
	VEOR  V15.B16, V15.B16, V15.B16; \
	CBZ   nblk, done;               \
loop:                               \
	Q4KN_BLOCK(DOT32);              \
	SUBS  $1, nblk;                 \
	BNE   loop;                     \
done:                               \
	FADD4S(14, 15, 28);             \
	STORE(ret);                     \
ret:

// q6_K: the 8 sub-blocks of 16 in one half (128 values) are built from
// ql (V0-V3, 64 bytes) and qh (V4,V5, 32 bytes) as
//   k = 0..3: (ql[16k:] & 15)  | (qh[16(k%2):] << (4 - 2(k/2)) & 0x30)
//   k = 4..7: (ql[16(k-4):] >> 4) | (qh[16(k%2):] >> 2(k/2-2) & 0x30)
// minus 32. V8 = 15s, V9 = 0x30s, V15 = 32s; the value goes to V6.
#define NIBLO(ql) VAND V8.B16, ql, V6.B16
#define NIBHI(ql) VUSHR $4, ql, V6.B16
#define HISHL(qh, sh) \
	VSHL $sh, qh, V7.B16; \
	VAND V9.B16, V7.B16, V7.B16
#define HIAND(qh) VAND V9.B16, qh, V7.B16
#define HISHR(qh) \
	VUSHR $2, qh, V7.B16; \
	VAND  V9.B16, V7.B16, V7.B16

// Q6_SUB finishes the sub-block value in V6, dots it with the next 16
// activations and adds scale * dot (scale = lane i of V(sreg)) to V16.
#define Q6_SUB(DOT16, sreg, i) \
	VORR   V7.B16, V6.B16, V6.B16; \
	VSUB   V15.B16, V6.B16, V6.B16; \
	VLD1.P 16(xp), [V14.B16];      \
	DOT16(6, 14, 20);              \
	MLAELEM(sreg, i, 20, 16)

// Q6_HALF does one 128-value half; its scales are V(sa) (sub-blocks 0-3)
// and V(sb) (4-7).
#define Q6_HALF(DOT16, sa, sb) \
	VLD1.P 64(t1), [V0.B16, V1.B16, V2.B16, V3.B16]; \
	VLD1.P 32(qhp), [V4.B16, V5.B16];              \
	NIBLO(V0.B16); HISHL(V4.B16, 4); Q6_SUB(DOT16, sa, 0); \
	NIBLO(V1.B16); HISHL(V5.B16, 4); Q6_SUB(DOT16, sa, 1); \
	NIBLO(V2.B16); HISHL(V4.B16, 2); Q6_SUB(DOT16, sa, 2); \
	NIBLO(V3.B16); HISHL(V5.B16, 2); Q6_SUB(DOT16, sa, 3); \
	NIBHI(V0.B16); HIAND(V4.B16);    Q6_SUB(DOT16, sb, 0); \
	NIBHI(V1.B16); HIAND(V5.B16);    Q6_SUB(DOT16, sb, 1); \
	NIBHI(V2.B16); HISHR(V4.B16);    Q6_SUB(DOT16, sb, 2); \
	NIBHI(V3.B16); HISHR(V5.B16);    Q6_SUB(DOT16, sb, 3)

// Q6K_BLOCK adds one q6_K super-block to F28: d*dx*isum with
// isum = sum_s scale_s * dot(q_s - 32, x_s).
#define Q6K_BLOCK(DOT16) \
	ADD     $192, wp, t0;            \
	VLD1    (t0), [V10.B16];         /* the 16 int8 scales */ \
	SXTL8H(10, 12);                  \
	SXTL28H(10, 13);                 \
	SXTL4S(12, 10);                  \
	SXTL24S(12, 11);                 \
	SXTL4S(13, 12);                  \
	SXTL24S(13, 13);                 /* V10..V13 = scales 0-3 .. 12-15 */ \
	MOVHU   208(wp), dw;             \
	MOVD    wp, t1;                  /* t1 = ql */ \
	ADD     $128, wp, qhp;           \
	MOVWU.P 4(xp), t0;               \
	FMOVS   t0, F17;                 /* F17 = x.d (V9 holds 0x30s) */ \
	MOVI0(16);                       \
	Q6_HALF(DOT16, 10, 11);          \
	Q6_HALF(DOT16, 12, 13);          \
	ADD     $210, wp;                \
	ADD     $32, xp;                 /* skip bsums */ \
	VADDV   V16.S4, V16;             \
	VMOV    V16.S[0], t0;            \
	SCVTFWS t0, F16;                 \
	FMOVS   dw, F18;                 \
	FCVTHS  F18, F18;                \
	FMULS   F17, F18, F18;            /* d = dw*dx */ \
	FMULS   F18, F16, F16;           \
	FADDS   F16, F28, F28

// Q6K_LOOP runs Q6K_BLOCK n/256 times, leaving the sum in F28.
#define Q6K_LOOP(DOT16, loop, done) \
	LSR   $8, nblk;                  \
	VMOVI $15, V8.B16;               \
	VMOVI $0x30, V9.B16;             \
	VMOVI $32, V15.B16;              \
	VEOR  V28.B16, V28.B16, V28.B16; \
	CBZ   nblk, done;                \
loop:                                \
	Q6K_BLOCK(DOT16);                \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:

// func vecDotQ4_KNEON(n int, w, x []byte) float32
TEXT ·vecDotQ4_KNEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q4K_LOOP(DOT32NEON, vecDotQ4_KNEON_loop, vecDotQ4_KNEON_done)
	FMOVS F29, ret+56(FP)
	RET

// func vecDotQ4_KNEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ4_KNEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q4K_LOOP(DOT32SDOT, vecDotQ4_KNEONDot_loop, vecDotQ4_KNEONDot_done)
	FMOVS F29, ret+56(FP)
	RET

// func vecDotNQ4_KNEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_KNEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q4KN_LOOP(DOT32NEON, vecDotNQ4_KNEON_loop, vecDotNQ4_KNEON_done, vecDotNQ4_KNEON_ret)
	RET

// func vecDotNQ4_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q4KN_LOOP(DOT32SDOT, vecDotNQ4_KNEONDot_loop, vecDotNQ4_KNEONDot_done, vecDotNQ4_KNEONDot_ret)
	RET

// func vecDotQ6_KNEON(n int, w, x []byte) float32
TEXT ·vecDotQ6_KNEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q6K_LOOP(DOT16NEON, vecDotQ6_KNEON_loop, vecDotQ6_KNEON_done)
	FMOVS F28, ret+56(FP)
	RET

// func vecDotQ6_KNEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ6_KNEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q6K_LOOP(DOT16SDOT, vecDotQ6_KNEONDot_loop, vecDotQ6_KNEONDot_done)
	FMOVS F28, ret+56(FP)
	RET
