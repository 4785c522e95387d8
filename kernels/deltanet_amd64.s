//go:build !purego

#include "textflag.h"

// Gated delta rule for AVX2 (see GatedDeltaStep in deltanet.go for the
// semantics and deltanet_amd64.go for the contract). One state row (dk
// floats, dk a multiple of 8) per value index j, in two passes:
//
//	pass 1: row *= decay (rounded product, stored); u = Σ row·k
//	        (products rounded, added into two 8-lane accumulators, even
//	        8-blocks into the first, odd into the second, then acc0+acc1
//	        and HSUM8)
//	scalar: d = (v[j] - u)·beta, exactly as the Go code rounds it
//	pass 2: row += d·k (product rounded, then added: each element is
//	        bit-identical to the Go loop given the same d); o = Σ row·q
//	        (same accumulator order), skipped when out is nil
//	        (GatedDeltaUpdate)
//
// Products are not fused (no FMA): the Go reference and ggml's scalar path
// round them, and fusing moved the qwen35moe F32 parity with llama.cpp's
// logits from 9.1e-5 to 1.2e-4, past its 1e-4 tolerance. The only
// difference from the Go loop is then the order of the two sums. Both
// entry points run this one routine, so the state they leave is
// bit-identical, which the speculative replay relies on.

// HSUM8 leaves the sum of the eight lanes of Y (alias X) in the low lane of
// X, using T as scratch (the idiom of float_dot_amd64.s).
// VMOVHLPS moves X[2:4] to T[0:2]; VMOVSHDUP moves X[1] to T[0].
#define HSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VADDPS       T, X, X;  \
	VMOVHLPS     X, X, T;  \
	VADDPS       T, X, X;  \
	VMOVSHDUP    X, T;     \
	VADDSS       T, X, X

#define ROW DI // current state row
#define PQ R8
#define PK SI
#define PV R9
#define POUT R10 // 0: no output
#define ROWB BX // dk·4: bytes per row
#define ROW16 R11 // ROWB rounded down to 64 bytes
#define NROW DX
#define OFF AX
#define DECAY Y15
#define BETA X14
#define DVEC Y13

// func gatedDeltaAVX2(s, q, k, v, out *float32, dk, dv int, decay, beta float32)
TEXT ·gatedDeltaAVX2(SB), NOSPLIT, $0-64
	MOVQ         s+0(FP), ROW
	MOVQ         q+8(FP), PQ
	MOVQ         k+16(FP), PK
	MOVQ         v+24(FP), PV
	MOVQ         out+32(FP), POUT
	MOVQ         dk+40(FP), ROWB
	SHLQ         $2, ROWB
	MOVQ         ROWB, ROW16
	ANDQ         $-64, ROW16
	MOVQ         dv+48(FP), NROW
	VBROADCASTSS decay+56(FP), DECAY
	VMOVSS       beta+60(FP), BETA

gatedDeltaAVX2_row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ   OFF, OFF

gatedDeltaAVX2_p1:
	CMPQ        OFF, ROW16
	JGE         gatedDeltaAVX2_p1tail
	VMULPS      (ROW)(OFF*1), DECAY, Y2   // x = row·decay
	VMULPS      32(ROW)(OFF*1), DECAY, Y3
	VMOVUPS     Y2, (ROW)(OFF*1)
	VMOVUPS     Y3, 32(ROW)(OFF*1)
	VMULPS      (PK)(OFF*1), Y2, Y4       // x·k, rounded
	VMULPS      32(PK)(OFF*1), Y3, Y5
	VADDPS      Y4, Y0, Y0                // u0 += x·k
	VADDPS      Y5, Y1, Y1
	ADDQ        $64, OFF
	JMP         gatedDeltaAVX2_p1

gatedDeltaAVX2_p1tail:
	CMPQ        OFF, ROWB
	JGE         gatedDeltaAVX2_p1done
	VMULPS      (ROW)(OFF*1), DECAY, Y2
	VMOVUPS     Y2, (ROW)(OFF*1)
	VMULPS      (PK)(OFF*1), Y2, Y4
	VADDPS      Y4, Y0, Y0

gatedDeltaAVX2_p1done:
	VADDPS       Y1, Y0, Y0
	HSUM8(Y0, X0, X1)
	VMOVSS       (PV), X2
	VSUBSS       X0, X2, X2  // v[j] - u
	VMULSS       BETA, X2, X2 // d = (v[j] - u)·beta
	VBROADCASTSS X2, DVEC
	VXORPS       Y0, Y0, Y0
	VXORPS       Y1, Y1, Y1
	XORQ         OFF, OFF

gatedDeltaAVX2_p2:
	CMPQ        OFF, ROW16
	JGE         gatedDeltaAVX2_p2tail
	VMULPS      (PK)(OFF*1), DVEC, Y4     // d·k, rounded
	VMULPS      32(PK)(OFF*1), DVEC, Y5
	VADDPS      (ROW)(OFF*1), Y4, Y2      // row += d·k
	VADDPS      32(ROW)(OFF*1), Y5, Y3
	VMOVUPS     Y2, (ROW)(OFF*1)
	VMOVUPS     Y3, 32(ROW)(OFF*1)
	TESTQ       POUT, POUT
	JZ          gatedDeltaAVX2_p2next
	VMULPS      (PQ)(OFF*1), Y2, Y4       // row·q, rounded
	VMULPS      32(PQ)(OFF*1), Y3, Y5
	VADDPS      Y4, Y0, Y0                // o0 += row·q
	VADDPS      Y5, Y1, Y1

gatedDeltaAVX2_p2next:
	ADDQ $64, OFF
	JMP  gatedDeltaAVX2_p2

gatedDeltaAVX2_p2tail:
	CMPQ        OFF, ROWB
	JGE         gatedDeltaAVX2_p2done
	VMULPS      (PK)(OFF*1), DVEC, Y4
	VADDPS      (ROW)(OFF*1), Y4, Y2
	VMOVUPS     Y2, (ROW)(OFF*1)
	TESTQ       POUT, POUT
	JZ          gatedDeltaAVX2_p2done
	VMULPS      (PQ)(OFF*1), Y2, Y4
	VADDPS      Y4, Y0, Y0

gatedDeltaAVX2_p2done:
	TESTQ  POUT, POUT
	JZ     gatedDeltaAVX2_next
	VADDPS Y1, Y0, Y0
	HSUM8(Y0, X0, X1)
	VMOVSS X0, (POUT)
	ADDQ   $4, POUT

gatedDeltaAVX2_next:
	ADDQ ROWB, ROW
	ADDQ $4, PV
	DECQ NROW
	JNZ  gatedDeltaAVX2_row
	VZEROUPPER
	RET

// func gatedDeltaAVX512(s, q, k, v, out *float32, dk, dv int, decay, beta float32)
//
// gatedDeltaAVX2 in 16-lane registers (dk a multiple of 16): the same two
// passes, rounded products, two accumulators (even 16-blocks into Z0, odd
// into Z1) folded to 8 lanes and then as HSUM8. Step and update run this
// one routine, so their states are identical.
TEXT ·gatedDeltaAVX512(SB), NOSPLIT, $0-64
	MOVQ         s+0(FP), ROW
	MOVQ         q+8(FP), PQ
	MOVQ         k+16(FP), PK
	MOVQ         v+24(FP), PV
	MOVQ         out+32(FP), POUT
	MOVQ         dk+40(FP), ROWB
	SHLQ         $2, ROWB
	MOVQ         ROWB, ROW16
	ANDQ         $-128, ROW16
	MOVQ         dv+48(FP), NROW
	VBROADCASTSS decay+56(FP), Z15
	VMOVSS       beta+60(FP), BETA

gatedDeltaAVX512_row:
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	XORQ   OFF, OFF

gatedDeltaAVX512_p1:
	CMPQ    OFF, ROW16
	JGE     gatedDeltaAVX512_p1tail
	VMULPS  (ROW)(OFF*1), Z15, Z2  // x = row·decay
	VMULPS  64(ROW)(OFF*1), Z15, Z3
	VMOVUPS Z2, (ROW)(OFF*1)
	VMOVUPS Z3, 64(ROW)(OFF*1)
	VMULPS  (PK)(OFF*1), Z2, Z4    // x·k, rounded
	VMULPS  64(PK)(OFF*1), Z3, Z5
	VADDPS  Z4, Z0, Z0             // u0 += x·k
	VADDPS  Z5, Z1, Z1
	ADDQ    $128, OFF
	JMP     gatedDeltaAVX512_p1

gatedDeltaAVX512_p1tail:
	CMPQ    OFF, ROWB
	JGE     gatedDeltaAVX512_p1done
	VMULPS  (ROW)(OFF*1), Z15, Z2
	VMOVUPS Z2, (ROW)(OFF*1)
	VMULPS  (PK)(OFF*1), Z2, Z4
	VADDPS  Z4, Z0, Z0

gatedDeltaAVX512_p1done:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUM8(Y0, X0, X1)
	VMOVSS        (PV), X2
	VSUBSS        X0, X2, X2  // v[j] - u
	VMULSS        BETA, X2, X2 // d = (v[j] - u)·beta
	VBROADCASTSS  X2, Z13
	VXORPS        Z0, Z0, Z0
	VXORPS        Z1, Z1, Z1
	XORQ          OFF, OFF

gatedDeltaAVX512_p2:
	CMPQ    OFF, ROW16
	JGE     gatedDeltaAVX512_p2tail
	VMULPS  (PK)(OFF*1), Z13, Z4   // d·k, rounded
	VMULPS  64(PK)(OFF*1), Z13, Z5
	VADDPS  (ROW)(OFF*1), Z4, Z2   // row += d·k
	VADDPS  64(ROW)(OFF*1), Z5, Z3
	VMOVUPS Z2, (ROW)(OFF*1)
	VMOVUPS Z3, 64(ROW)(OFF*1)
	TESTQ   POUT, POUT
	JZ      gatedDeltaAVX512_p2next
	VMULPS  (PQ)(OFF*1), Z2, Z4    // row·q, rounded
	VMULPS  64(PQ)(OFF*1), Z3, Z5
	VADDPS  Z4, Z0, Z0             // o0 += row·q
	VADDPS  Z5, Z1, Z1

gatedDeltaAVX512_p2next:
	ADDQ $128, OFF
	JMP  gatedDeltaAVX512_p2

gatedDeltaAVX512_p2tail:
	CMPQ    OFF, ROWB
	JGE     gatedDeltaAVX512_p2done
	VMULPS  (PK)(OFF*1), Z13, Z4
	VADDPS  (ROW)(OFF*1), Z4, Z2
	VMOVUPS Z2, (ROW)(OFF*1)
	TESTQ   POUT, POUT
	JZ      gatedDeltaAVX512_p2done
	VMULPS  (PQ)(OFF*1), Z2, Z4
	VADDPS  Z4, Z0, Z0

gatedDeltaAVX512_p2done:
	TESTQ         POUT, POUT
	JZ            gatedDeltaAVX512_next
	VADDPS        Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUM8(Y0, X0, X1)
	VMOVSS        X0, (POUT)
	ADDQ          $4, POUT

gatedDeltaAVX512_next:
	ADDQ ROWB, ROW
	ADDQ $4, PV
	DECQ NROW
	JNZ  gatedDeltaAVX512_row
	VZEROUPPER
	RET
