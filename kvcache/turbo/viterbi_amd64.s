//go:build !purego

#include "textflag.h"

// viterbiAVX512 runs the trellis steps of tcqCode.viterbi for every value
// of z with AVX-512, on costs stored in the transposed layout L (state
// s = m·P + p at L[p·64 + m], P = 1<<k predecessors per memory value m),
// so the best predecessor of every m is an elementwise strict "<" scan over
// P rows of 64 costs (four ZMM each) from p = 0: the same choice, ties to
// the lowest p, as the reference. The new cost of state ns = o·64 + m is
// best[m] + float32((x - cb[ns])²), written at its own layout-L slot, so
// per row p2 the best values needed are best[(j & (64/P-1))·P + p2] for
// lane j: two VPERMI2PS over the four best registers and a blend (perm and
// mask). Multiplication and addition are separate roundings, as in the
// reference, so every cost has the reference's bits.
//
// Arguments: z (n <= 128 values), cost and next (two [512]float32 in
// layout L; the start costs are in cost), cbL (the codebook in layout L),
// perm (P index vectors of 16 int32), rows (P), mask (blend mask: lanes
// from best[32:64]), bt ([128][64]uint8 best predecessors per step and m).
// After the call the final costs are in cost if n is even, else in next.

#define ZX Z15
#define ZP Z16
#define ZB0 Z0
#define ZB1 Z1
#define ZB2 Z2
#define ZB3 Z3
#define ZI0 Z4
#define ZI1 Z5
#define ZI2 Z6
#define ZI3 Z7

// SCANQ(q, b, i): one 16-lane quarter of the predecessor scan for row R12.
#define SCANQ(q, b, i) \
	VCMPPS    $0x1e, q*64(R12), b, K2 /* b > row: strictly smaller cost */ \
	VMOVUPS   q*64(R12), K2, b \
	VMOVDQA32 ZP, K2, i

// NEWQ(q): next[p2][q] = bvec + (x - cbL[p2][q])², row p2 at R12 (cb) and R13 (next).
#define NEWQ(q, d) \
	VSUBPS  q*64(R12), ZX, d \
	VMULPS  d, d, d \
	VADDPS  Z8, d, d \
	VMOVUPS d, q*64(R13)

// func viterbiAVX512(z []float32, cost, next, cbL *[512]float32, perm *[8][16]int32, rows int, mask uint16, bt *[128][64]uint8)
TEXT ·viterbiAVX512(SB), NOSPLIT, $0-80
	MOVQ  z_base+0(FP), SI
	MOVQ  z_len+8(FP), CX
	MOVQ  cost+24(FP), DI
	MOVQ  next+32(FP), DX
	MOVQ  cbL+40(FP), R8
	MOVQ  perm+48(FP), R9
	MOVQ  rows+56(FP), R10
	MOVWQZX mask+64(FP), AX
	KMOVW AX, K3
	MOVQ  bt+72(FP), R11

step:
	TESTQ CX, CX
	JZ    done
	VBROADCASTSS (SI), ZX

	// best[m] and its first predecessor over the rows p of cost.
	VMOVUPS 0(DI), ZB0
	VMOVUPS 64(DI), ZB1
	VMOVUPS 128(DI), ZB2
	VMOVUPS 192(DI), ZB3
	VPXORD  ZI0, ZI0, ZI0
	VPXORD  ZI1, ZI1, ZI1
	VPXORD  ZI2, ZI2, ZI2
	VPXORD  ZI3, ZI3, ZI3
	MOVQ    $1, BX
	LEAQ    256(DI), R12

scan:
	CMPQ    BX, R10
	JGE     scanned
	VPBROADCASTD BX, ZP
	SCANQ(0, ZB0, ZI0)
	SCANQ(1, ZB1, ZI1)
	SCANQ(2, ZB2, ZI2)
	SCANQ(3, ZB3, ZI3)
	ADDQ    $256, R12
	INCQ    BX
	JMP     scan

scanned:
	VPMOVDB ZI0, 0(R11)
	VPMOVDB ZI1, 16(R11)
	VPMOVDB ZI2, 32(R11)
	VPMOVDB ZI3, 48(R11)

	// next costs, row by row of layout L.
	XORQ BX, BX
	MOVQ R8, R12
	MOVQ DX, R13
	MOVQ R9, AX

newrow:
	CMPQ    BX, R10
	JGE     stepped
	VMOVDQU32 (AX), Z9
	VMOVDQA32 Z9, Z10
	VPERMI2PS ZB1, ZB0, Z9  /* lanes from best[0:32] */
	VPERMI2PS ZB3, ZB2, Z10 /* lanes from best[32:64] */
	VBLENDMPS Z10, Z9, K3, Z8
	NEWQ(0, Z11)
	NEWQ(1, Z12)
	NEWQ(2, Z13)
	NEWQ(3, Z14)
	ADDQ    $256, R12
	ADDQ    $256, R13
	ADDQ    $64, AX
	INCQ    BX
	JMP     newrow

stepped:
	XCHGQ DI, DX
	ADDQ  $4, SI
	ADDQ  $64, R11
	DECQ  CX
	JMP   step

done:
	VZEROUPPER
	RET
