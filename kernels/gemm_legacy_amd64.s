//go:build !purego

#include "textflag.h"

// Register-tiled GEMM micro-kernels for Q4_0 and Q8_0 weights against q8_0
// activations (AVX-512 BW + VNNI): one call computes a tile of four weight
// rows × four activation columns over the whole row, reusing every unpacked
// weight group for four columns and every activation group for four rows.
// The weights are read in place (mmap); only the activations are packed,
// once per MatMul (gemm_pack.go).
//
// Both kernels make the weights unsigned bytes (Q4_0: the nibble q, value
// q-8; Q8_0: q+128, by flipping the sign bit) so that VPDPBUSD multiplies
// them with the signed activations directly; the bias comes off through
// -bias*sum(x) per block, packed with the activations. Integer block sums
// are exact either way (an activation of -128, which the q8_0 quantizer
// never writes, is exact here and wraps in the single dot's sign trick).
// Each block's exact sum is converted to float32 and accumulated as
//
//	F_r lane k, dword c = fma(dw*dx, float32(sumi), F_r)
//
// block b into chain b%4 = lane k, in block order, dw*dx rounded first:
// chain k of the single-column dot (vecdot_legacy_amd64.s). The result is
// (chain0+chain2) + (chain1+chain3), as its DOT_RESULT, so every output has
// the bits of VecDot.
//
// Q8_0 (gemmQ8_0VNNI) runs groups of four blocks; its activations come
// packed by packQ8_0Panel: per group g and panel of four columns, a
// 640-byte record
//
//	[c*128 +  0, +64): column c, values 0-15 of blocks 4g..4g+3 (4×16 bytes)
//	[c*128 + 64, +64): column c, values 16-31 of those blocks
//	[512, +64): int32, lane k dword c = -bias*sum(column c, block 4g+k)
//	[576, +64): float32, lane k dword c = d of column c, block 4g+k
//
// (lane k = the 128-bit lane k of a ZMM register). A row's group is
// gathered so that lane k holds block 4g+k: A = its values 0-15 and B =
// 16-31, so VPDPBUSD(A, xA) + VPDPBUSD(B, xB) leaves in lane k four int32
// partial sums of block 4g+k for a column. Four columns' partials are
// reduced by a transpose-add (lane k, dword c = the block sum of column c)
// before the bias, the conversion and the FMA. Q4_0 (gemmQ4_0QVNNI, at
// the end of the file) avoids that reduction by transposing the weights.

#define NG CX  // groups of four blocks left
#define W0 SI  // row 0..3 weight pointers, at the current group
#define W1 R12
#define W2 R13
#define W3 R14
#define XP DI  // packed activation record of the current group
#define OUT R9 // dst of row 0, column 0
#define OS R10 // dst column stride in bytes
#define OS3 R11

#define WA Z1  // unsigned weight values 0-15 of the four blocks
#define WAx X1
#define WB Z2  // unsigned weight values 16-31
#define WBx X2
#define DS Z3  // lane k: dw(block k) * dx(column c, block k)
#define DSy Y3
#define ACC0 Z4 // column 0..3 int32 partial sums, then the reduction
#define ACC1 Z5
#define ACC2 Z6
#define ACC3 Z7
#define T Z8   // reduction / result temporary
#define Tx X8
#define T2x X9
#define F0 Z16 // row 0..3 float32 chains: lane k = chain k, dword c = column c
#define F1 Z17
#define F2 Z18
#define F3 Z19
#define MASK0F Z21 // 0x0f bytes (Q4_0) / 0x80 bytes (Q8_0)
#define PERMW Z22  // word index of the four block scales in a group

// VPERMW indices: lane k (four words) = the word offset of block k's d in
// a group (Q4_0: 18-byte blocks, one table; Q8_0: 34-byte blocks, two
// tables of 32 words, the second selected by bit 5).
DATA scalesQ4_0<>+0(SB)/8, $0x0000000000000000
DATA scalesQ4_0<>+8(SB)/8, $0x0009000900090009
DATA scalesQ4_0<>+16(SB)/8, $0x0012001200120012
DATA scalesQ4_0<>+24(SB)/8, $0x001b001b001b001b
DATA scalesQ4_0<>+32(SB)/8, $0
DATA scalesQ4_0<>+40(SB)/8, $0
DATA scalesQ4_0<>+48(SB)/8, $0
DATA scalesQ4_0<>+56(SB)/8, $0
GLOBL scalesQ4_0<>(SB), RODATA|NOPTR, $64

DATA scalesQ8_0<>+0(SB)/8, $0x0000000000000000
DATA scalesQ8_0<>+8(SB)/8, $0x0011001100110011
DATA scalesQ8_0<>+16(SB)/8, $0x0022002200220022
DATA scalesQ8_0<>+24(SB)/8, $0x0033003300330033
DATA scalesQ8_0<>+32(SB)/8, $0
DATA scalesQ8_0<>+40(SB)/8, $0
DATA scalesQ8_0<>+48(SB)/8, $0
DATA scalesQ8_0<>+56(SB)/8, $0
GLOBL scalesQ8_0<>(SB), RODATA|NOPTR, $64

// WQ_Q8_0(wr): WA, WB = values 0-15 and 16-31 of the four blocks at wr,
// plus 128 (unsigned), DS = dw*dx.
#define WQ_Q8_0(wr) \
	VMOVDQU      2(wr), WAx \
	VINSERTI32X4 $1, 36(wr), WA, WA \
	VINSERTI32X4 $2, 70(wr), WA, WA \
	VINSERTI32X4 $3, 104(wr), WA, WA \
	VMOVDQU      18(wr), WBx \
	VINSERTI32X4 $1, 52(wr), WB, WB \
	VINSERTI32X4 $2, 86(wr), WB, WB \
	VINSERTI32X4 $3, 120(wr), WB, WB \
	VPXORD       MASK0F, WA, WA  /* WA = q + 128 as uint8 */ \
	VPXORD       MASK0F, WB, WB \
	VMOVDQU16    0(wr), DS \
	VPERMT2W     64(wr), PERMW, DS /* DS.w lane k = d of block k */ \
	VCVTPH2PS    DSy, DS \
	VMULPS       576(XP), DS, DS

// COL(c, acc): acc lane k = four int32 partials of sum(WA|WB * x) over
// block k of column c.
#define COL(c, acc) \
	VPXORD   acc, acc, acc \
	VPDPBUSD c*128(XP), WA, acc    /* acc += WA * xA (4 bytes/dword) */ \
	VPDPBUSD c*128+64(XP), WB, acc /* acc += WB * xB                 */

// REDUCE(f): ACC0 lane k, dword c = the sum of ACCc lane k, plus the bias
// term; f += float32(it) * DS.
#define REDUCE(f) \
	VPUNPCKLQDQ ACC1, ACC0, T        /* T = a0.0 a0.1 a1.0 a1.1          */ \
	VPUNPCKHQDQ ACC1, ACC0, ACC1     /* ACC1 = a0.2 a0.3 a1.2 a1.3       */ \
	VPADDD      T, ACC1, ACC0        /* ACC0 = a0 pairs, a1 pairs        */ \
	VPUNPCKLQDQ ACC3, ACC2, T \
	VPUNPCKHQDQ ACC3, ACC2, ACC3 \
	VPADDD      T, ACC3, ACC2        /* ACC2 = a2 pairs, a3 pairs        */ \
	VSHUFPS     $0x88, ACC2, ACC0, T /* T = even pair sums of a0..a3     */ \
	VSHUFPS     $0xdd, ACC2, ACC0, ACC0 /* ACC0 = odd pair sums          */ \
	VPADDD      T, ACC0, ACC0        /* dword c = block sum of column c  */ \
	VPADDD      512(XP), ACC0, ACC0  /* - bias * sum(x)                  */ \
	VCVTDQ2PS   ACC0, ACC0 \
	VFMADD231PS DS, ACC0, f          /* f += sumi * (dw*dx)              */

// ROW(wq, wr, f): one row's group against the four columns.
#define ROW(wq, wr, f) \
	wq(wr) \
	COL(0, ACC0) \
	COL(1, ACC1) \
	COL(2, ACC2) \
	COL(3, ACC3) \
	REDUCE(f)

// STORE(f, off): the four columns' results of chains f, (chain0+chain2) +
// (chain1+chain3), to off(OUT) + c*OS.
#define STORE(f, off) \
	VSHUFF32X4    $0x4e, f, f, T  /* T = chains 2 3 0 1          */ \
	VADDPS        T, f, T         /* lane 0 = c0+c2, 1 = c1+c3   */ \
	VEXTRACTF32X4 $1, T, T2x \
	VADDPS        T2x, Tx, Tx \
	VMOVSS        Tx, off(OUT) \
	VEXTRACTPS    $1, Tx, off(OUT)(OS*1) \
	VEXTRACTPS    $2, Tx, off(OUT)(OS*2) \
	VEXTRACTPS    $3, Tx, off(OUT)(OS3*1)

// SETUP(mask, perm) loads the arguments common to both kernels, the byte
// constant mask (broadcast) and the scale index table perm, and clears the
// chains.
#define SETUP(mask, perm) \
	MOVQ         ng+0(FP), NG \
	MOVQ         w+8(FP), W0 \
	MOVQ         wStride+16(FP), AX \
	LEAQ         (W0)(AX*1), W1 \
	LEAQ         (W0)(AX*2), W2 \
	LEAQ         (W1)(AX*2), W3 \
	MOVQ         x+24(FP), XP \
	MOVQ         dst+32(FP), OUT \
	MOVQ         dstStride+40(FP), OS \
	SHLQ         $2, OS \
	LEAQ         (OS)(OS*2), OS3 \
	MOVL         $mask, DX \
	VPBROADCASTD DX, MASK0F \
	VMOVDQU16    perm<>(SB), PERMW \
	VPXORD       F0, F0, F0 \
	VPXORD       F1, F1, F1 \
	VPXORD       F2, F2, F2 \
	VPXORD       F3, F3, F3

// ADVANCE(wb) moves the four row pointers on by one group of wb bytes and
// the activations by one record.
#define ADVANCE(wb) \
	ADDQ $wb, W0 \
	ADDQ $wb, W1 \
	ADDQ $wb, W2 \
	ADDQ $wb, W3 \
	ADDQ $640, XP

// STORE4 writes the tile's sixteen results.
#define STORE4 \
	STORE(F0, 0) \
	STORE(F1, 4) \
	STORE(F2, 8) \
	STORE(F3, 12) \
	VZEROUPPER

// func gemmQ8_0VNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)
TEXT ·gemmQ8_0VNNI(SB), NOSPLIT, $0-48
	SETUP(0x80808080, scalesQ8_0)
	TESTQ NG, NG
	JZ    gemmQ8_0VNNI_done

gemmQ8_0VNNI_loop:
	ROW(WQ_Q8_0, W0, F0)
	ROW(WQ_Q8_0, W1, F1)
	ROW(WQ_Q8_0, W2, F2)
	ROW(WQ_Q8_0, W3, F3)
	ADVANCE(136)
	DECQ NG
	JNZ  gemmQ8_0VNNI_loop

gemmQ8_0VNNI_done:
	STORE4
	RET

// The Q4_0 kernel with transposed sums, on quads of four groups (16 blocks,
// 512 values), the activations packed by packQ8_0Quads. A row's quad is
// loaded as four group registers (lane k of group q = qs of block 4q+k),
// whose dwords are transposed so that register d holds, in lane k dword q,
// the dword d (values 4d..4d+3 low, 16+4d.. high) of block 4q+k. The
// activations are packed the same way, so eight VPDPBUSD leave in lane k,
// dword q the whole integer sum of block 4q+k: no reduction. Four columns'
// sums are transposed back to lane k, dword c (TRANSPOSE4), and the chains
// take blocks 4q+k for q = 0..3 in order, as the single dot's chain k.

#define QA0 Z8  // low nibbles, dword slice d = 0..3
#define QA1 Z9
#define QA2 Z10
#define QA3 Z11
#define QB0 Z12 // high nibbles
#define QB1 Z13
#define QB2 Z14
#define QB3 Z15
#define QDS Z24 // dw*dx of one group
#define QDSy Y24

// LOADG(off, wr, z, zx): z lane k = the 16 qs bytes of block k of the
// group at off(wr).
#define LOADG(off, wr, z, zx) \
	VMOVDQU      off+2(wr), zx \
	VINSERTI32X4 $1, off+20(wr), z, z \
	VINSERTI32X4 $2, off+38(wr), z, z \
	VINSERTI32X4 $3, off+56(wr), z, z

// TRANSPOSE4(a, b, c, d, t0, t1, t2, t3): per 128-bit lane, the 4×4 dword
// transpose of a, b, c, d into a, b, c, d, with t0-t3 as scratch: after it
// dword j of register i holds what dword i of register j held.
#define TRANSPOSE4(a, b, c, d, t0, t1, t2, t3) \
	VPUNPCKLDQ  b, a, t0  /* a0 b0 a1 b1 */ \
	VPUNPCKHDQ  b, a, t1  /* a2 b2 a3 b3 */ \
	VPUNPCKLDQ  d, c, t2  /* c0 d0 c1 d1 */ \
	VPUNPCKHDQ  d, c, t3  /* c2 d2 c3 d3 */ \
	VPUNPCKLQDQ t2, t0, a /* a0 b0 c0 d0 */ \
	VPUNPCKHQDQ t2, t0, b /* a1 b1 c1 d1 */ \
	VPUNPCKLQDQ t3, t1, c \
	VPUNPCKHQDQ t3, t1, d

// NIBS(t, a, b): a = t & 15, b = t >> 4 (per byte).
#define NIBS(t, a, b) \
	VPANDD MASK0F, t, a \
	VPSRLW $4, t, b \
	VPANDD MASK0F, b, b

// QCOL(c, acc): acc lane k, dword q = -8*sum(x) + sum(q*x) over block
// 4q+k of column c.
#define QCOL(c, acc) \
	VMOVDQU32 c*576+512(XP), acc \
	VPDPBUSD  c*576(XP), QA0, acc \
	VPDPBUSD  c*576+64(XP), QA1, acc \
	VPDPBUSD  c*576+128(XP), QA2, acc \
	VPDPBUSD  c*576+192(XP), QA3, acc \
	VPDPBUSD  c*576+256(XP), QB0, acc \
	VPDPBUSD  c*576+320(XP), QB1, acc \
	VPDPBUSD  c*576+384(XP), QB2, acc \
	VPDPBUSD  c*576+448(XP), QB3, acc

// QFMA(q, wr, u, f): f += float32(u) * (dw*dx) for group q of the quad.
#define QFMA(q, wr, u, f) \
	VPERMW      q*72(wr), PERMW, QDS /* QDS.w lane k = d of block 4q+k */ \
	VCVTPH2PS   QDSy, QDS \
	VMULPS      2304+q*64(XP), QDS, QDS \
	VCVTDQ2PS   u, u \
	VFMADD231PS QDS, u, f

// QROW(wr, f): one row's quad against the four columns.
#define QROW(wr, f) \
	LOADG(0, wr, Z0, X0) \
	LOADG(72, wr, Z1, X1) \
	LOADG(144, wr, Z2, X2) \
	LOADG(216, wr, Z3, X3) \
	TRANSPOSE4(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	NIBS(Z0, QA0, QB0) \
	NIBS(Z1, QA1, QB1) \
	NIBS(Z2, QA2, QB2) \
	NIBS(Z3, QA3, QB3) \
	QCOL(0, Z4) \
	QCOL(1, Z5) \
	QCOL(2, Z6) \
	QCOL(3, Z7) \
	TRANSPOSE4(Z4, Z5, Z6, Z7, Z0, Z1, Z2, Z3) \
	QFMA(0, wr, Z4, f) \
	QFMA(1, wr, Z5, f) \
	QFMA(2, wr, Z6, f) \
	QFMA(3, wr, Z7, f)

// func gemmQ4_0QVNNI(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)
TEXT ·gemmQ4_0QVNNI(SB), NOSPLIT, $0-48
	SETUP(0x0f0f0f0f, scalesQ4_0)
	TESTQ NG, NG
	JZ    gemmQ4_0QVNNI_done

gemmQ4_0QVNNI_loop:
	QROW(W0, F0)
	QROW(W1, F1)
	QROW(W2, F2)
	QROW(W3, F3)
	ADDQ $288, W0
	ADDQ $288, W1
	ADDQ $288, W2
	ADDQ $288, W3
	ADDQ $2560, XP
	DECQ NG
	JNZ  gemmQ4_0QVNNI_loop

gemmQ4_0QVNNI_done:
	STORE4
	RET
