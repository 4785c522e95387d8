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
#define SMULL4S(m, n, d)   WORD $(0x0E60C000 | ((m)<<16) | ((n)<<5) | (d)) // smull  Vd.4S, Vn.4H, Vm.4H
#define SMLAL4S(m, n, d)   WORD $(0x0E608000 | ((m)<<16) | ((n)<<5) | (d)) // smlal  Vd.4S, Vn.4H, Vm.4H
#define SMLAL24S(m, n, d)  WORD $(0x4E608000 | ((m)<<16) | ((n)<<5) | (d)) // smlal2 Vd.4S, Vn.8H, Vm.8H
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

// Q4K_HEAD starts a q4_K/q5_K super-block: scales and mins (Q4K_SCALES),
// F9 = x.d, V16 = 0.
#define Q4K_HEAD \
	Q4K_SCALES;                               \
	MOVWU.P 4(xp), t0;                        \
	FMOVS   t0, F9;                           /* F9 = x.d */ \
	MOVI0(16)

// Q4K_BLOCK adds one q4_K super-block to F28 (d*isum terms) and F29
// (-dmin*summ terms), in generic's float order per super-block.
#define Q4K_BLOCK(DOT32) \
	Q4K_HEAD;                                 \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 10, 0, 1, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 10, 2, 3, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 11, 0, 1, 16);         \
	Q4K_UNPACK;                               \
	Q4K_COL(DOT32, xp, 11, 2, 3, 16);         \
	Q4K_TAIL

// Q4K_TAIL ends a q4_K/q5_K super-block: the mins through the bsums, then
// the float steps.
#define Q4K_TAIL \
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

// Q4KN_HEAD starts a super-block of the four-column kernels: scales and
// mins, V9[c] = x_c.d, V16..V19 = 0.
#define Q4KN_HEAD \
	Q4K_SCALES;                                   \
	MOVWU.P 4(xp), t0;                            \
	VMOV    t0, V9.S[0];                          \
	MOVWU.P 4(x1), t0;                            \
	VMOV    t0, V9.S[1];                          \
	MOVWU.P 4(x2), t0;                            \
	VMOV    t0, V9.S[2];                          \
	MOVWU.P 4(x3), t0;                            \
	VMOV    t0, V9.S[3];                          /* V9[c] = x_c.d */ \
	MOVI0(16); MOVI0(17); MOVI0(18); MOVI0(19)

// Q4KN_PAIR dots the unpacked pair of sub-blocks with the four columns.
#define Q4KN_PAIR(DOT32, sreg, ilo, ihi) \
	Q4K_COL(DOT32, xp, sreg, ilo, ihi, 16); Q4K_COL(DOT32, x1, sreg, ilo, ihi, 17); \
	Q4K_COL(DOT32, x2, sreg, ilo, ihi, 18); Q4K_COL(DOT32, x3, sreg, ilo, ihi, 19)

// Q4KN_BLOCK is Q4K_BLOCK for four columns: lane c of V14 (accP) and V15
// (accM) takes the same float steps as F28/F29 of the one-column kernel.
#define Q4KN_BLOCK(DOT32) \
	Q4KN_HEAD;                                    \
	Q4K_UNPACK; Q4KN_PAIR(DOT32, 10, 0, 1);       \
	Q4K_UNPACK; Q4KN_PAIR(DOT32, 10, 2, 3);       \
	Q4K_UNPACK; Q4KN_PAIR(DOT32, 11, 0, 1);       \
	Q4K_UNPACK; Q4KN_PAIR(DOT32, 11, 2, 3);       \
	Q4KN_TAIL

// Q5KN_BLOCK is Q5K_BLOCK for four columns. V14,V15 hold the accumulators
// here, so qh lives in V22,V23 and the 1s and 2s in V28,V29 (free until
// Q4KN_TAIL's mins).
#define Q5KN_BLOCK(DOT32) \
	Q4KN_HEAD;                                    \
	VLD1.P  32(wp), [V22.B16, V23.B16];           /* qh */ \
	VMOVI   $1, V28.B16;                          \
	VMOVI   $2, V29.B16;                          \
	Q4K_UNPACK; Q5K_HIGH(V22.B16, V23.B16, V28.B16, V29.B16); Q4KN_PAIR(DOT32, 10, 0, 1); \
	Q4K_UNPACK; Q5K_HIGH(V22.B16, V23.B16, V28.B16, V29.B16); Q4KN_PAIR(DOT32, 10, 2, 3); \
	Q4K_UNPACK; Q5K_HIGH(V22.B16, V23.B16, V28.B16, V29.B16); Q4KN_PAIR(DOT32, 11, 0, 1); \
	Q4K_UNPACK; Q5K_HIGH(V22.B16, V23.B16, V28.B16, V29.B16); Q4KN_PAIR(DOT32, 11, 2, 3); \
	Q4KN_TAIL

// Q4KN_TAIL ends a four-column super-block: mins, then the float steps.
#define Q4KN_TAIL \
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

// KN_LOOP runs BLOCK (Q4KN_BLOCK or Q5KN_BLOCK) n/256 times, stores
// accM + accP and returns.
#define KN_LOOP(BLOCK, DOT32, loop, done, ret) \
	LSR   $8, nblk;                 \
	COLUMNS;                        \
	VMOVI $15, V8.B16;              \
	VEOR  V14.B16, V14.B16, V14.B16; \
	VEOR  V15.B16, V15.B16, V15.B16; \
	CBZ   nblk, done;               \
loop:                               \
	BLOCK(DOT32);                   \
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
	SCALES16;                        /* V10..V13 = scales 0-3 .. 12-15 */ \
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

// q5_K is q4_K with a fifth bit per value: qh (32 bytes, after the
// scales) holds in bit s of byte l the high bit of value l of sub-block s.
// Q5K_HIGH ors bit 0 (even sub-block, V6,V7) and bit 1 (odd one, V0,V1) of
// qa,qb = qh in as 0x10 and shifts qh right by 2 for the next pair.
// one = 1s, two = 2s; V30,V31 scratch.
#define Q5K_HIGH(qa, qb, one, two) \
	VAND  one, qa, V30.B16;        \
	VSHL  $4, V30.B16, V30.B16;    \
	VORR  V30.B16, V6.B16, V6.B16; \
	VAND  one, qb, V31.B16;        \
	VSHL  $4, V31.B16, V31.B16;    \
	VORR  V31.B16, V7.B16, V7.B16; \
	VAND  two, qa, V30.B16;        \
	VSHL  $3, V30.B16, V30.B16;    \
	VORR  V30.B16, V0.B16, V0.B16; \
	VAND  two, qb, V31.B16;        \
	VSHL  $3, V31.B16, V31.B16;    \
	VORR  V31.B16, V1.B16, V1.B16; \
	VUSHR $2, qa, qa;              \
	VUSHR $2, qb, qb

// Q5K_BLOCK is Q4K_BLOCK for a q5_K super-block (176 bytes).
#define Q5K_BLOCK(DOT32) \
	Q4K_HEAD;                                 \
	VLD1.P  32(wp), [V14.B16, V15.B16];       /* qh */ \
	Q4K_UNPACK; Q5K_HIGH(V14.B16, V15.B16, V22.B16, V23.B16);                    \
	Q4K_COL(DOT32, xp, 10, 0, 1, 16);         \
	Q4K_UNPACK; Q5K_HIGH(V14.B16, V15.B16, V22.B16, V23.B16);                    \
	Q4K_COL(DOT32, xp, 10, 2, 3, 16);         \
	Q4K_UNPACK; Q5K_HIGH(V14.B16, V15.B16, V22.B16, V23.B16);                    \
	Q4K_COL(DOT32, xp, 11, 0, 1, 16);         \
	Q4K_UNPACK; Q5K_HIGH(V14.B16, V15.B16, V22.B16, V23.B16);                    \
	Q4K_COL(DOT32, xp, 11, 2, 3, 16);         \
	Q4K_TAIL

// Q5K_LOOP runs Q5K_BLOCK n/256 times and leaves accM + accP in F29.
#define Q5K_LOOP(DOT32, loop, done) \
	LSR   $8, nblk;                 \
	VMOVI $15, V8.B16;              \
	VMOVI $1, V22.B16;              \
	VMOVI $2, V23.B16;              \
	VEOR  V28.B16, V28.B16, V28.B16; \
	VEOR  V29.B16, V29.B16, V29.B16; \
	CBZ   nblk, done;               \
loop:                               \
	Q5K_BLOCK(DOT32);               \
	SUBS  $1, nblk;                 \
	BNE   loop;                     \
done:                               \
	FADDS F28, F29, F29

// q2_K and q3_K: value i = 128h + 32j + l of a super-block is
// (qs[32h+l] >> 2j) & 3 (q3_K: | hmask bit 4h+j of byte l << 2, minus 4),
// in sub-block 8h + 2j + l/16. A "group" is one (h, j): V0,V1 hold
// qs[32h:32h+32] shifted right by 2j, V14,V15 (q3_K) hmask >> (4h+j).
// The 16 sub-block scales are int32 lanes of V10..V13. V8 = 3s.

// Q2_GROUP unpacks the next group into V6,V7 and runs DOTM (Q23_DOT or
// Q23N_DOT) on it.
#define Q2_GROUP(DOTM, DOT16, sreg, i0, i1) \
	VAND   V8.B16, V0.B16, V6.B16;    \
	VAND   V8.B16, V1.B16, V7.B16;    \
	VUSHR  $2, V0.B16, V0.B16;        \
	VUSHR  $2, V1.B16, V1.B16;        \
	DOTM(DOT16, sreg, i0, i1)

// Q3_GROUP is Q2_GROUP with the q3_K high bit (V23 = 1s, V9 = 4s).
#define Q3_GROUP(DOTM, DOT16, sreg, i0, i1) \
	VAND   V8.B16, V0.B16, V6.B16;    \
	VAND   V8.B16, V1.B16, V7.B16;    \
	VUSHR  $2, V0.B16, V0.B16;        \
	VUSHR  $2, V1.B16, V1.B16;        \
	VAND   V23.B16, V14.B16, V30.B16; \
	VSHL   $2, V30.B16, V30.B16;      \
	VORR   V30.B16, V6.B16, V6.B16;   /* q |= hbit << 2 */ \
	VAND   V23.B16, V15.B16, V31.B16; \
	VSHL   $2, V31.B16, V31.B16;      \
	VORR   V31.B16, V7.B16, V7.B16;   \
	VUSHR  $1, V14.B16, V14.B16;      \
	VUSHR  $1, V15.B16, V15.B16;      \
	VSUB   V9.B16, V6.B16, V6.B16;    /* q - 4 */ \
	VSUB   V9.B16, V7.B16, V7.B16;    \
	DOTM(DOT16, sreg, i0, i1)

// Q23_DOT: V16 += scale_i0 * dot(V6, x[0:16]) + scale_i1 * dot(V7, x[16:32]).
#define Q23_DOT(DOT16, sreg, i0, i1) \
	VLD1.P 32(xp), [V2.B16, V3.B16];  \
	DOT16(6, 2, 20);                  \
	DOT16(7, 3, 21);                  \
	MLAELEM(sreg, i0, 20, 16);        \
	MLAELEM(sreg, i1, 21, 16)

// Q23_HALF runs the four groups of one half; its scales are V(sa) (first
// two groups) and V(sb).
#define Q23_HALF(GROUP, DOTM, DOT16, sa, sb) \
	VLD1.P 32(t1), [V0.B16, V1.B16]; \
	GROUP(DOTM, DOT16, sa, 0, 1);    \
	GROUP(DOTM, DOT16, sa, 2, 3);    \
	GROUP(DOTM, DOT16, sb, 0, 1);    \
	GROUP(DOTM, DOT16, sb, 2, 3)

// Q23N_DOT is Q23_DOT for four columns: V(16+c) += the two scaled dots of
// column c (xp, x1, x2, x3).
#define Q23N_DOT(DOT16, sreg, i0, i1) \
	Q23N_COL(DOT16, xp, sreg, i0, i1, 16); \
	Q23N_COL(DOT16, x1, sreg, i0, i1, 17); \
	Q23N_COL(DOT16, x2, sreg, i0, i1, 18); \
	Q23N_COL(DOT16, x3, sreg, i0, i1, 19)

#define Q23N_COL(DOT16, xc, sreg, i0, i1, isum) \
	VLD1.P 32(xc), [V2.B16, V3.B16];  \
	DOT16(6, 2, 20);                  \
	DOT16(7, 3, 21);                  \
	MLAELEM(sreg, i0, 20, isum);      \
	MLAELEM(sreg, i1, 21, isum)

// SCALES16 widens the 16 int8 scales in V10 to int32 lanes V10..V13.
#define SCALES16 \
	SXTL8H(10, 12);  \
	SXTL28H(10, 13); \
	SXTL4S(12, 10);  \
	SXTL24S(12, 11); \
	SXTL4S(13, 12);  \
	SXTL24S(13, 13)

// Q2K_HEAD reads a q2_K super-block's header: V10..V13 = the scales as
// int32, V15,V14 = mins 0-7, 8-15 as int16, dw, dmin, t1 = qs.
#define Q2K_HEAD \
	VLD1    (wp), [V10.B16];          /* the 16 scale bytes */ \
	VUSHR   $4, V10.B16, V14.B16;     /* mins */ \
	VAND    V9.B16, V10.B16, V10.B16; /* scales (V9 = 15s) */ \
	SCALES16;                         \
	VUXTL   V14.B8, V15.H8;           /* mins 0-7 as int16 */ \
	VUXTL2  V14.B16, V14.H8;          /* mins 8-15 */ \
	MOVHU   80(wp), dw;               \
	MOVHU   82(wp), dmin;             \
	ADD     $16, wp, t1               /* t1 = qs */

// Q2K_BLOCK adds one q2_K super-block (84 bytes) to F28 exactly as
// vecDotQ2_KQ8_KGeneric does: isum = sum_s (sc_s & 15) * dot_s and
// summs = sum_s (sc_s >> 4) * bsums[s] are exact, then
// sumf += float32(dall*isum) - float32(dmin*summs).
#define Q2K_BLOCK(DOT16) \
	Q2K_HEAD;                         \
	MOVWU.P 4(xp), t0;                \
	FMOVS   t0, F23;                  /* F23 = x.d */ \
	MOVI0(16);                        \
	Q23_HALF(Q2_GROUP, Q23_DOT, DOT16, 10, 11); \
	Q23_HALF(Q2_GROUP, Q23_DOT, DOT16, 12, 13); \
	VLD1.P  32(xp), [V2.H8, V3.H8];   /* bsums */ \
	SMULL4S(15, 2, 17);               /* V17 = bsums[0:4]*mins[0:4] */ \
	SMLAL24S(15, 2, 17);              \
	SMLAL4S(14, 3, 17);               \
	SMLAL24S(14, 3, 17);              /* lanes of V17 add up to summs */ \
	ADD     $84, wp;                  \
	VADDV   V16.S4, V16;              \
	VMOV    V16.S[0], t0;             \
	SCVTFWS t0, F16;                  /* float32(isum) */ \
	VADDV   V17.S4, V17;              \
	VMOV    V17.S[0], t0;             \
	SCVTFWS t0, F19;                  /* float32(summs) */ \
	FMOVS   dw, F18;                  \
	FCVTHS  F18, F18;                 \
	FMULS   F23, F18, F18;            /* dall = dx*dw */ \
	FMULS   F18, F16, F16;            /* dall*isum */ \
	FMOVS   dmin, F18;                \
	FCVTHS  F18, F18;                 \
	FMULS   F23, F18, F18;            /* dmin = dx*dminw */ \
	FMULS   F18, F19, F19;            /* dmin*summs */ \
	FSUBS   F19, F16, F16;            \
	FADDS   F16, F28, F28

// Q2K_LOOP runs Q2K_BLOCK n/256 times, leaving the sum in F28.
#define Q2K_LOOP(DOT16, loop, done) \
	LSR   $8, nblk;                  \
	VMOVI $3, V8.B16;                \
	VMOVI $15, V9.B16;               \
	VEOR  V28.B16, V28.B16, V28.B16; \
	CBZ   nblk, done;                \
loop:                                \
	Q2K_BLOCK(DOT16);                \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:

// Q3K_SCALES unpacks the 12 scale bytes at wp+96 (words s0, s1, s2) into
// 16 int8 scales minus 32 in V10 (ggml's kmask1/kmask2 unpacking):
// sc[0:4] = s0&0x0f.. | (s2&3)<<4, sc[4:8] = s1&0x0f.. | (s2>>2&3)<<4,
// sc[8:12] = s0>>4&0x0f.. | (s2>>4&3)<<4, sc[12:16] = s1>>4&0x0f.. | (s2>>6&3)<<4.
#define Q3K_SCALES \
	MOVWU 96(wp), s0;              \
	MOVWU 100(wp), s1;             \
	MOVWU 104(wp), s2;             \
	ANDW  $0x0f0f0f0f, s0, t0;     \
	ANDW  $0x03030303, s2, t1;     \
	ORRW  t1<<4, t0, t0;           \
	VMOV  t0, V10.S[0];            \
	ANDW  $0x0f0f0f0f, s1, t0;     \
	LSRW  $2, s2, t1;              \
	ANDW  $0x03030303, t1, t1;     \
	ORRW  t1<<4, t0, t0;           \
	VMOV  t0, V10.S[1];            \
	LSRW  $4, s0, t0;              \
	ANDW  $0x0f0f0f0f, t0, t0;     \
	LSRW  $4, s2, t1;              \
	ANDW  $0x03030303, t1, t1;     \
	ORRW  t1<<4, t0, t0;           \
	VMOV  t0, V10.S[2];            \
	LSRW  $4, s1, t0;              \
	ANDW  $0x0f0f0f0f, t0, t0;     \
	LSRW  $6, s2, t1;              \
	ANDW  $0x03030303, t1, t1;     \
	ORRW  t1<<4, t0, t0;           \
	VMOV  t0, V10.S[3];            \
	VSUB  V22.B16, V10.B16, V10.B16 /* V22 = 32s */

// Q3K_HEAD reads a q3_K super-block's header: V10..V13 = the scales as
// int32, V14,V15 = hmask, dw, t1 = qs.
#define Q3K_HEAD \
	Q3K_SCALES;                       \
	SCALES16;                         \
	VLD1    (wp), [V14.B16, V15.B16]; /* hmask */ \
	MOVHU   108(wp), dw;              \
	ADD     $32, wp, t1               /* t1 = qs */

// Q3K_BLOCK adds one q3_K super-block (110 bytes) to F28:
// sumf += (d*dx) * float32(isum), isum = sum_s scale_s * dot(q3_s, x_s).
#define Q3K_BLOCK(DOT16) \
	Q3K_HEAD;                         \
	MOVWU.P 4(xp), t0;                \
	FMOVS   t0, F17;                  /* F17 = x.d */ \
	MOVI0(16);                        \
	Q23_HALF(Q3_GROUP, Q23_DOT, DOT16, 10, 11); \
	Q23_HALF(Q3_GROUP, Q23_DOT, DOT16, 12, 13); \
	ADD     $32, xp;                  /* skip bsums */ \
	ADD     $110, wp;                 \
	VADDV   V16.S4, V16;              \
	VMOV    V16.S[0], t0;             \
	SCVTFWS t0, F16;                  \
	FMOVS   dw, F18;                  \
	FCVTHS  F18, F18;                 \
	FMULS   F17, F18, F18;            /* d = dw*dx */ \
	FMULS   F18, F16, F16;            \
	FADDS   F16, F28, F28

// Q3K_LOOP runs Q3K_BLOCK n/256 times, leaving the sum in F28.
#define Q3K_LOOP(DOT16, loop, done) \
	LSR   $8, nblk;                  \
	VMOVI $3, V8.B16;                \
	VMOVI $4, V9.B16;                \
	VMOVI $32, V22.B16;              \
	VMOVI $1, V23.B16;               \
	VEOR  V28.B16, V28.B16, V28.B16; \
	CBZ   nblk, done;                \
loop:                                \
	Q3K_BLOCK(DOT16);                \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:

// Q6N_SUB is Q6_SUB for four columns: the sub-block value in V6 is dotted
// with the next 16 activations of xp, x1, x2, x3 into V16..V19.
#define Q6N_SUB(DOT16, sreg, i) \
	VORR   V7.B16, V6.B16, V6.B16;  \
	VSUB   V15.B16, V6.B16, V6.B16; \
	VLD1.P 16(xp), [V14.B16];       \
	DOT16(6, 14, 20);               \
	MLAELEM(sreg, i, 20, 16);       \
	VLD1.P 16(x1), [V14.B16];       \
	DOT16(6, 14, 20);               \
	MLAELEM(sreg, i, 20, 17);       \
	VLD1.P 16(x2), [V14.B16];       \
	DOT16(6, 14, 20);               \
	MLAELEM(sreg, i, 20, 18);       \
	VLD1.P 16(x3), [V14.B16];       \
	DOT16(6, 14, 20);               \
	MLAELEM(sreg, i, 20, 19)

// Q6N_HALF is Q6_HALF for four columns.
#define Q6N_HALF(DOT16, sa, sb) \
	VLD1.P 64(t1), [V0.B16, V1.B16, V2.B16, V3.B16]; \
	VLD1.P 32(qhp), [V4.B16, V5.B16];              \
	NIBLO(V0.B16); HISHL(V4.B16, 4); Q6N_SUB(DOT16, sa, 0); \
	NIBLO(V1.B16); HISHL(V5.B16, 4); Q6N_SUB(DOT16, sa, 1); \
	NIBLO(V2.B16); HISHL(V4.B16, 2); Q6N_SUB(DOT16, sa, 2); \
	NIBLO(V3.B16); HISHL(V5.B16, 2); Q6N_SUB(DOT16, sa, 3); \
	NIBHI(V0.B16); HIAND(V4.B16);    Q6N_SUB(DOT16, sb, 0); \
	NIBHI(V1.B16); HIAND(V5.B16);    Q6N_SUB(DOT16, sb, 1); \
	NIBHI(V2.B16); HISHR(V4.B16);    Q6N_SUB(DOT16, sb, 2); \
	NIBHI(V3.B16); HISHR(V5.B16);    Q6N_SUB(DOT16, sb, 3)

// Q6KN_BLOCK is Q6K_BLOCK for four columns: lane c of V28 takes the float
// steps of F28 in the one-column kernel.
#define Q6KN_BLOCK(DOT16) \
	ADD     $192, wp, t0;            \
	VLD1    (t0), [V10.B16];         \
	SCALES16;                        \
	MOVHU   208(wp), dw;             \
	MOVD    wp, t1;                  \
	ADD     $128, wp, qhp;           \
	MOVWU.P 4(xp), t0;               \
	VMOV    t0, V21.S[0];            \
	MOVWU.P 4(x1), t0;               \
	VMOV    t0, V21.S[1];            \
	MOVWU.P 4(x2), t0;               \
	VMOV    t0, V21.S[2];            \
	MOVWU.P 4(x3), t0;               \
	VMOV    t0, V21.S[3];            /* V21[c] = x_c.d */ \
	MOVI0(16); MOVI0(17); MOVI0(18); MOVI0(19); \
	Q6N_HALF(DOT16, 10, 11);         \
	Q6N_HALF(DOT16, 12, 13);         \
	ADD     $210, wp;                \
	ADD     $32, xp;                 \
	ADD     $32, x1;                 \
	ADD     $32, x2;                 \
	ADD     $32, x3;                 \
	VADDP   V17.S4, V16.S4, V22.S4;  \
	VADDP   V19.S4, V18.S4, V23.S4;  \
	VADDP   V23.S4, V22.S4, V22.S4;  /* V22[c] = isum of column c */ \
	SCVTF4S(22, 22);                 \
	FMOVS   dw, F23;                 \
	FCVTHS  F23, F23;                \
	VDUP    V23.S[0], V23.S4;        \
	FMUL4S(21, 23, 23);              /* d = dw*dx */ \
	FMUL4S(23, 22, 22);              \
	FADD4S(22, 28, 28)

// Q6KN_LOOP runs Q6KN_BLOCK n/256 times, stores the sums and returns.
#define Q6KN_LOOP(DOT16, loop, done, ret) \
	LSR   $8, nblk;                  \
	COLUMNS;                         \
	VMOVI $15, V8.B16;               \
	VMOVI $0x30, V9.B16;             \
	VMOVI $32, V15.B16;              \
	VEOR  V28.B16, V28.B16, V28.B16; \
	CBZ   nblk, done;                \
loop:                                \
	Q6KN_BLOCK(DOT16);               \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:                                \
	STORE(ret);                      \
ret:

// XD4 loads the four columns' x.d into the lanes of V26.
#define XD4 \
	MOVWU.P 4(xp), t0;   \
	VMOV    t0, V26.S[0]; \
	MOVWU.P 4(x1), t0;   \
	VMOV    t0, V26.S[1]; \
	MOVWU.P 4(x2), t0;   \
	VMOV    t0, V26.S[2]; \
	MOVWU.P 4(x3), t0;   \
	VMOV    t0, V26.S[3]

// ISUM4 leaves the int32 isums of the four columns (V16..V19) as float32
// lanes of V20.
#define ISUM4 \
	VADDP   V17.S4, V16.S4, V20.S4; \
	VADDP   V19.S4, V18.S4, V21.S4; \
	VADDP   V21.S4, V20.S4, V20.S4; \
	SCVTF4S(20, 20)

// Q2N_MINS sets V(m) to int32 lanes adding up to column xc's summs and
// advances xc past the bsums.
#define Q2N_MINS(xc, m) \
	VLD1.P 32(xc), [V2.H8, V3.H8]; \
	SMULL4S(15, 2, m);             \
	SMLAL24S(15, 2, m);            \
	SMLAL4S(14, 3, m);             \
	SMLAL24S(14, 3, m)

// Q2KN_BLOCK is Q2K_BLOCK for four columns: lane c of V27 takes the float
// steps of F28 in the one-column kernel.
#define Q2KN_BLOCK(DOT16) \
	Q2K_HEAD;                         \
	XD4;                              \
	MOVI0(16); MOVI0(17); MOVI0(18); MOVI0(19); \
	Q23_HALF(Q2_GROUP, Q23N_DOT, DOT16, 10, 11); \
	Q23_HALF(Q2_GROUP, Q23N_DOT, DOT16, 12, 13); \
	Q2N_MINS(xp, 28); Q2N_MINS(x1, 29); Q2N_MINS(x2, 30); Q2N_MINS(x3, 31); \
	ADD     $84, wp;                  \
	ISUM4;                            \
	VADDP   V29.S4, V28.S4, V21.S4;   \
	VADDP   V31.S4, V30.S4, V22.S4;   \
	VADDP   V22.S4, V21.S4, V21.S4;   \
	SCVTF4S(21, 21);                  /* V21[c] = float32(summs) */ \
	FMOVS   dw, F4;                   \
	FCVTHS  F4, F4;                   \
	VDUP    V4.S[0], V4.S4;           \
	FMUL4S(26, 4, 4);                 /* dall */ \
	FMUL4S(4, 20, 20);                \
	FMOVS   dmin, F5;                 \
	FCVTHS  F5, F5;                   \
	VDUP    V5.S[0], V5.S4;           \
	FMUL4S(26, 5, 5);                 /* dmin */ \
	FMUL4S(5, 21, 21);                \
	FSUB4S(21, 20, 20);               \
	FADD4S(20, 27, 27)

// Q3KN_BLOCK is Q3K_BLOCK for four columns, into the lanes of V27.
#define Q3KN_BLOCK(DOT16) \
	Q3K_HEAD;                         \
	XD4;                              \
	MOVI0(16); MOVI0(17); MOVI0(18); MOVI0(19); \
	Q23_HALF(Q3_GROUP, Q23N_DOT, DOT16, 10, 11); \
	Q23_HALF(Q3_GROUP, Q23N_DOT, DOT16, 12, 13); \
	ADD     $32, xp;                  \
	ADD     $32, x1;                  \
	ADD     $32, x2;                  \
	ADD     $32, x3;                  \
	ADD     $110, wp;                 \
	ISUM4;                            \
	FMOVS   dw, F4;                   \
	FCVTHS  F4, F4;                   \
	VDUP    V4.S[0], V4.S4;           \
	FMUL4S(26, 4, 4);                 /* d = dw*dx */ \
	FMUL4S(4, 20, 20);                \
	FADD4S(20, 27, 27)

// Q23N_LOOP runs BLOCK (Q2KN_BLOCK or Q3KN_BLOCK) n/256 times, stores the
// sums and returns. SETUP loads the constants.
#define Q23N_LOOP(SETUP, BLOCK, DOT16, loop, done, ret) \
	LSR   $8, nblk;                  \
	COLUMNS;                         \
	SETUP;                           \
	VEOR  V27.B16, V27.B16, V27.B16; \
	CBZ   nblk, done;                \
loop:                                \
	BLOCK(DOT16);                    \
	SUBS  $1, nblk;                  \
	BNE   loop;                      \
done:                                \
	VORR  V27.B16, V27.B16, V28.B16; \
	STORE(ret);                      \
ret:

#define SETUP_Q2 \
	VMOVI $3, V8.B16;  \
	VMOVI $15, V9.B16
#define SETUP_Q3 \
	VMOVI $3, V8.B16;  \
	VMOVI $4, V9.B16;  \
	VMOVI $32, V22.B16; \
	VMOVI $1, V23.B16

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
	KN_LOOP(Q4KN_BLOCK, DOT32NEON, vecDotNQ4_KNEON_loop, vecDotNQ4_KNEON_done, vecDotNQ4_KNEON_ret)
	RET

// func vecDotNQ4_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ4_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	KN_LOOP(Q4KN_BLOCK, DOT32SDOT, vecDotNQ4_KNEONDot_loop, vecDotNQ4_KNEONDot_done, vecDotNQ4_KNEONDot_ret)
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

// func vecDotQ5_KNEON(n int, w, x []byte) float32
TEXT ·vecDotQ5_KNEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q5K_LOOP(DOT32NEON, vecDotQ5_KNEON_loop, vecDotQ5_KNEON_done)
	FMOVS F29, ret+56(FP)
	RET

// func vecDotQ5_KNEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ5_KNEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q5K_LOOP(DOT32SDOT, vecDotQ5_KNEONDot_loop, vecDotQ5_KNEONDot_done)
	FMOVS F29, ret+56(FP)
	RET

// func vecDotQ3_KNEON(n int, w, x []byte) float32
TEXT ·vecDotQ3_KNEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q3K_LOOP(DOT16NEON, vecDotQ3_KNEON_loop, vecDotQ3_KNEON_done)
	FMOVS F28, ret+56(FP)
	RET

// func vecDotQ3_KNEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ3_KNEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q3K_LOOP(DOT16SDOT, vecDotQ3_KNEONDot_loop, vecDotQ3_KNEONDot_done)
	FMOVS F28, ret+56(FP)
	RET

// func vecDotQ2_KNEON(n int, w, x []byte) float32
TEXT ·vecDotQ2_KNEON(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q2K_LOOP(DOT16NEON, vecDotQ2_KNEON_loop, vecDotQ2_KNEON_done)
	FMOVS F28, ret+56(FP)
	RET

// func vecDotQ2_KNEONDot(n int, w, x []byte) float32
TEXT ·vecDotQ2_KNEONDot(SB), NOSPLIT, $0-60
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	Q2K_LOOP(DOT16SDOT, vecDotQ2_KNEONDot_loop, vecDotQ2_KNEONDot_done)
	FMOVS F28, ret+56(FP)
	RET

// func vecDotNQ6_KNEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ6_KNEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q6KN_LOOP(DOT16NEON, vecDotNQ6_KNEON_loop, vecDotNQ6_KNEON_done, vecDotNQ6_KNEON_ret)
	RET

// func vecDotNQ6_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ6_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q6KN_LOOP(DOT16SDOT, vecDotNQ6_KNEONDot_loop, vecDotNQ6_KNEONDot_done, vecDotNQ6_KNEONDot_ret)
	RET

// func vecDotNQ5_KNEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_KNEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	KN_LOOP(Q5KN_BLOCK, DOT32NEON, vecDotNQ5_KNEON_loop, vecDotNQ5_KNEON_done, vecDotNQ5_KNEON_ret)
	RET

// func vecDotNQ5_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ5_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	KN_LOOP(Q5KN_BLOCK, DOT32SDOT, vecDotNQ5_KNEONDot_loop, vecDotNQ5_KNEONDot_done, vecDotNQ5_KNEONDot_ret)
	RET

// func vecDotNQ2_KNEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ2_KNEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q23N_LOOP(SETUP_Q2, Q2KN_BLOCK, DOT16NEON, vecDotNQ2_KNEON_loop, vecDotNQ2_KNEON_done, vecDotNQ2_KNEON_ret)
	RET

// func vecDotNQ2_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ2_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q23N_LOOP(SETUP_Q2, Q2KN_BLOCK, DOT16SDOT, vecDotNQ2_KNEONDot_loop, vecDotNQ2_KNEONDot_done, vecDotNQ2_KNEONDot_ret)
	RET

// func vecDotNQ3_KNEON(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ3_KNEON(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q23N_LOOP(SETUP_Q3, Q3KN_BLOCK, DOT16NEON, vecDotNQ3_KNEON_loop, vecDotNQ3_KNEON_done, vecDotNQ3_KNEON_ret)
	RET

// func vecDotNQ3_KNEONDot(n int, w, x []byte, xStride int, out []float32)
TEXT ·vecDotNQ3_KNEONDot(SB), NOSPLIT, $0-88
	MOVD n+0(FP), nblk
	MOVD w_base+8(FP), wp
	MOVD x_base+32(FP), xp
	MOVD xStride+56(FP), strd
	MOVD out_base+64(FP), outp
	MOVD out_len+72(FP), nc
	Q23N_LOOP(SETUP_Q3, Q3KN_BLOCK, DOT16SDOT, vecDotNQ3_KNEONDot_loop, vecDotNQ3_KNEONDot_done, vecDotNQ3_KNEONDot_ret)
	RET
