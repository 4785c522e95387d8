//go:build !purego

#include "textflag.h"

// viterbi3AVX512 and viterbi2AVX512 are viterbi3AVX2 and viterbi2AVX2
// (viterbi_avx2_amd64.s) with 16 lanes: the same fused step (costs made
// and scanned in registers, VCMPPS into K1 for the index, VMINPS for the
// cost, products rounded before the add) over four vectors v per p. Lane
// j = h + H·a (H = 2 for k = 3, 4 for k = 2) of vector v is new memory
// m' = (64/P)·a + v + 4h, so the lanes of one vector need H predecessor
// costs per p, repeating over the lanes: a 64-bit (k = 3) or 128-bit
// (k = 2) broadcast of values the previous step stored side by side after
// permuting its results with perm (tcqLanes.perm, lane16Perm). Predecessor
// indices shift to byte v of their lane, and lane j's dword is bytes
// 4j..4j+3 of bt[t+1]: one store.

#define ZP R10  // &z[t]
#define NZ CX   // steps left
#define CB R8   // &cb[0] (slot order)
#define CUR DI  // best_t, as the previous step stored it
#define NXT DX  // best_t+1 being stored
#define OUT R9  // final costs (slot order)
#define BT R11  // &bt[t+1]

#define X Z31  // z[t] in every lane
#define C Z0   // running smallest cost of a vector
#define I Z1   // its predecessor
#define D Z2   // a new cost
#define B Z3   // best_t operand
#define W Z4   // packed predecessors
#define PERM Z16 // store permutation

// Offsets of slot (v, p) in cb and in the final costs, and of the best_t
// values vector v needs for p (see viterbi_amd64.go), in bytes.
#define SLOT3(v, p) (64*(8*(v)+(p)))
#define SLOT2(v, p) (64*(4*(v)+(p)))
#define BEST3(v, p) (64*((p)&3)+32*((p)>>2)+8*(v))
#define BEST2(v, p) (64*(p)+16*(v))

// FIRST(cbo, bo, BC): predecessor p = 0 of a vector: C = best + (x-cb)², I = 0.
#define FIRST(cbo, bo, BC) \
	VSUBPS cbo(CB), X, C \
	VMULPS C, C, C \
	BC     bo(CUR), B \
	VADDPS B, C, C \
	VPXORD I, I, I

// NEXT(cbo, bo, BC, pv): predecessor p (pv = p in every lane): D = best +
// (x-cb)²; where D < C, C = D and I = p.
#define NEXT(cbo, bo, BC, pv) \
	VSUBPS    cbo(CB), X, D \
	VMULPS    D, D, D \
	BC        bo(CUR), B \
	VADDPS    B, D, D \
	VCMPPS    $1, C, D, K1 /* K1 = D < C */ \
	VMINPS    C, D, C      /* C = D < C ? D : C */ \
	VMOVDQA32 pv, K1, I    /* I = K1 ? p : I */

// DONE(v): store vector v's best values (permuted) as row v of best_t+1
// and pack its predecessors into byte v of W.
#define DONE(v) \
	VPERMPS C, PERM, C \
	VMOVUPS C, (64*(v))(NXT) \
	VPSLLD  $(8*(v)), I, I \
	VPORD   I, W, W

#define VEC3(v) \
	FIRST(SLOT3(v, 0), BEST3(v, 0), VBROADCASTSD) \
	NEXT(SLOT3(v, 1), BEST3(v, 1), VBROADCASTSD, Z8) \
	NEXT(SLOT3(v, 2), BEST3(v, 2), VBROADCASTSD, Z9) \
	NEXT(SLOT3(v, 3), BEST3(v, 3), VBROADCASTSD, Z10) \
	NEXT(SLOT3(v, 4), BEST3(v, 4), VBROADCASTSD, Z11) \
	NEXT(SLOT3(v, 5), BEST3(v, 5), VBROADCASTSD, Z12) \
	NEXT(SLOT3(v, 6), BEST3(v, 6), VBROADCASTSD, Z13) \
	NEXT(SLOT3(v, 7), BEST3(v, 7), VBROADCASTSD, Z14) \
	DONE(v)

#define VEC2(v) \
	FIRST(SLOT2(v, 0), BEST2(v, 0), VBROADCASTF32X4) \
	NEXT(SLOT2(v, 1), BEST2(v, 1), VBROADCASTF32X4, Z8) \
	NEXT(SLOT2(v, 2), BEST2(v, 2), VBROADCASTF32X4, Z9) \
	NEXT(SLOT2(v, 3), BEST2(v, 3), VBROADCASTF32X4, Z10) \
	DONE(v)

// FINAL(slot, bo, BC): the last step stores each cost at its slot.
#define FINAL(slot, bo, BC) \
	VSUBPS  slot(CB), X, D \
	VMULPS  D, D, D \
	BC      bo(CUR), B \
	VADDPS  B, D, D \
	VMOVUPS D, slot(OUT)

// ARGS loads the arguments, p = 1..7 into Z8-Z14, and skips bt[0].
#define ARGS \
	MOVQ z_base+0(FP), ZP \
	MOVQ z_len+8(FP), NZ \
	MOVQ cb+24(FP), CB \
	MOVQ best+32(FP), CUR \
	LEAQ 256(CUR), NXT \
	MOVQ cost+40(FP), OUT \
	MOVQ bt+48(FP), BT \
	ADDQ $64, BT \
	MOVQ perm+56(FP), AX \
	VMOVDQU32 (AX), PERM \
	MOVL $1, AX \
	VPBROADCASTD AX, Z8 \
	VPADDD Z8, Z8, Z9 \
	VPADDD Z8, Z9, Z10 \
	VPADDD Z8, Z10, Z11 \
	VPADDD Z8, Z11, Z12 \
	VPADDD Z8, Z12, Z13 \
	VPADDD Z8, Z13, Z14

// START broadcasts z[t] and clears the packed predecessors.
#define START \
	VBROADCASTSS (ZP), X \
	ADDQ         $4, ZP \
	VPXORD       W, W, W

// STEPEND stores bt[t+1] and swaps the best buffers.
#define STEPEND \
	VMOVDQU32 W, (BT) \
	ADDQ      $64, BT \
	XCHGQ     CUR, NXT

// func viterbi3AVX512(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[128][64]uint8, perm *[16]int32)
TEXT ·viterbi3AVX512(SB), NOSPLIT, $0-64
	ARGS
	DECQ NZ
	JZ   viterbi3AVX512_final

viterbi3AVX512_loop:
	START
	VEC3(0)
	VEC3(1)
	VEC3(2)
	VEC3(3)
	STEPEND
	DECQ NZ
	JNZ  viterbi3AVX512_loop

viterbi3AVX512_final:
	VBROADCASTSS (ZP), X
	MOVQ $0, AX

viterbi3AVX512_tail: // one vector v (CB and OUT advanced by v·512, CUR by v·8) per trip
	FINAL(SLOT3(0, 0), BEST3(0, 0), VBROADCASTSD)
	FINAL(SLOT3(0, 1), BEST3(0, 1), VBROADCASTSD)
	FINAL(SLOT3(0, 2), BEST3(0, 2), VBROADCASTSD)
	FINAL(SLOT3(0, 3), BEST3(0, 3), VBROADCASTSD)
	FINAL(SLOT3(0, 4), BEST3(0, 4), VBROADCASTSD)
	FINAL(SLOT3(0, 5), BEST3(0, 5), VBROADCASTSD)
	FINAL(SLOT3(0, 6), BEST3(0, 6), VBROADCASTSD)
	FINAL(SLOT3(0, 7), BEST3(0, 7), VBROADCASTSD)
	ADDQ $512, CB
	ADDQ $512, OUT
	ADDQ $8, CUR
	INCQ AX
	CMPQ AX, $4
	JNE  viterbi3AVX512_tail
	VZEROUPPER
	RET

// func viterbi2AVX512(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[128][64]uint8, perm *[16]int32)
TEXT ·viterbi2AVX512(SB), NOSPLIT, $0-64
	ARGS
	DECQ NZ
	JZ   viterbi2AVX512_final

viterbi2AVX512_loop:
	START
	VEC2(0)
	VEC2(1)
	VEC2(2)
	VEC2(3)
	STEPEND
	DECQ NZ
	JNZ  viterbi2AVX512_loop

viterbi2AVX512_final:
	VBROADCASTSS (ZP), X
	MOVQ $0, AX

viterbi2AVX512_tail: // one vector v (CB and OUT advanced by v·256, CUR by v·16) per trip
	FINAL(SLOT2(0, 0), BEST2(0, 0), VBROADCASTF32X4)
	FINAL(SLOT2(0, 1), BEST2(0, 1), VBROADCASTF32X4)
	FINAL(SLOT2(0, 2), BEST2(0, 2), VBROADCASTF32X4)
	FINAL(SLOT2(0, 3), BEST2(0, 3), VBROADCASTF32X4)
	ADDQ $256, CB
	ADDQ $256, OUT
	ADDQ $16, CUR
	INCQ AX
	CMPQ AX, $4
	JNE  viterbi2AVX512_tail
	VZEROUPPER
	RET
