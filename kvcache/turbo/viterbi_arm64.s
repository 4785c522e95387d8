//go:build !purego

#include "textflag.h"

// viterbiNEON3 and viterbiNEON2 run the trellis steps of tcqCode.viterbi
// for k = 3 and k = 2 with NEON, giving viterbiStepsGo's costs and best
// predecessors bit for bit. Semantics and layouts are in viterbi_arm64.go;
// in short, with P = 1<<k, per step t
//
//	for each new memory m' (64) and each p < P:  // state ns = m'·P + p
//	    c = best_t[ns & 63] + float32((z[t] - cb[ns])²)
//	    best_t+1[m'], bt[t+1][m'] = first smallest c over p
//
// A vector holds four m' (lanes) of one p, so the predecessor scan of the
// next step is an elementwise strict ">" (FCMGT + two BIT selects) over the
// P vectors computed for those lanes, and the costs never go to memory
// until the last step. The four best_t values a vector adds are the lanes
// of one register: the step's start loads the 64 best values with LD4,
// which transposes them (the scan stores them in the order that makes it
// so). Products are rounded before the add (FMUL, FADD; never FMLA), as in
// the reference.

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FADD4S(m, n, d)  WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd  Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(m, n, d)  WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d)) // fsub  Vd.4S, Vn.4S, Vm.4S
#define FMUL4S(m, n, d)  WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul  Vd.4S, Vn.4S, Vm.4S
#define FCMGT4S(m, n, d) WORD $(0x6EA0E400 | ((m)<<16) | ((n)<<5) | (d)) // fcmgt Vd.4S, Vn.4S, Vm.4S
#define XTN8B(n, d)      WORD $(0x0E212800 | ((n)<<5) | (d))             // xtn   Vd.8B, Vn.8H

// Register roles. Vectors: V0-V15 best_t, transposed; V16 z[t] in every
// lane; V17 the running smallest cost; V18, V28-V30 its predecessor
// (one per vector of a trip); V19 a new cost; V20 scratch; V21-V27 p = 1..7
// in every lane.
#define ZP R0   // &z[t]
#define NZ R1   // steps left
#define CBB R2  // &cbV[0]
#define TB R3   // &best[0]: best_t+1 as the scan stores it
#define OUTP R4 // final costs cursor
#define BTP R5  // &bt[t+1][m'] cursor
#define TP R6   // best load cursor
#define CBP R7  // codebook cursor
#define ST0 R8  // best store cursor
#define ST1 R9  // best store cursor (k = 3: second half)
#define CNT R10 // trips left in a step

// ARGS loads the arguments, the p constants and bt's cursor (bt[1]).
#define ARGS \
	MOVD z_base+0(FP), ZP;  \
	MOVD z_len+8(FP), NZ;   \
	MOVD cbV+24(FP), CBB;   \
	MOVD best+32(FP), TB;   \
	MOVD cost+40(FP), OUTP; \
	MOVD bt+48(FP), BTP;    \
	ADD  $64, BTP;          \
	MOVD $1, R11; VDUP R11, V21.S4; \
	MOVD $2, R11; VDUP R11, V22.S4; \
	MOVD $3, R11; VDUP R11, V23.S4; \
	MOVD $4, R11; VDUP R11, V24.S4; \
	MOVD $5, R11; VDUP R11, V25.S4; \
	MOVD $6, R11; VDUP R11, V26.S4; \
	MOVD $7, R11; VDUP R11, V27.S4

// START loads best_t (transposed) into V0-V15, z[t] into V16, and resets
// the codebook cursor.
#define START \
	MOVD    TB, TP;                                     \
	VLD4.P  64(TP), [V0.S4, V1.S4, V2.S4, V3.S4];       \
	VLD4.P  64(TP), [V4.S4, V5.S4, V6.S4, V7.S4];       \
	VLD4.P  64(TP), [V8.S4, V9.S4, V10.S4, V11.S4];     \
	VLD4.P  64(TP), [V12.S4, V13.S4, V14.S4, V15.S4];   \
	VLD1R.P 4(ZP), [V16.S4];                            \
	MOVD    CBB, CBP

// COST(b, d) sets V(d) to V(b) + (z[t] - next codebook vector)².
#define COST(b, d) \
	VLD1.P 16(CBP), [V20.S4]; \
	FSUB4S(20, 16, 20);       \
	FMUL4S(20, 20, 20);       \
	FADD4S(20, b, d)

// ROW0(b, ix) starts a scan with p = 0: V17 = its costs, ix = 0.
#define ROW0(b, ix) \
	COST(b, 17); \
	VEOR ix.B16, ix.B16, ix.B16

// ROW(b, pv, ix) scans row p (pv = p in every lane): where the new cost is
// strictly smaller, it replaces V17 and p replaces ix.
#define ROW(b, pv, ix) \
	COST(b, 19);                      \
	FCMGT4S(19, 17, 20);              \
	VBIT    V20.B16, V19.B16, V17.B16; \
	VBIT    V20.B16, pv.B16, ix.B16

// FROW(b) stores the costs of the last step.
#define FROW(b) \
	COST(b, 19); \
	VST1.P [V19.S4], 16(OUTP)

// func viterbiNEON3(z []float32, cbV *[512]float32, best *[64]float32, cost *[512]float32, bt *[128][64]uint8)
TEXT ·viterbiNEON3(SB), NOSPLIT, $0-56
	ARGS
	SUBS $1, NZ
	BEQ  viterbiNEON3_final

viterbiNEON3_step:
	START
	MOVD TB, ST0
	ADD  $128, TB, ST1
	MOVD $8, CNT

viterbiNEON3_loop: // m' = 8o..8o+7, o = 8 - CNT
	ROW0(0, V18); ROW(1, V21, V18); ROW(2, V22, V18); ROW(3, V23, V18)
	ROW(8, V24, V18); ROW(9, V25, V18); ROW(10, V26, V18); ROW(11, V27, V18)
	VST1.P [V17.S4], 16(ST0)  // best of m' = 8o..8o+3
	ROW0(4, V28); ROW(5, V21, V28); ROW(6, V22, V28); ROW(7, V23, V28)
	ROW(12, V24, V28); ROW(13, V25, V28); ROW(14, V26, V28); ROW(15, V27, V28)
	VST1.P [V17.S4], 16(ST1)  // best of m' = 8o+4..8o+7
	VUZP1 V28.H8, V18.H8, V29.H8 // the eight predecessors as halves
	XTN8B(29, 29)
	VST1.P [V29.B8], 8(BTP)
	SUBS $1, CNT
	BNE  viterbiNEON3_loop
	SUBS $1, NZ
	BNE  viterbiNEON3_step

viterbiNEON3_final:
	START
	MOVD $8, CNT

viterbiNEON3_last:
	FROW(0); FROW(1); FROW(2); FROW(3)
	FROW(8); FROW(9); FROW(10); FROW(11)
	FROW(4); FROW(5); FROW(6); FROW(7)
	FROW(12); FROW(13); FROW(14); FROW(15)
	SUBS $1, CNT
	BNE  viterbiNEON3_last
	RET

// func viterbiNEON2(z []float32, cbV *[512]float32, best *[64]float32, cost *[512]float32, bt *[128][64]uint8)
TEXT ·viterbiNEON2(SB), NOSPLIT, $0-56
	ARGS
	SUBS $1, NZ
	BEQ  viterbiNEON2_final

viterbiNEON2_step:
	START
	MOVD TB, ST0
	MOVD $4, CNT

viterbiNEON2_loop: // m' = 16o..16o+15, o = 4 - CNT
	ROW0(0, V18); ROW(1, V21, V18); ROW(2, V22, V18); ROW(3, V23, V18)
	VST1.P [V17.S4], 16(ST0)
	ROW0(4, V28); ROW(5, V21, V28); ROW(6, V22, V28); ROW(7, V23, V28)
	VST1.P [V17.S4], 16(ST0)
	ROW0(8, V29); ROW(9, V21, V29); ROW(10, V22, V29); ROW(11, V23, V29)
	VST1.P [V17.S4], 16(ST0)
	ROW0(12, V30); ROW(13, V21, V30); ROW(14, V22, V30); ROW(15, V23, V30)
	VST1.P [V17.S4], 16(ST0)
	VUZP1 V28.H8, V18.H8, V24.H8 // the sixteen predecessors as halves
	VUZP1 V30.H8, V29.H8, V25.H8
	VUZP1 V25.B16, V24.B16, V24.B16
	VST1.P [V24.B16], 16(BTP)
	SUBS $1, CNT
	BNE  viterbiNEON2_loop
	SUBS $1, NZ
	BNE  viterbiNEON2_step

viterbiNEON2_final:
	START
	MOVD $4, CNT

viterbiNEON2_last:
	FROW(0); FROW(1); FROW(2); FROW(3)
	FROW(4); FROW(5); FROW(6); FROW(7)
	FROW(8); FROW(9); FROW(10); FROW(11)
	FROW(12); FROW(13); FROW(14); FROW(15)
	SUBS $1, CNT
	BNE  viterbiNEON2_last
	RET
