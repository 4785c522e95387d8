//go:build !purego

#include "textflag.h"

// AVX2 dot products of K-quant weight rows with q8_K activation rows, one
// activation column (vecDot<T>AVX2) or two and four columns that share each
// unpacked weight super-block (vecDot2<T>AVX2, vecDot4<T>AVX2).
//
// Every kernel walks the row one 256-value super-block at a time and splits
// it into eight chunks of 32 values. For a chunk it unpacks the weight quants
// to unsigned bytes (QV) and broadcasts their int16 scales (SCB), then, per
// column, VPMADDUBSW multiplies them with the int8 activations into int16
// pair sums (at most 2*63*128, no saturation), VPMADDWD applies the scale and
// VPADDD adds the int32 result to the column's super-block sum. Signed weight
// offsets (-32 in Q6_K, -4 in Q3_K) are applied through the activation block
// sums (bsums) instead, so the quants stay unsigned. The integer sums are
// exact; per super-block the sum is scaled by d = dw*dx into eight float32
// lanes and the mins term dmin*sum(bsums*min) is subtracted, so only the
// float order differs from the generic kernels.

// Register roles.
#define RW SI   // weight super-block pointer
#define RN CX   // super-blocks left
#define RXA DI  // q8_K block pointer of column 0
#define RXB R8  // ... column 1
#define RXC R9  // ... column 2
#define RXD R10 // ... column 3
#define SUM0 Y0 // int32 sums of the current super-block, per column
#define SUM1 Y1
#define SUM2 Y2
#define SUM3 Y3
#define ACC0 Y4 // float32 running sums, per column
#define ACC1 Y5
#define ACC2 Y6
#define ACC3 Y7
#define QV Y8   // unpacked weight quants of one 32-value chunk, u8
#define SCB Y9  // int16 scale of every value of the chunk
#define TMP Y10
#define SCL Y11 // int16 scales of the super-block (order: see kqWordBcast)
#define MINS Y12 // int16 mins (Q4_K/Q5_K: each twice; Q2_K: one per bsum)
#define M30 Y12 // Q6_K: 0x30 in every byte (bits 4-5 of a 6-bit quant)
#define MHI Y13 // Q5_K: 0x10, Q3_K: 0x04, Q2_K: 0x0f in every byte
#define QHI Y14 // Q5_K qh / Q3_K hmask of the super-block
#define MLO Y15 // 0x0f (Q4_K, Q5_K, Q6_K) or 0x03 (Q2_K, Q3_K) in every byte

// Frame: 0(SP) = dw, 4(SP) = dminw as float32 for the current super-block.

// BCAST8(val, y) sets every byte of y to the 8-bit immediate val (repeated
// four times in the 32-bit immediate).
#define BCAST8(val, y) MOVL $val, AX; VMOVD AX, X13; VPBROADCASTD X13, y

// COL multiplies chunk k of the weights with column xp and adds to sum:
// sum[i] += scale * (q[2i]*x[2i] + q[2i+1]*x[2i+1]) over the 32 values.
#define COL(k, xp, sum) \
	VPMADDUBSW 4+32*k(xp), QV, TMP /* u8 q * s8 x, adjacent pairs summed to int16 */; \
	VPMADDWD SCB, TMP, TMP /* * scale, adjacent pairs summed to int32 */; \
	VPADDD TMP, sum, sum

#define COLS1(k) COL(k, RXA, SUM0)
#define COLS2(k) COLS1(k); COL(k, RXB, SUM1)
#define COLS4(k) COLS2(k); COL(k, RXC, SUM2); COL(k, RXD, SUM3)

// SCALEK selects the int16 scales of chunk k: SCB = SCL word k of each lane.
#define SCALEK(k) VPSHUFB ·kqWordBcast+32*k(SB), SCL, SCB

// DMIN2(off) stores the fp16 pair (d, dmin) at off(RW) as two float32 in the frame.
#define DMIN2(off) \
	VMOVD off(RW), X8; \
	VCVTPH2PS X8, X8 /* two fp16 -> two float32 */; \
	VMOVQ X8, 0(SP)

// D1(off) stores the fp16 d at off(RW) as float32 in the frame.
#define D1(off) \
	MOVWLZX off(RW), AX; \
	VMOVD AX, X8; \
	VCVTPH2PS X8, X8; \
	VMOVSS X8, 0(SP)

// FIN_D finishes column xp of a super-block without mins:
// acc += (dw*dx) * float(sum); then steps xp to the next q8_K block.
#define FIN_D(xp, sum, acc) \
	VMOVSS (xp), X8 /* dx */; \
	VMULSS 0(SP), X8, X8 /* d = dw*dx */; \
	VBROADCASTSS X8, QV; \
	VCVTDQ2PS sum, sum; \
	VFMADD231PS sum, QV, acc /* acc += d*float(sum) */; \
	ADDQ $292, xp

// FIN_M finishes column xp of a super-block with mins:
// acc += (dw*dx)*float(sum) - (dminw*dx)*float(bsums . MINS).
#define FIN_M(xp, sum, acc) \
	VMOVSS (xp), X8 /* dx */; \
	VMULSS 0(SP), X8, X9 /* d = dw*dx */; \
	VMULSS 4(SP), X8, X8 /* dmin = dminw*dx */; \
	VBROADCASTSS X9, SCB; \
	VBROADCASTSS X8, QV; \
	VCVTDQ2PS sum, sum; \
	VFMADD231PS sum, SCB, acc /* acc += d*float(sum) */; \
	VPMADDWD 260(xp), MINS, TMP /* bsums * mins, pairs summed to int32 */; \
	VCVTDQ2PS TMP, TMP; \
	VFNMADD231PS TMP, QV, acc /* acc -= dmin*float(...) */; \
	ADDQ $292, xp

// HSUM leaves the sum of the eight float32 lanes of y in the low lane of x
// (the low half of y).
#define HSUM(y, x) \
	VEXTRACTF128 $1, y, X13; \
	VADDPS X13, x, x; \
	VMOVHLPS x, x, X13 /* X13[0:2] = x[2:4] */; \
	VADDPS X13, x, x; \
	VMOVSHDUP x, X13 /* X13[0] = x[1] */; \
	VADDSS X13, x, x

// Prologue and epilogue pieces. The kernels load their arguments in the
// TEXT body itself so that go vet's asmdecl checks the frame offsets.
// COLPTR2/COLPTR4 derive the column pointers from RXA and the stride in AX
// (column 3 repeats column 2 when BX, the column count, is 3) and clear the
// accumulators; STORE2/STORE3 write the first two/three results to (AX).
#define COLPTR2 LEAQ (RXA)(AX*1), RXB; VXORPS ACC0, ACC0, ACC0; VXORPS ACC1, ACC1, ACC1
#define COLPTR4 \
	COLPTR2; \
	LEAQ (RXB)(AX*1), RXC; \
	LEAQ (RXC)(AX*1), RXD; \
	CMPQ BX, $4; \
	CMOVQNE RXC, RXD /* three columns: compute column 2 twice */; \
	VXORPS ACC2, ACC2, ACC2; \
	VXORPS ACC3, ACC3, ACC3
#define STORE2 HSUM(ACC0, X4); VMOVSS X4, 0(AX); HSUM(ACC1, X5); VMOVSS X5, 4(AX)
#define STORE3 STORE2; HSUM(ACC2, X6); VMOVSS X6, 8(AX)

#define ZERO1 VPXOR SUM0, SUM0, SUM0
#define ZERO2 ZERO1; VPXOR SUM1, SUM1, SUM1
#define ZERO4 ZERO2; VPXOR SUM2, SUM2, SUM2; VPXOR SUM3, SUM3, SUM3

#define FINM1 FIN_M(RXA, SUM0, ACC0)
#define FINM2 FINM1; FIN_M(RXB, SUM1, ACC1)
#define FINM4 FINM2; FIN_M(RXC, SUM2, ACC2); FIN_M(RXD, SUM3, ACC3)
#define FIND1 FIN_D(RXA, SUM0, ACC0)
#define FIND2 FIND1; FIN_D(RXB, SUM1, ACC1)
#define FIND4 FIND2; FIN_D(RXC, SUM2, ACC2); FIN_D(RXD, SUM3, ACC3)

// OFFSET starts a column's sum at the weight offset term: with QV holding
// -scale (int16) per 16 values, sum = (bsums . QV) << sh, i.e.
// -2^sh * sum_s scale_s*bsum_s (2^sh = 32 for Q6_K, 4 for Q3_K).
#define OFFSET(sh, xp, sum) VPMADDWD 260(xp), QV, sum; VPSLLD $sh, sum, sum
#define OFFS1(sh) OFFSET(sh, RXA, SUM0)
#define OFFS2(sh) OFFS1(sh); OFFSET(sh, RXB, SUM1)
#define OFFS4(sh) OFFS2(sh); OFFSET(sh, RXC, SUM2); OFFSET(sh, RXD, SUM3)

// SRLW_RW(sh, off, dst) and SLLW_RW set dst to the 16-bit lanes of off(RW)
// shifted right or left by sh. VEX has no memory-operand form of a shift by
// an immediate, and for one written that way the Go assembler silently emits
// the AVX-512 (EVEX) encoding, so the AVX2 kernels load first; the AVX-512
// section below redefines both as the single memory-operand instruction.
#define SRLW_RW(sh, off, dst) VMOVDQU off(RW), dst; VPSRLW $sh, dst, dst
#define SLLW_RW(sh, off, dst) VMOVDQU off(RW), dst; VPSLLW $sh, dst, dst

// NEGSC16 sets QV to the 16 int8 scales in xs (an XMM), sign-extended and
// negated, for OFFSET.
#define NEGSC16(xs) VPMOVSXBW xs, TMP; VPXOR QV, QV, QV; VPSUBW TMP, QV, QV

// ---- Q4_K: d, dmin, scales[12], qs[128] (144 bytes). Chunk k is sub-block
// k: the low (k even) or high (k odd) nibbles of qs[32*(k/2):].

// K4_SCALES unpacks the twelve 6-bit scale/min bytes at off(RW) of a Q4_K or
// Q5_K block (see scaleMinK4): SCL = scales 0..7 as int16 in both lanes,
// MINS = mins 0..7 as int16, each repeated for the two bsums of its sub-block.
#define K4_SCALES(off) \
	MOVL off(RW), AX /* u0: scales 0-3 (bits 0-5), top bits of 4-7 */; \
	MOVL off+4(RW), BX /* u1: mins 0-3 (bits 0-5), top bits of mins 4-7 */; \
	MOVL off+8(RW), DX /* u2: low nibbles scales 4-7, high nibbles mins 4-7 */; \
	MOVL AX, R11; \
	ANDL $0x3f3f3f3f, R11 /* scales 0-3 */; \
	MOVL DX, R12; \
	ANDL $0x0f0f0f0f, R12; \
	SHRL $6, AX; \
	ANDL $0x03030303, AX; \
	SHLL $4, AX; \
	ORL AX, R12 /* scales 4-7 = u2&15 | (u0>>6)<<4 */; \
	MOVL BX, AX; \
	ANDL $0x3f3f3f3f, AX /* mins 0-3 */; \
	SHRL $4, DX; \
	ANDL $0x0f0f0f0f, DX; \
	SHRL $6, BX; \
	ANDL $0x03030303, BX; \
	SHLL $4, BX; \
	ORL BX, DX /* mins 4-7 = u2>>4 | (u1>>6)<<4 */; \
	SHLQ $32, R12; \
	ORQ R12, R11; \
	SHLQ $32, DX; \
	ORQ DX, AX; \
	VMOVQ R11, X11; \
	VPUNPCKLQDQ X11, X11, X11 /* scales 0-7 twice */; \
	VPMOVZXBW X11, SCL; \
	VMOVQ AX, X12; \
	VPUNPCKLBW X12, X12, X12 /* m0 m0 m1 m1 ... */; \
	VPMOVZXBW X12, MINS

#define Q4K_LO(k, off) VPAND off(RW), MLO, QV; SCALEK(k)
#define Q4K_HI(k, off) SRLW_RW(4, off, QV); VPAND MLO, QV, QV; SCALEK(k)

#define Q4K_CHUNKS(COLS) \
	Q4K_LO(0, 16); COLS(0); Q4K_HI(1, 16); COLS(1); \
	Q4K_LO(2, 48); COLS(2); Q4K_HI(3, 48); COLS(3); \
	Q4K_LO(4, 80); COLS(4); Q4K_HI(5, 80); COLS(5); \
	Q4K_LO(6, 112); COLS(6); Q4K_HI(7, 112); COLS(7)

// Q4K_BODY(fn, ZERO, COLS, FIN) is the super-block loop of a Q4_K kernel.
#define Q4K_BODY(loop, done, ZERO, COLS, FIN) \
	BCAST8(0x0f0f0f0f, MLO); \
	TESTQ RN, RN; \
	JZ done; \
loop: \
	DMIN2(0); \
	K4_SCALES(4); \
	ZERO; \
	Q4K_CHUNKS(COLS); \
	FIN; \
	ADDQ $144, RW; \
	DECQ RN; \
	JNZ loop; \
done:

// func vecDotQ4_KAVX2(n int, w, x []byte) float32
TEXT ·vecDotQ4_KAVX2(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q4K_BODY(vecDotQ4_KAVX2_loop, vecDotQ4_KAVX2_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q4_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q4_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q4K_BODY(vecDot2Q4_KAVX2_loop, vecDot2Q4_KAVX2_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q4_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q4_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q4K_BODY(vecDot4Q4_KAVX2_loop, vecDot4Q4_KAVX2_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q4_KAVX2_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q4_KAVX2_ret:
	VZEROUPPER
	RET

// ---- Q6_K: ql[128], qh[64], scales[16] int8, d (210 bytes). Value i of
// half h = i/128 is ql nibble | 2 qh bits << 4, minus 32; chunk c = i%128/32
// takes the low (c < 2) or high nibbles of ql[64h+32*(c%2):] and bits 2c of
// qh[32h:]. The -32 enters through OFFSET; SCL holds the even scales in the
// low lane and the odd ones in the high lane (16 values per scale).

// Q6K_Cc(k, ql, qh) sets QV to the unsigned 6-bit quants of chunk k
// (c = k%4): bits 4-5 come from qh shifted so that its bits 2c land there.
#define Q6K_C0(k, ql, qh) VPAND ql(RW), MLO, QV; SLLW_RW(4, qh, TMP); Q6K_OR(k)
#define Q6K_C1(k, ql, qh) VPAND ql(RW), MLO, QV; SLLW_RW(2, qh, TMP); Q6K_OR(k)
#define Q6K_C2(k, ql, qh) SRLW_RW(4, ql, QV); VPAND MLO, QV, QV; VMOVDQU qh(RW), TMP; Q6K_OR(k)
#define Q6K_C3(k, ql, qh) SRLW_RW(4, ql, QV); VPAND MLO, QV, QV; SRLW_RW(2, qh, TMP); Q6K_OR(k)
#define Q6K_OR(k) VPAND M30, TMP, TMP; VPOR TMP, QV, QV; SCALEK(k)

#define Q6K_CHUNKS(COLS) \
	Q6K_C0(0, 0, 128); COLS(0); Q6K_C1(1, 32, 128); COLS(1); \
	Q6K_C2(2, 0, 128); COLS(2); Q6K_C3(3, 32, 128); COLS(3); \
	Q6K_C0(4, 64, 160); COLS(4); Q6K_C1(5, 96, 160); COLS(5); \
	Q6K_C2(6, 64, 160); COLS(6); Q6K_C3(7, 96, 160); COLS(7)

#define Q6K_BODY(loop, done, OFFS, COLS, FIN) \
	BCAST8(0x0f0f0f0f, MLO); \
	BCAST8(0x30303030, M30); \
	TESTQ RN, RN; \
	JZ done; \
loop: \
	D1(208); \
	VMOVDQU 192(RW), X11; \
	VPSHUFB ·kqEvenOdd(SB), X11, X11 /* even scales | odd scales */; \
	VPMOVSXBW X11, SCL; \
	NEGSC16(192(RW)); \
	OFFS(5); \
	Q6K_CHUNKS(COLS); \
	FIN; \
	ADDQ $210, RW; \
	DECQ RN; \
	JNZ loop; \
done:

// func vecDotQ6_KAVX2(n int, w, x []byte) float32
TEXT ·vecDotQ6_KAVX2(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q6K_BODY(vecDotQ6_KAVX2_loop, vecDotQ6_KAVX2_done, OFFS1, COLS1, FIND1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q6_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q6_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q6K_BODY(vecDot2Q6_KAVX2_loop, vecDot2Q6_KAVX2_done, OFFS2, COLS2, FIND2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q6_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q6_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q6K_BODY(vecDot4Q6_KAVX2_loop, vecDot4Q6_KAVX2_done, OFFS4, COLS4, FIND4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q6_KAVX2_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q6_KAVX2_ret:
	VZEROUPPER
	RET

// ---- Q5_K: d, dmin, scales[12], qh[32], qs[128] (176 bytes). Q4_K's
// layout plus a fifth bit: bit k of qh[l] is bit 4 of value l of chunk k.
// QHI holds qh; MHI = 0x10.

// Q5K_LO/HI(k, off, shop, sh) set QV to the low/high nibbles of qs at
// off(RW) with bit k of qh moved to bit 4 by shop (VPSLLW/VPSRLW) $sh.
#define Q5K_LO(k, off, shop, sh) VPAND off(RW), MLO, QV; shop $sh, QHI, TMP; Q5K_OR(k)
#define Q5K_HI(k, off, shop, sh) SRLW_RW(4, off, QV); VPAND MLO, QV, QV; shop $sh, QHI, TMP; Q5K_OR(k)
#define Q5K_OR(k) VPAND MHI, TMP, TMP; VPOR TMP, QV, QV; SCALEK(k)

#define Q5K_CHUNKS(COLS) \
	Q5K_LO(0, 48, VPSLLW, 4); COLS(0); Q5K_HI(1, 48, VPSLLW, 3); COLS(1); \
	Q5K_LO(2, 80, VPSLLW, 2); COLS(2); Q5K_HI(3, 80, VPSLLW, 1); COLS(3); \
	Q5K_LO(4, 112, VPSLLW, 0); COLS(4); Q5K_HI(5, 112, VPSRLW, 1); COLS(5); \
	Q5K_LO(6, 144, VPSRLW, 2); COLS(6); Q5K_HI(7, 144, VPSRLW, 3); COLS(7)

#define Q5K_BODY(loop, done, ZERO, COLS, FIN) \
	BCAST8(0x0f0f0f0f, MLO); \
	BCAST8(0x10101010, MHI); \
	TESTQ RN, RN; \
	JZ done; \
loop: \
	DMIN2(0); \
	K4_SCALES(4); \
	VMOVDQU 16(RW), QHI; \
	ZERO; \
	Q5K_CHUNKS(COLS); \
	FIN; \
	ADDQ $176, RW; \
	DECQ RN; \
	JNZ loop; \
done:

// func vecDotQ5_KAVX2(n int, w, x []byte) float32
TEXT ·vecDotQ5_KAVX2(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q5K_BODY(vecDotQ5_KAVX2_loop, vecDotQ5_KAVX2_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q5_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q5_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q5K_BODY(vecDot2Q5_KAVX2_loop, vecDot2Q5_KAVX2_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q5_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q5_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q5K_BODY(vecDot4Q5_KAVX2_loop, vecDot4Q5_KAVX2_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q5_KAVX2_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q5_KAVX2_ret:
	VZEROUPPER
	RET

// ---- Q3_K: hmask[32], qs[64], scales[12], d (110 bytes). Value i is
// 2 bits of qs[32*(i/128)+i%32] at bit 2*(i%128/32), plus 4 when bit i/32 of
// hmask[i%32] is set, minus 4; the -4 enters through OFFSET. Scales are
// signed 6-bit (stored +32), one per 16 values, ordered as in Q6_K.
// QHI holds hmask; MLO = 0x03, MHI = 0x04.

// Q3K_SCALES unpacks the twelve scale bytes (see unpackQ3KScales) into
// sixteen int8 scales in X8, in value order: scale i takes its low nibble
// from byte i%8 (low half for i < 8) and bits 4-5 from byte 8+i%4 at bit
// 2*(i/4).
#define Q3K_SCALES \
	MOVL 96(RW), AX /* a0 = bytes 0-3 */; \
	MOVL 100(RW), BX /* a1 = bytes 4-7 */; \
	MOVL 104(RW), DX /* a2 = bytes 8-11, the top bits */; \
	MOVL AX, R11; \
	ANDL $0x0f0f0f0f, R11; \
	MOVL DX, R12; \
	SHLL $4, R12; \
	ANDL $0x30303030, R12; \
	ORL R12, R11 /* scales 0-3 */; \
	MOVL BX, R12; \
	ANDL $0x0f0f0f0f, R12; \
	MOVL DX, R13; \
	SHLL $2, R13; \
	ANDL $0x30303030, R13; \
	ORL R13, R12 /* scales 4-7 */; \
	SHLQ $32, R12; \
	ORQ R12, R11; \
	SHRL $4, AX; \
	ANDL $0x0f0f0f0f, AX; \
	MOVL DX, R13; \
	ANDL $0x30303030, R13; \
	ORL R13, AX /* scales 8-11 */; \
	SHRL $4, BX; \
	ANDL $0x0f0f0f0f, BX; \
	SHRL $2, DX; \
	ANDL $0x30303030, DX; \
	ORL DX, BX /* scales 12-15 */; \
	SHLQ $32, BX; \
	ORQ BX, AX; \
	VMOVQ R11, X8; \
	VPINSRQ $1, AX, X8, X8; \
	MOVL $0x20202020, AX; \
	VMOVD AX, X10; \
	VPBROADCASTD X10, X10; \
	VPSUBB X10, X8, X8 /* remove the +32 */

// Q3K_Q(k, off, sh, hop, hsh) sets QV to bits sh..sh+1 of qs at off(RW)
// plus bit k of hmask moved to bit 2 by hop (VPSLLW/VPSRLW) $hsh.
#define Q3K_Q(k, off, sh, hop, hsh) \
	SRLW_RW(sh, off, QV); \
	VPAND MLO, QV, QV; \
	hop $hsh, QHI, TMP; \
	VPAND MHI, TMP, TMP; \
	VPOR TMP, QV, QV; \
	SCALEK(k)

#define Q3K_CHUNKS(COLS) \
	Q3K_Q(0, 32, 0, VPSLLW, 2); COLS(0); Q3K_Q(1, 32, 2, VPSLLW, 1); COLS(1); \
	Q3K_Q(2, 32, 4, VPSLLW, 0); COLS(2); Q3K_Q(3, 32, 6, VPSRLW, 1); COLS(3); \
	Q3K_Q(4, 64, 0, VPSRLW, 2); COLS(4); Q3K_Q(5, 64, 2, VPSRLW, 3); COLS(5); \
	Q3K_Q(6, 64, 4, VPSRLW, 4); COLS(6); Q3K_Q(7, 64, 6, VPSRLW, 5); COLS(7)

#define Q3K_BODY(loop, done, OFFS, COLS, FIN) \
	BCAST8(0x03030303, MLO); \
	BCAST8(0x04040404, MHI); \
	TESTQ RN, RN; \
	JZ done; \
loop: \
	D1(108); \
	VMOVDQU 0(RW), QHI; \
	Q3K_SCALES; \
	VPSHUFB ·kqEvenOdd(SB), X8, X11 /* even scales | odd scales */; \
	VPMOVSXBW X11, SCL; \
	NEGSC16(X8); \
	OFFS(2); \
	Q3K_CHUNKS(COLS); \
	FIN; \
	ADDQ $110, RW; \
	DECQ RN; \
	JNZ loop; \
done:

// func vecDotQ3_KAVX2(n int, w, x []byte) float32
TEXT ·vecDotQ3_KAVX2(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q3K_BODY(vecDotQ3_KAVX2_loop, vecDotQ3_KAVX2_done, OFFS1, COLS1, FIND1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q3_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q3_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q3K_BODY(vecDot2Q3_KAVX2_loop, vecDot2Q3_KAVX2_done, OFFS2, COLS2, FIND2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q3_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q3_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q3K_BODY(vecDot4Q3_KAVX2_loop, vecDot4Q3_KAVX2_done, OFFS4, COLS4, FIND4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q3_KAVX2_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q3_KAVX2_ret:
	VZEROUPPER
	RET

// ---- Q2_K: scales[16], qs[64], d, dmin (84 bytes). Value i is 2 bits of
// qs[32*(i/128)+i%32] at bit 2*(i%128/32); sub-block s of 16 values has
// scale scales[s]&15 (SCL, ordered as in Q6_K) and min scales[s]>>4 (MINS,
// one per bsum). MLO = 0x03, MHI = 0x0f.

#define Q2K_Q(k, off, sh) SRLW_RW(sh, off, QV); VPAND MLO, QV, QV; SCALEK(k)

#define Q2K_CHUNKS(COLS) \
	Q2K_Q(0, 16, 0); COLS(0); Q2K_Q(1, 16, 2); COLS(1); \
	Q2K_Q(2, 16, 4); COLS(2); Q2K_Q(3, 16, 6); COLS(3); \
	Q2K_Q(4, 48, 0); COLS(4); Q2K_Q(5, 48, 2); COLS(5); \
	Q2K_Q(6, 48, 4); COLS(6); Q2K_Q(7, 48, 6); COLS(7)

#define Q2K_BODY(loop, done, ZERO, COLS, FIN) \
	BCAST8(0x03030303, MLO); \
	BCAST8(0x0f0f0f0f, MHI); \
	TESTQ RN, RN; \
	JZ done; \
loop: \
	DMIN2(80); \
	VMOVDQU 0(RW), X9; \
	VPAND X13, X9, X10 /* scales */; \
	VPSHUFB ·kqEvenOdd(SB), X10, X10; \
	VPMOVZXBW X10, SCL; \
	VPSRLW $4, X9, X9; \
	VPAND X13, X9, X9 /* mins */; \
	VPMOVZXBW X9, MINS; \
	ZERO; \
	Q2K_CHUNKS(COLS); \
	FIN; \
	ADDQ $84, RW; \
	DECQ RN; \
	JNZ loop; \
done:

// func vecDotQ2_KAVX2(n int, w, x []byte) float32
TEXT ·vecDotQ2_KAVX2(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q2K_BODY(vecDotQ2_KAVX2_loop, vecDotQ2_KAVX2_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q2_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q2_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q2K_BODY(vecDot2Q2_KAVX2_loop, vecDot2Q2_KAVX2_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q2_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q2_KAVX2(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q2K_BODY(vecDot4Q2_KAVX2_loop, vecDot4Q2_KAVX2_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q2_KAVX2_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q2_KAVX2_ret:
	VZEROUPPER
	RET

// ---- AVX-512 VNNI variants. The same kernels with COL's VPMADDWD+VPADDD
// fused into one VPDPWSSD (int16 pairs multiplied and added to int32, no
// saturation), which saves a third of the per-column work of every chunk.
// They use only Y0-Y15 and run where AVX512_VNNI and AVX512_VL exist.

#undef SRLW_RW
#undef SLLW_RW
#define SRLW_RW(sh, off, dst) VPSRLW $sh, off(RW), dst
#define SLLW_RW(sh, off, dst) VPSLLW $sh, off(RW), dst

#undef COL
#define COL(k, xp, sum) \
	VPMADDUBSW 4+32*k(xp), QV, TMP /* u8 q * s8 x, adjacent pairs summed to int16 */; \
	VPDPWSSD SCB, TMP, sum /* sum += scale * pairs, adjacent pairs summed */

// func vecDotQ4_KVNNI(n int, w, x []byte) float32
TEXT ·vecDotQ4_KVNNI(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q4K_BODY(vecDotQ4_KVNNI_loop, vecDotQ4_KVNNI_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q4_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q4_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q4K_BODY(vecDot2Q4_KVNNI_loop, vecDot2Q4_KVNNI_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q4_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q4_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q4K_BODY(vecDot4Q4_KVNNI_loop, vecDot4Q4_KVNNI_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q4_KVNNI_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q4_KVNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ6_KVNNI(n int, w, x []byte) float32
TEXT ·vecDotQ6_KVNNI(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q6K_BODY(vecDotQ6_KVNNI_loop, vecDotQ6_KVNNI_done, OFFS1, COLS1, FIND1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q6_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q6_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q6K_BODY(vecDot2Q6_KVNNI_loop, vecDot2Q6_KVNNI_done, OFFS2, COLS2, FIND2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q6_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q6_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q6K_BODY(vecDot4Q6_KVNNI_loop, vecDot4Q6_KVNNI_done, OFFS4, COLS4, FIND4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q6_KVNNI_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q6_KVNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ5_KVNNI(n int, w, x []byte) float32
TEXT ·vecDotQ5_KVNNI(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q5K_BODY(vecDotQ5_KVNNI_loop, vecDotQ5_KVNNI_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q5_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q5_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q5K_BODY(vecDot2Q5_KVNNI_loop, vecDot2Q5_KVNNI_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q5_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q5_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q5K_BODY(vecDot4Q5_KVNNI_loop, vecDot4Q5_KVNNI_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q5_KVNNI_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q5_KVNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ3_KVNNI(n int, w, x []byte) float32
TEXT ·vecDotQ3_KVNNI(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q3K_BODY(vecDotQ3_KVNNI_loop, vecDotQ3_KVNNI_done, OFFS1, COLS1, FIND1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q3_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q3_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q3K_BODY(vecDot2Q3_KVNNI_loop, vecDot2Q3_KVNNI_done, OFFS2, COLS2, FIND2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q3_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q3_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q3K_BODY(vecDot4Q3_KVNNI_loop, vecDot4Q3_KVNNI_done, OFFS4, COLS4, FIND4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q3_KVNNI_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q3_KVNNI_ret:
	VZEROUPPER
	RET

// func vecDotQ2_KVNNI(n int, w, x []byte) float32
TEXT ·vecDotQ2_KVNNI(SB), NOSPLIT, $8-60
	MOVQ n+0(FP), RN
	SHRQ $8, RN // super-blocks
	MOVQ w_base+8(FP), RW
	MOVQ x_base+32(FP), RXA
	VXORPS ACC0, ACC0, ACC0
	Q2K_BODY(vecDotQ2_KVNNI_loop, vecDotQ2_KVNNI_done, ZERO1, COLS1, FINM1)
	HSUM(ACC0, X4)
	VMOVSS X4, ret+56(FP)
	VZEROUPPER
	RET

// func vecDot2Q2_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot2Q2_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	COLPTR2
	Q2K_BODY(vecDot2Q2_KVNNI_loop, vecDot2Q2_KVNNI_done, ZERO2, COLS2, FINM2)
	MOVQ out+32(FP), AX
	STORE2
	VZEROUPPER
	RET

// func vecDot4Q2_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)
TEXT ·vecDot4Q2_KVNNI(SB), NOSPLIT, $8-48
	MOVQ nb+0(FP), RN
	MOVQ w+8(FP), RW
	MOVQ x+16(FP), RXA
	MOVQ xStride+24(FP), AX
	MOVQ nc+40(FP), BX
	COLPTR4
	Q2K_BODY(vecDot4Q2_KVNNI_loop, vecDot4Q2_KVNNI_done, ZERO4, COLS4, FINM4)
	MOVQ out+32(FP), AX
	STORE3
	MOVQ nc+40(FP), BX
	CMPQ BX, $4
	JNE  vecDot4Q2_KVNNI_ret
	HSUM(ACC3, X7)
	VMOVSS X7, 12(AX)

vecDot4Q2_KVNNI_ret:
	VZEROUPPER
	RET
