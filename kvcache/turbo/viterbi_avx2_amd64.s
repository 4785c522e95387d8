//go:build !purego

#include "textflag.h"

// viterbi3AVX2 and viterbi2AVX2 run the trellis steps of tcqCode.viterbi
// for k = 3 and k = 2 with AVX2, giving viterbiStepsGo's costs and best
// predecessors bit for bit. Semantics and tables are in viterbi_amd64.go
// and viterbi_layout.go (tcqLanes, 8 lanes); in short, lane j of vector v
// for predecessor p is slot (v·P + p)·8 + j, whose state ns is fixed (see
// lane8State), and per step t
//
//	c = best_t[ns & 63] + float32((z[t] - cb[ns])²)   // VSUBPS, VMULPS, VADDPS
//	best_t+1[m'], bt[t+1][m'] = first smallest c over p, m' = ns >> k
//
// The P vectors of one v hold the same eight m' (lanes), so the scan is an
// elementwise strict "<" over them (VCMPPS for the index, VMINPS for the
// cost: it keeps its second operand unless the first is smaller, NaN
// included), done as the costs are made. best_t[ns & 63] is the same for
// every lane (k = 3: VBROADCASTSS) or two values alternating over the lanes
// (k = 2: VBROADCASTSD of a stored pair), so the costs of a step are never
// stored: only the 64 best values, in the order the next step loads them
// (BEST3, BEST2), into the other half of best. Products are rounded before
// the add (no FMA), as in the reference.
//
// The predecessors are packed to bytes as the vectors finish: vector v's
// indices, shifted to byte v&3, OR into W0 (v < 4) or W1, then two unpacks
// put them in m' order for four 16-byte stores (PACKBT).

#define ZP R10  // &z[t]
#define NZ CX   // steps left
#define CB R8   // &cb[0] (slot order)
#define CUR DI  // best_t, as the previous step stored it
#define NXT DX  // best_t+1 being stored
#define OUT R9  // final costs (slot order)
#define BT R11  // &bt[t+1]

#define X Y15  // z[t] in every lane
#define C Y0   // running smallest cost of a vector
#define I Y1   // its predecessor
#define D Y2   // a new cost
#define M Y3   // best_t operand, then the "strictly smaller" mask
#define W0 Y4  // packed predecessors of v = 0..3
#define W1 Y5  // packed predecessors of v = 4..7
#define T0 Y6  // scratch
#define T1 Y7  // scratch

// Offsets of slot (v, p) in cb and in the final costs, in bytes.
#define SLOT3(v, p) (256*(v)+32*(p))
#define SLOT2(v, p) (128*(v)+32*(p))

// Offsets in best_t of the predecessor cost(s) vector v needs for p. k = 3:
// the previous step stored vector b's results (lane a: m' = 8a+b) as row b,
// so best_t[8v+p] is row p, column v. k = 2: vector b's results are stored
// as pairs (m', m'+16) (see STORE2), and pair (best_t[4bLo+p],
// best_t[4bLo+p+16]) with bLo = v&3 | (v&4)<<1 is at this offset.
#define BEST3(v, p) (4*(v)+32*(p))
#define BEST2(v, p) (128*(((v)>>1)&1)+16*((v)>>2)+8*((v)&1)+32*(p))

// FIRST(cbo, bo, BC): predecessor p = 0 of a vector: C = best + (x-cb)², I = 0.
#define FIRST(cbo, bo, BC) \
	VSUBPS cbo(CB), X, C \
	VMULPS C, C, C \
	BC     bo(CUR), M \
	VADDPS M, C, C \
	VPXOR  I, I, I

// NEXT(cbo, bo, BC, pv): predecessor p (pv = p in every lane): D = best +
// (x-cb)²; where D < C, C = D and I = p.
#define NEXT(cbo, bo, BC, pv) \
	VSUBPS    cbo(CB), X, D \
	VMULPS    D, D, D \
	BC        bo(CUR), M \
	VADDPS    M, D, D \
	VCMPPS    $1, C, D, M /* M = D < C */ \
	VMINPS    C, D, C     /* C = D < C ? D : C */ \
	VBLENDVPS M, pv, I, I /* I = M ? p : I */

// PACK(v, W): vector v's predecessors into byte v&3 of the lanes of W.
#define PACK(v, W) \
	VPSLLD $(8*((v)&3)), I, I \
	VPOR   I, W, W

// VEC3(v, W): one k = 3 vector (m' = 8a+v in lane a): scan, store row v
// of best_t+1, pack the predecessors.
#define VEC3(v, W) \
	FIRST(SLOT3(v, 0), BEST3(v, 0), VBROADCASTSS) \
	NEXT(SLOT3(v, 1), BEST3(v, 1), VBROADCASTSS, Y8) \
	NEXT(SLOT3(v, 2), BEST3(v, 2), VBROADCASTSS, Y9) \
	NEXT(SLOT3(v, 3), BEST3(v, 3), VBROADCASTSS, Y10) \
	NEXT(SLOT3(v, 4), BEST3(v, 4), VBROADCASTSS, Y11) \
	NEXT(SLOT3(v, 5), BEST3(v, 5), VBROADCASTSS, Y12) \
	NEXT(SLOT3(v, 6), BEST3(v, 6), VBROADCASTSS, Y13) \
	NEXT(SLOT3(v, 7), BEST3(v, 7), VBROADCASTSS, Y14) \
	VMOVUPS C, (32*(v))(NXT) \
	PACK(v, W)

// STORE2(v): a k = 2 vector's results (lane h+2a: m' = 16a+bLo+4h) go to
// row v of best_t+1 with lanes 1 and 2 of each half swapped, so that m'
// and m'+16 (a even, a+1) sit side by side for BEST2.
#define STORE2(v) \
	VPERMILPS $0xd8, C, C /* lanes 0,2,1,3 of each half */ \
	VMOVUPS   C, (32*(v))(NXT)

// VEC2(v, W): one k = 2 vector: scan, store, pack.
#define VEC2(v, W) \
	FIRST(SLOT2(v, 0), BEST2(v, 0), VBROADCASTSD) \
	NEXT(SLOT2(v, 1), BEST2(v, 1), VBROADCASTSD, Y8) \
	NEXT(SLOT2(v, 2), BEST2(v, 2), VBROADCASTSD, Y9) \
	NEXT(SLOT2(v, 3), BEST2(v, 3), VBROADCASTSD, Y10) \
	STORE2(v) \
	PACK(v, W)

// FINAL(slot, bo, BC): the last step stores each cost at its slot.
#define FINAL(slot, bo, BC) \
	VSUBPS  slot(CB), X, D \
	VMULPS  D, D, D \
	BC      bo(CUR), M \
	VADDPS  M, D, D \
	VMOVUPS D, slot(OUT)

// PACKBT(UNPL, UNPH): W0 and W1 hold bt[t+1] as 16 dwords, dword d of m'
// order in W0 or W1 by the code's lane order; UNPL/UNPH (unpack low/high
// by dword for k = 3, by qword for k = 2) give dwords 0-3 and 8-11 in T0,
// 4-7 and 12-15 in T1.
#define PACKBT(UNPL, UNPH) \
	UNPL         W1, W0, T0 \
	UNPH         W1, W0, T1 \
	VMOVDQU      X6, 0(BT)  /* low half of T0 */ \
	VMOVDQU      X7, 16(BT) /* low half of T1 */ \
	VEXTRACTI128 $1, T0, 32(BT) \
	VEXTRACTI128 $1, T1, 48(BT) \
	ADDQ         $64, BT

// ARGS loads the arguments, p = 1..7 into Y8-Y14, and skips bt[0].
#define ARGS \
	MOVQ z_base+0(FP), ZP \
	MOVQ z_len+8(FP), NZ \
	MOVQ cb+24(FP), CB \
	MOVQ best+32(FP), CUR \
	LEAQ 256(CUR), NXT \
	MOVQ cost+40(FP), OUT \
	MOVQ bt+48(FP), BT \
	ADDQ $64, BT \
	MOVL $1, AX \
	VMOVD AX, X8 \
	VPBROADCASTD X8, Y8 \
	VPADDD Y8, Y8, Y9 \
	VPADDD Y8, Y9, Y10 \
	VPADDD Y8, Y10, Y11 \
	VPADDD Y8, Y11, Y12 \
	VPADDD Y8, Y12, Y13 \
	VPADDD Y8, Y13, Y14

// START broadcasts z[t] and clears the packed predecessors.
#define START \
	VBROADCASTSS (ZP), X \
	ADDQ         $4, ZP \
	VPXOR        W0, W0, W0 \
	VPXOR        W1, W1, W1

// func viterbi3AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[128][64]uint8)
TEXT ·viterbi3AVX2(SB), NOSPLIT, $0-56
	ARGS
	DECQ NZ
	JZ   viterbi3AVX2_final

viterbi3AVX2_loop:
	START
	VEC3(0, W0)
	VEC3(1, W0)
	VEC3(2, W0)
	VEC3(3, W0)
	VEC3(4, W1)
	VEC3(5, W1)
	VEC3(6, W1)
	VEC3(7, W1)
	PACKBT(VPUNPCKLDQ, VPUNPCKHDQ) // W0 lane a: m' = 8a..8a+3, W1: 8a+4..8a+7
	XCHGQ CUR, NXT
	DECQ  NZ
	JNZ   viterbi3AVX2_loop

viterbi3AVX2_final:
	VBROADCASTSS (ZP), X
	MOVQ $0, AX

viterbi3AVX2_tail: // one vector v (CB, OUT and CUR advanced by v) per trip
	FINAL(0, 0, VBROADCASTSS)
	FINAL(32, 32, VBROADCASTSS)
	FINAL(64, 64, VBROADCASTSS)
	FINAL(96, 96, VBROADCASTSS)
	FINAL(128, 128, VBROADCASTSS)
	FINAL(160, 160, VBROADCASTSS)
	FINAL(192, 192, VBROADCASTSS)
	FINAL(224, 224, VBROADCASTSS)
	ADDQ $256, CB
	ADDQ $256, OUT
	ADDQ $4, CUR
	INCQ AX
	CMPQ AX, $8
	JNE  viterbi3AVX2_tail
	VZEROUPPER
	RET

// func viterbi2AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[128][64]uint8)
TEXT ·viterbi2AVX2(SB), NOSPLIT, $0-56
	ARGS
	DECQ NZ
	JZ   viterbi2AVX2_final

viterbi2AVX2_loop:
	START
	VEC2(0, W0)
	VEC2(1, W0)
	VEC2(2, W0)
	VEC2(3, W0)
	VEC2(4, W1)
	VEC2(5, W1)
	VEC2(6, W1)
	VEC2(7, W1)
	PACKBT(VPUNPCKLQDQ, VPUNPCKHQDQ) // W0 lane h+2a: m' = 16a+4h..+3, W1: 16a+8+4h..+3
	XCHGQ CUR, NXT
	DECQ  NZ
	JNZ   viterbi2AVX2_loop

viterbi2AVX2_final:
	VBROADCASTSS (ZP), X
	FINAL(SLOT2(0, 0), BEST2(0, 0), VBROADCASTSD)
	FINAL(SLOT2(0, 1), BEST2(0, 1), VBROADCASTSD)
	FINAL(SLOT2(0, 2), BEST2(0, 2), VBROADCASTSD)
	FINAL(SLOT2(0, 3), BEST2(0, 3), VBROADCASTSD)
	FINAL(SLOT2(1, 0), BEST2(1, 0), VBROADCASTSD)
	FINAL(SLOT2(1, 1), BEST2(1, 1), VBROADCASTSD)
	FINAL(SLOT2(1, 2), BEST2(1, 2), VBROADCASTSD)
	FINAL(SLOT2(1, 3), BEST2(1, 3), VBROADCASTSD)
	FINAL(SLOT2(2, 0), BEST2(2, 0), VBROADCASTSD)
	FINAL(SLOT2(2, 1), BEST2(2, 1), VBROADCASTSD)
	FINAL(SLOT2(2, 2), BEST2(2, 2), VBROADCASTSD)
	FINAL(SLOT2(2, 3), BEST2(2, 3), VBROADCASTSD)
	FINAL(SLOT2(3, 0), BEST2(3, 0), VBROADCASTSD)
	FINAL(SLOT2(3, 1), BEST2(3, 1), VBROADCASTSD)
	FINAL(SLOT2(3, 2), BEST2(3, 2), VBROADCASTSD)
	FINAL(SLOT2(3, 3), BEST2(3, 3), VBROADCASTSD)
	FINAL(SLOT2(4, 0), BEST2(4, 0), VBROADCASTSD)
	FINAL(SLOT2(4, 1), BEST2(4, 1), VBROADCASTSD)
	FINAL(SLOT2(4, 2), BEST2(4, 2), VBROADCASTSD)
	FINAL(SLOT2(4, 3), BEST2(4, 3), VBROADCASTSD)
	FINAL(SLOT2(5, 0), BEST2(5, 0), VBROADCASTSD)
	FINAL(SLOT2(5, 1), BEST2(5, 1), VBROADCASTSD)
	FINAL(SLOT2(5, 2), BEST2(5, 2), VBROADCASTSD)
	FINAL(SLOT2(5, 3), BEST2(5, 3), VBROADCASTSD)
	FINAL(SLOT2(6, 0), BEST2(6, 0), VBROADCASTSD)
	FINAL(SLOT2(6, 1), BEST2(6, 1), VBROADCASTSD)
	FINAL(SLOT2(6, 2), BEST2(6, 2), VBROADCASTSD)
	FINAL(SLOT2(6, 3), BEST2(6, 3), VBROADCASTSD)
	FINAL(SLOT2(7, 0), BEST2(7, 0), VBROADCASTSD)
	FINAL(SLOT2(7, 1), BEST2(7, 1), VBROADCASTSD)
	FINAL(SLOT2(7, 2), BEST2(7, 2), VBROADCASTSD)
	FINAL(SLOT2(7, 3), BEST2(7, 3), VBROADCASTSD)
	VZEROUPPER
	RET
