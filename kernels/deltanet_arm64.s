//go:build !purego

#include "textflag.h"

// Gated DeltaNet kernels for NEON; contracts in deltanet_arm64.go, the
// semantics in deltanet.go and deltanet_chunk.go.

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul  Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd  Vd.4S, Vn.4S, Vm.4S
#define FMLA4S(m, n, d)   WORD $(0x4E20CC00 | ((m)<<16) | ((n)<<5) | (d)) // fmla  Vd.4S, Vn.4S, Vm.4S (Vd += Vn*Vm, fused)
#define FADDP4S(m, n, d)  WORD $(0x6E20D400 | ((m)<<16) | ((n)<<5) | (d)) // faddp Vd.4S, Vn.4S, Vm.4S ({n0+n1, n2+n3, m0+m1, m2+m3})
#define FADDPS(n, d)      WORD $(0x7E30D800 | ((n)<<5) | (d))             // faddp Sd, Vn.2S

// HSUM8 leaves (V0+V1) summed across its four lanes, pairwise, in F0.
#define HSUM8 \
	FADD4S(1, 0, 0);    \
	FADDP4S(0, 0, 0);   \
	FADDPS(0, 0)

#define ZERO2 \
	VEOR V0.B16, V0.B16, V0.B16; \
	VEOR V1.B16, V1.B16, V1.B16

// func gatedDeltaNEON(s, q, k, v, out *float32, dk, dv int, decay, beta float32)
//
// Per state row (V31 = decay, F30 = beta, V29 = d in every lane):
//
//	pass 1: x = row·decay (stored); u = Σ x·k in V0 (lanes 0-3 of each
//	        8-block) and V1 (lanes 4-7), then HSUM8
//	scalar: d = (v[j] - u)·beta, as the Go code rounds it
//	pass 2: row += d·k (stored); o = Σ row·q the same way, skipped when
//	        out is nil (GatedDeltaUpdate)
TEXT ·gatedDeltaNEON(SB), NOSPLIT, $0-64
	MOVD  s+0(FP), R0     // R0 = current row
	MOVD  q+8(FP), R1
	MOVD  k+16(FP), R2
	MOVD  v+24(FP), R3
	MOVD  out+32(FP), R4  // 0: no output
	MOVD  dk+40(FP), R5
	MOVD  dv+48(FP), R6
	FMOVS decay+56(FP), F31
	VDUP  V31.S[0], V31.S4
	FMOVS beta+60(FP), F30
	LSR   $3, R5          // R5 = 8-blocks per row

gatedDeltaNEON_row:
	MOVD R0, R7           // R7 reads the row, R8 writes it
	MOVD R0, R8
	MOVD R2, R9
	MOVD R5, R11
	ZERO2

gatedDeltaNEON_p1:
	VLD1.P 32(R7), [V2.S4, V3.S4]
	FMUL4S(31, 2, 2)      // x = row·decay
	FMUL4S(31, 3, 3)
	VST1.P [V2.S4, V3.S4], 32(R8)
	VLD1.P 32(R9), [V4.S4, V5.S4]
	FMUL4S(4, 2, 4)       // x·k, rounded
	FMUL4S(5, 3, 5)
	FADD4S(4, 0, 0)       // u += x·k
	FADD4S(5, 1, 1)
	SUBS   $1, R11
	BNE    gatedDeltaNEON_p1
	HSUM8
	FMOVS  (R3), F2
	FSUBS  F0, F2, F2     // v[j] - u
	FMULS  F30, F2, F2    // d = (v[j] - u)·beta
	VDUP   V2.S[0], V29.S4
	MOVD   R0, R7
	MOVD   R0, R8
	MOVD   R2, R9
	MOVD   R1, R10
	MOVD   R5, R11
	ZERO2

gatedDeltaNEON_p2:
	VLD1.P 32(R9), [V4.S4, V5.S4]
	FMUL4S(29, 4, 4)      // d·k, rounded
	FMUL4S(29, 5, 5)
	VLD1.P 32(R7), [V2.S4, V3.S4]
	FADD4S(4, 2, 2)       // row += d·k
	FADD4S(5, 3, 3)
	VST1.P [V2.S4, V3.S4], 32(R8)
	CBZ    R4, gatedDeltaNEON_p2next
	VLD1.P 32(R10), [V6.S4, V7.S4]
	FMUL4S(6, 2, 6)       // row·q, rounded
	FMUL4S(7, 3, 7)
	FADD4S(6, 0, 0)       // o += row·q
	FADD4S(7, 1, 1)

gatedDeltaNEON_p2next:
	SUBS $1, R11
	BNE  gatedDeltaNEON_p2
	CBZ  R4, gatedDeltaNEON_next
	HSUM8
	FMOVS F0, (R4)
	ADD   $4, R4

gatedDeltaNEON_next:
	MOVD R8, R0           // R8 stopped at the next row
	ADD  $4, R3
	SUBS $1, R6
	BNE  gatedDeltaNEON_row
	RET

// func convTapsNEON(out, state, x, w *float32, n, kTaps int)
//
// Eight channels at a time (V0, V1): sum = 0, then sum += w_j·state_j
// (FMUL, then FADD) over the K-1 window rows, then sum += w_{K-1}·x.
TEXT ·convTapsNEON(SB), NOSPLIT, $0-48
	MOVD out+0(FP), R0
	MOVD state+8(FP), R1
	MOVD x+16(FP), R2
	MOVD w+24(FP), R3
	MOVD n+32(FP), R4
	MOVD kTaps+40(FP), R5
	SUB  $1, R5           // R5 = window rows
	LSL  $2, R4, R6       // R6 = bytes per row
	LSR  $3, R4           // R4 = 8-blocks
	MOVD $0, R7           // R7 = byte offset of the block

convTapsNEON_loop:
	ZERO2
	ADD  R7, R1, R8       // R8 = &state[j][c]
	ADD  R7, R3, R9       // R9 = &w[j][c]
	MOVD R5, R10

convTapsNEON_tap:
	CBZ  R10, convTapsNEON_last
	VLD1 (R9), [V2.S4, V3.S4]
	VLD1 (R8), [V4.S4, V5.S4]
	FMUL4S(4, 2, 2)       // w_j·state_j, rounded
	FMUL4S(5, 3, 3)
	FADD4S(2, 0, 0)
	FADD4S(3, 1, 1)
	ADD  R6, R8
	ADD  R6, R9
	SUB  $1, R10
	B    convTapsNEON_tap

convTapsNEON_last:
	VLD1 (R9), [V2.S4, V3.S4]
	ADD  R7, R2, R8
	VLD1 (R8), [V4.S4, V5.S4]
	FMUL4S(4, 2, 2)       // w_{K-1}·x
	FMUL4S(5, 3, 3)
	FADD4S(2, 0, 0)
	FADD4S(3, 1, 1)
	ADD  R7, R0, R8
	VST1 [V0.S4, V1.S4], (R8)
	ADD  $32, R7
	SUBS $1, R4
	BNE  convTapsNEON_loop
	RET

// func deltaDotsNEON(out, rows, x *float32, m, n int)
//
// Four rows at a time share each load of x (V16, V17), two accumulators
// per row (lanes 0-3 and 4-7 of each 8-block: V0/V1, V2/V3, V4/V5,
// V6/V7), folded with FADDP into one vector of four sums; the last m%4
// rows one at a time.
TEXT ·deltaDotsNEON(SB), NOSPLIT, $0-40
	MOVD out+0(FP), R0
	MOVD rows+8(FP), R1   // R1 = row r
	MOVD x+16(FP), R2
	MOVD m+24(FP), R3
	MOVD n+32(FP), R4
	LSL  $2, R4, R5       // R5 = bytes per row
	LSR  $3, R4           // R4 = 8-blocks per row

deltaDotsNEON_quad:
	CMP  $4, R3
	BLT  deltaDotsNEON_single
	ADD  R5, R1, R6       // rows r+1, r+2, r+3
	ADD  R5, R6, R7
	ADD  R5, R7, R8
	ZERO2
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	MOVD R2, R9
	MOVD R4, R10

deltaDotsNEON_quadloop:
	VLD1.P 32(R9), [V16.S4, V17.S4]
	VLD1.P 32(R1), [V18.S4, V19.S4]
	FMLA4S(16, 18, 0)     // acc_r += row_r·x
	FMLA4S(17, 19, 1)
	VLD1.P 32(R6), [V20.S4, V21.S4]
	FMLA4S(16, 20, 2)
	FMLA4S(17, 21, 3)
	VLD1.P 32(R7), [V22.S4, V23.S4]
	FMLA4S(16, 22, 4)
	FMLA4S(17, 23, 5)
	VLD1.P 32(R8), [V24.S4, V25.S4]
	FMLA4S(16, 24, 6)
	FMLA4S(17, 25, 7)
	SUBS   $1, R10
	BNE    deltaDotsNEON_quadloop
	FADD4S(1, 0, 0)
	FADD4S(3, 2, 2)
	FADD4S(5, 4, 4)
	FADD4S(7, 6, 6)
	FADDP4S(2, 0, 0)      // {a01, a23, b01, b23}
	FADDP4S(6, 4, 4)      // {c01, c23, d01, d23}
	FADDP4S(4, 0, 0)      // {a, b, c, d}
	VST1.P [V0.S4], 16(R0)
	MOVD   R8, R1         // R8 stopped at row r+4
	SUB    $4, R3
	B      deltaDotsNEON_quad

deltaDotsNEON_single:
	CBZ  R3, deltaDotsNEON_done
	ZERO2
	MOVD R2, R9
	MOVD R4, R10

deltaDotsNEON_singleloop:
	VLD1.P 32(R9), [V16.S4, V17.S4]
	VLD1.P 32(R1), [V18.S4, V19.S4]
	FMLA4S(16, 18, 0)
	FMLA4S(17, 19, 1)
	SUBS   $1, R10
	BNE    deltaDotsNEON_singleloop
	HSUM8
	FMOVS  F0, (R0)
	ADD    $4, R0
	SUB    $1, R3
	B      deltaDotsNEON_single

deltaDotsNEON_done:
	RET

// func deltaAxpysNEON(y, rows, w *float32, m, n int)
//
// y is walked in blocks of 32 floats held in V0..V7 while every row's
// block is added (w[r] in every lane of V16), then in blocks of 8 (V0,
// V1).
TEXT ·deltaAxpysNEON(SB), NOSPLIT, $0-40
	MOVD y+0(FP), R0
	MOVD rows+8(FP), R1
	MOVD w+16(FP), R2
	MOVD m+24(FP), R3
	MOVD n+32(FP), R4
	LSL  $2, R4, R5       // R5 = bytes per row
	MOVD $0, R6           // R6 = byte offset of the block

deltaAxpysNEON_block32:
	ADD  $128, R6, R7
	CMP  R5, R7
	BGT  deltaAxpysNEON_block8
	ADD  R6, R0, R8       // R8, R9 = the block of y
	ADD  $64, R8, R9
	VLD1 (R8), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1 (R9), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD  R6, R1, R10      // R10 = the block of row r
	MOVD R2, R11
	MOVD R3, R12

deltaAxpysNEON_rows32:
	VLD1R.P 4(R11), [V16.S4]
	ADD     $64, R10, R13
	VLD1    (R10), [V17.S4, V18.S4, V19.S4, V20.S4]
	VLD1    (R13), [V21.S4, V22.S4, V23.S4, V24.S4]
	FMLA4S(16, 17, 0)     // y += w[r]·row_r
	FMLA4S(16, 18, 1)
	FMLA4S(16, 19, 2)
	FMLA4S(16, 20, 3)
	FMLA4S(16, 21, 4)
	FMLA4S(16, 22, 5)
	FMLA4S(16, 23, 6)
	FMLA4S(16, 24, 7)
	ADD     R5, R10
	SUBS    $1, R12
	BNE     deltaAxpysNEON_rows32
	VST1    [V0.S4, V1.S4, V2.S4, V3.S4], (R8)
	VST1    [V4.S4, V5.S4, V6.S4, V7.S4], (R9)
	MOVD    R7, R6
	B       deltaAxpysNEON_block32

deltaAxpysNEON_block8:
	CMP  R5, R6
	BGE  deltaAxpysNEON_done
	ADD  R6, R0, R8
	VLD1 (R8), [V0.S4, V1.S4]
	ADD  R6, R1, R10
	MOVD R2, R11
	MOVD R3, R12

deltaAxpysNEON_rows8:
	VLD1R.P 4(R11), [V16.S4]
	VLD1    (R10), [V17.S4, V18.S4]
	FMLA4S(16, 17, 0)
	FMLA4S(16, 18, 1)
	ADD     R5, R10
	SUBS    $1, R12
	BNE     deltaAxpysNEON_rows8
	VST1    [V0.S4, V1.S4], (R8)
	ADD     $32, R6
	B       deltaAxpysNEON_block8

deltaAxpysNEON_done:
	RET
