//go:build !purego

#include "textflag.h"

// Register-tiled GEMM micro-kernels for Q4_K and Q6_K weights against q8_K
// activations (AVX-512 BW + VNNI): one call computes four weight rows ×
// four activation columns over the whole row, the K-quant counterpart of
// gemm_legacy_amd64.s.
//
// They compute exactly what vecDot<T>VNNI (vecdot_k_amd64.s) computes
// per column, in eight int32 and eight float32 lanes, only two columns at
// once in the two 256-bit halves of a ZMM register: per super-block and
// chunk of 32 values, VPMADDUBSW (u8 weight quants × s8 activations, int16
// pair sums) and VPDPWSSD (× the chunk's int16 scale, into the column's
// int32 lanes); per super-block, the float32 lanes take
//
//	Q4_K: acc = fma(dw*dx, float32(sum), acc); acc = acc - (dminw*dx)*float32(bsums·mins) (fused)
//	Q6_K: sum starts at -32*(bsums·scales); acc = fma(dw*dx, float32(sum), acc)
//
// and the result is the eight lanes' sum in HSUM's order. The integer lanes
// hold the same exact sums as the single dot's, so every output has its
// bits. The weights are read in place; each chunk's 32 quants are unpacked
// once into both halves (VBROADCASTI64X4) and serve four columns.
//
// The activations come packed by packQ8_KPanel (gemm_pack.go): per
// super-block and panel of four columns, a 1280-byte record
//
//	[k*128, +64): chunk k (32 values) of columns 0 | 1; [k*128+64, +64): of 2 | 3
//	[1024, +64): bsums (16 int16) of columns 0 | 1; [1088, +64): of 2 | 3
//	[1152, +64): dx of column 0 ×8 | column 1 ×8 (float32); [1216, +64): 2 | 3

#define NG CX  // super-blocks left
#define W0 SI  // row 0..3 weight pointers, at the current super-block
#define W1 R8
#define W2 R9
#define W3 R10
#define XP DI  // packed activation record
#define OUT R11 // (epilogue) dst of row 0, column 0
#define OS R12  // (epilogue) dst column stride in bytes
#define OS3 R13

#define QB Z0   // broadcast raw weight bytes (Q4_K qs), Q6_K ql bytes
#define QBy Y0
#define QV Z1   // unsigned quants of the chunk, in both halves
#define QVy Y1
#define SCB Z2  // the chunk's int16 scale(s), in both halves
#define T Z3    // products, columns 0 | 1
#define Tx X3
#define Ty Y3
#define T2 Z4   // products, columns 2 | 3
#define S01 Z5  // int32 lanes of the super-block: columns 0 | 1
#define S23 Z6  // columns 2 | 3
#define D Z7    // dw*dx (then dminw*dx) per half
#define MINS Z8 // Q4_K: int16 mins, each twice; Q6_K: -scales (int16)
#define MINSx X8
#define MINSy Y8
#define SCL Z9  // int16 scales, laid out for gemmWordBcast
#define SCLx X9
#define SCLy Y9
#define DW Z10  // dw broadcast
#define DWx X10
#define DM Z11  // dminw broadcast (Q4_K)
#define DMx X11
#define MLO Z12 // 0x0f bytes
#define MLOy Y12
#define M30 Z13 // 0x30 bytes (Q6_K)
#define M30y Y13
#define QHy Y14 // Q6_K: qh bytes
#define QLy Y15 // Q6_K: the second 32 ql bytes

// gemmWordBcast: entry k (64 bytes) is the VPSHUFB index copying 16-bit
// word k of each 128-bit lane to every word of that lane (kqWordBcast
// widened to ZMM).
#define WB4(k, v) \
	DATA gemmWordBcast<>+64*k(SB)/8, v \
	DATA gemmWordBcast<>+64*k+8(SB)/8, v \
	DATA gemmWordBcast<>+64*k+16(SB)/8, v \
	DATA gemmWordBcast<>+64*k+24(SB)/8, v \
	DATA gemmWordBcast<>+64*k+32(SB)/8, v \
	DATA gemmWordBcast<>+64*k+40(SB)/8, v \
	DATA gemmWordBcast<>+64*k+48(SB)/8, v \
	DATA gemmWordBcast<>+64*k+56(SB)/8, v

WB4(0, $0x0100010001000100)
WB4(1, $0x0302030203020302)
WB4(2, $0x0504050405040504)
WB4(3, $0x0706070607060706)
WB4(4, $0x0908090809080908)
WB4(5, $0x0b0a0b0a0b0a0b0a)
WB4(6, $0x0d0c0d0c0d0c0d0c)
WB4(7, $0x0f0e0f0e0f0e0f0e)
GLOBL gemmWordBcast<>(SB), RODATA|NOPTR, $512

// COLS(k): the four columns' lanes += scale * (QV · chunk k).
#define COLS(k) \
	VPMADDUBSW k*128(XP), QV, T     /* u8 q * s8 x, pairs summed to int16 */ \
	VPDPWSSD   SCB, T, S01          /* S01 += scale * pairs, pairs summed */ \
	VPMADDUBSW k*128+64(XP), QV, T2 \
	VPDPWSSD   SCB, T2, S23

// SCALEK(k): SCB = word k of each 128-bit lane of SCL.
#define SCALEK(k) VPSHUFB gemmWordBcast<>+64*k(SB), SCL, SCB

// FIN_M(s, a, p): Q4_K finish of one column pair (p = 0 or 64):
// a = fma(dw*dx, float(s), a); a -= (dminw*dx) * float(bsums·mins).
#define FIN_M(s, a, p) \
	VMULPS       1152+p(XP), DW, D /* D = dw*dx per half */ \
	VCVTDQ2PS    s, s \
	VFMADD231PS  D, s, a \
	VMULPS       1152+p(XP), DM, D /* D = dminw*dx       */ \
	VPMADDWD     1024+p(XP), MINS, T \
	VCVTDQ2PS    T, T \
	VFNMADD231PS T, D, a

// FIN_D(s, a, p): Q6_K finish of one column pair: a = fma(dw*dx, float(s), a).
#define FIN_D(s, a, p) \
	VMULPS      1152+p(XP), DW, D \
	VCVTDQ2PS   s, s \
	VFMADD231PS D, s, a

// K4_UNPACK(wr): AX = the eight 6-bit mins, R12 = the eight scales of the
// Q4_K super-block at wr, one per byte (see scaleMinK4).
#define K4_UNPACK(wr) \
	MOVL 4(wr), AX  /* u0 */ \
	MOVL 8(wr), BX  /* u1 */ \
	MOVL 12(wr), DX /* u2 */ \
	MOVL AX, R12 \
	ANDL $0x3f3f3f3f, R12 /* scales 0-3 */ \
	MOVL DX, R13 \
	ANDL $0x0f0f0f0f, R13 \
	SHRL $6, AX \
	ANDL $0x03030303, AX \
	SHLL $4, AX \
	ORL  AX, R13 /* scales 4-7 = u2&15 | (u0>>6)<<4 */ \
	MOVL BX, AX \
	ANDL $0x3f3f3f3f, AX /* mins 0-3 */ \
	SHRL $4, DX \
	ANDL $0x0f0f0f0f, DX \
	SHRL $6, BX \
	ANDL $0x03030303, BX \
	SHLL $4, BX \
	ORL  BX, DX /* mins 4-7 = u2>>4 | (u1>>6)<<4 */ \
	SHLQ $32, R13 \
	ORQ  R13, R12 \
	SHLQ $32, DX \
	ORQ  DX, AX

// Q4K_SETUP(wr): SCL = the eight scales (int16) in every 128-bit lane, MINS
// = the mins as int16, each twice, in both halves, DW and DM = dw and dminw
// broadcast, S01 = S23 = 0.
#define Q4K_SETUP(wr) \
	K4_UNPACK(wr) \
	VMOVQ        R12, SCLx \
	VPMOVZXBW    SCLx, SCLx \
	VSHUFI32X4   $0, SCL, SCL, SCL   /* every lane = scales 0-7 */ \
	VMOVQ        AX, MINSx \
	VPUNPCKLBW   MINSx, MINSx, MINSx /* m0 m0 m1 m1 ...         */ \
	VPMOVZXBW    MINSx, MINSy \
	VSHUFI64X2   $0x44, MINS, MINS, MINS /* both halves          */ \
	VMOVD        0(wr), DWx \
	VCVTPH2PS    DWx, DWx            /* dw, dminw                */ \
	VMOVSHDUP    DWx, DMx \
	VBROADCASTSS DMx, DM \
	VBROADCASTSS DWx, DW \
	VPXORD       S01, S01, S01 \
	VPXORD       S23, S23, S23

// Q4K_PAIR(off, k0, k1, wr): chunks k0 (low nibbles) and k1 = k0+1 (high
// nibbles) of the qs at off(wr). (Chunk numbers are passed as literals:
// the macros multiply them.)
#define Q4K_PAIR(off, k0, k1, wr) \
	VBROADCASTI64X4 off(wr), QB \
	VPANDD          MLO, QB, QV \
	SCALEK(k0) \
	COLS(k0) \
	VPSRLW          $4, QB, QV \
	VPANDD          MLO, QV, QV \
	SCALEK(k1) \
	COLS(k1)

// ROW_Q4_K(wr, a01, a23): one row's super-block against the four columns.
#define ROW_Q4_K(wr, a01, a23) \
	Q4K_SETUP(wr) \
	Q4K_PAIR(16, 0, 1, wr) \
	Q4K_PAIR(48, 2, 3, wr) \
	Q4K_PAIR(80, 4, 5, wr) \
	Q4K_PAIR(112, 6, 7, wr) \
	FIN_M(S01, a01, 0) \
	FIN_M(S23, a23, 64)

// Q6K_SETUP(wr): DW = d broadcast; SCL = even scales | odd scales (int16)
// in both halves; S01, S23 = -32 * (bsums · scales), the offset term.
#define Q6K_SETUP(wr) \
	MOVWLZX      208(wr), AX \
	VMOVD        AX, DWx \
	VCVTPH2PS    DWx, DWx \
	VBROADCASTSS DWx, DW \
	VMOVDQU      192(wr), SCLx \
	VPSHUFB      ·kqEvenOdd(SB), SCLx, SCLx /* even scales | odd scales */ \
	VPMOVSXBW    SCLx, SCLy \
	VSHUFI64X2   $0x44, SCL, SCL, SCL \
	VPMOVSXBW    192(wr), MINSy \
	VPXOR        Tx, Tx, Tx \
	VPSUBW       MINSy, Ty, MINSy           /* -scales, one per bsum   */ \
	VSHUFI64X2   $0x44, MINS, MINS, MINS \
	VPMADDWD     1024(XP), MINS, S01 \
	VPSLLD       $5, S01, S01               /* -32 * sum scale*bsum   */ \
	VPMADDWD     1088(XP), MINS, S23 \
	VPSLLD       $5, S23, S23

// Q6K_OR(k): QV |= T's bits 4-5 (256-bit), copied to the upper half; SCB
// = scales 2k | 2k+1; the columns.
#define Q6K_OR(k) \
	VPAND        M30y, Ty, Ty \
	VPOR         Ty, QVy, QVy \
	VINSERTI64X4 $1, QVy, QV, QV \
	SCALEK(k) \
	COLS(k)

// Q6K_HALF(ql, qh, k0, k1, k2, k3, wr): chunks k0..k3 = 4h..4h+3 of half
// h: the ql bytes at ql(wr) (64), the qh bytes at qh(wr) (32). The quants
// are unpacked at 256 bits and copied to the upper half.
#define Q6K_HALF(ql, qh, k0, k1, k2, k3, wr) \
	VMOVDQU ql(wr), QBy \
	VMOVDQU ql+32(wr), QLy \
	VMOVDQU qh(wr), QHy \
	VPAND   MLOy, QBy, QVy /* chunk 4h: ql low nibbles, qh bits 0-1 */ \
	VPSLLW  $4, QHy, Ty \
	Q6K_OR(k0) \
	VPAND   MLOy, QLy, QVy /* chunk 4h+1: qh bits 2-3               */ \
	VPSLLW  $2, QHy, Ty \
	Q6K_OR(k1) \
	VPSRLW  $4, QBy, QVy   /* chunk 4h+2: high nibbles, bits 4-5    */ \
	VPAND   MLOy, QVy, QVy \
	VMOVDQA QHy, Ty \
	Q6K_OR(k2) \
	VPSRLW  $4, QLy, QVy   /* chunk 4h+3: bits 6-7                  */ \
	VPAND   MLOy, QVy, QVy \
	VPSRLW  $2, QHy, Ty \
	Q6K_OR(k3)

// ROW_Q6_K(wr, a01, a23): one row's super-block against the four columns.
#define ROW_Q6_K(wr, a01, a23) \
	Q6K_SETUP(wr) \
	Q6K_HALF(0, 128, 0, 1, 2, 3, wr) \
	Q6K_HALF(64, 160, 4, 5, 6, 7, wr) \
	FIN_D(S01, a01, 0) \
	FIN_D(S23, a23, 64)

// SETUP loads the row pointers, the record pointer and MLO, M30, and
// clears the eight accumulators Z16-Z23 (row r: Z16+2r = columns 0 | 1,
// Z17+2r = columns 2 | 3).
#define SETUP \
	MOVQ         ng+0(FP), NG \
	MOVQ         w+8(FP), W0 \
	MOVQ         wStride+16(FP), AX \
	LEAQ         (W0)(AX*1), W1 \
	LEAQ         (W0)(AX*2), W2 \
	LEAQ         (W1)(AX*2), W3 \
	MOVQ         x+24(FP), XP \
	MOVL         $0x0f0f0f0f, AX \
	VPBROADCASTD AX, MLO \
	MOVL         $0x30303030, AX \
	VPBROADCASTD AX, M30 \
	VPXORD       Z16, Z16, Z16 \
	VPXORD       Z17, Z17, Z17 \
	VPXORD       Z18, Z18, Z18 \
	VPXORD       Z19, Z19, Z19 \
	VPXORD       Z20, Z20, Z20 \
	VPXORD       Z21, Z21, Z21 \
	VPXORD       Z22, Z22, Z22 \
	VPXORD       Z23, Z23, Z23

// ADVANCE(wb): the next super-block (wb bytes) and record.
#define ADVANCE(wb) \
	ADDQ $wb, W0 \
	ADDQ $wb, W1 \
	ADDQ $wb, W2 \
	ADDQ $wb, W3 \
	ADDQ $1280, XP

// HSUM(y, x): x[0] = the sum of y's eight lanes, in the order of
// vecdot_k_amd64.s's HSUM.
#define HSUM(y, x) \
	VEXTRACTF128 $1, y, X13 \
	VADDPS       X13, x, x \
	VMOVHLPS     x, x, X13 \
	VADDPS       X13, x, x \
	VMOVSHDUP    x, X13 \
	VADDSS       X13, x, x

// STORE_PAIR(a, off, lo, hi): the results of a's two columns to lo and hi
// (addresses).
#define STORE_PAIR(a, lo, hi) \
	VEXTRACTF64X4 $0, a, Y14 \
	VEXTRACTF64X4 $1, a, Y15 \
	HSUM(Y14, X14) \
	HSUM(Y15, X15) \
	VMOVSS        X14, lo \
	VMOVSS        X15, hi

// STORE_ROW(a01, a23, r): row r's four results.
#define STORE_ROW(a01, a23, r) \
	STORE_PAIR(a01, 4*r(OUT), 4*r(OUT)(OS*1)) \
	STORE_PAIR(a23, 4*r(OUT)(OS*2), 4*r(OUT)(OS3*1))

// EPILOGUE stores the sixteen results.
#define EPILOGUE \
	MOVQ dst+32(FP), OUT \
	MOVQ dstStride+40(FP), OS \
	SHLQ $2, OS \
	LEAQ (OS)(OS*2), OS3 \
	STORE_ROW(Z16, Z17, 0) \
	STORE_ROW(Z18, Z19, 1) \
	STORE_ROW(Z20, Z21, 2) \
	STORE_ROW(Z22, Z23, 3) \
	VZEROUPPER

// func gemmQ4_KVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)
TEXT ·gemmQ4_KVNNI(SB), NOSPLIT, $0-48
	SETUP
	TESTQ NG, NG
	JZ    gemmQ4_KVNNI_done

gemmQ4_KVNNI_loop:
	ROW_Q4_K(W0, Z16, Z17)
	ROW_Q4_K(W1, Z18, Z19)
	ROW_Q4_K(W2, Z20, Z21)
	ROW_Q4_K(W3, Z22, Z23)
	ADVANCE(144)
	DECQ NG
	JNZ  gemmQ4_KVNNI_loop

gemmQ4_KVNNI_done:
	EPILOGUE
	RET

// func gemmQ6_KVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)
TEXT ·gemmQ6_KVNNI(SB), NOSPLIT, $0-48
	SETUP
	TESTQ NG, NG
	JZ    gemmQ6_KVNNI_done

gemmQ6_KVNNI_loop:
	ROW_Q6_K(W0, Z16, Z17)
	ROW_Q6_K(W1, Z18, Z19)
	ROW_Q6_K(W2, Z20, Z21)
	ROW_Q6_K(W3, Z22, Z23)
	ADVANCE(210)
	DECQ NG
	JNZ  gemmQ6_KVNNI_loop

gemmQ6_KVNNI_done:
	EPILOGUE
	RET
