//go:build !purego

#include "textflag.h"

// AVX2 helpers of the Gated DeltaNet layer besides the per-token step
// (deltanet_amd64.s): the conv taps and the two primitives of the chunked
// form. Contracts in deltanet_amd64.go.

// HSUM8 leaves the sum of the eight lanes of Y (alias X) in the low lane of
// X, using T as scratch (the idiom of float_dot_amd64.s).
#define HSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VADDPS       T, X, X;  \
	VMOVHLPS     X, X, T;  \
	VADDPS       T, X, X;  \
	VMOVSHDUP    X, T;     \
	VADDSS       T, X, X

// func convTapsAVX2(out, state, x, w *float32, n, kTaps int)
//
// Eight channels at a time: sum = 0, then sum += w_j·state_j (rounded
// product, then add) for the K-1 window rows, then sum += w_{K-1}·x.
TEXT ·convTapsAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ state+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ w+24(FP), R8
	MOVQ n+32(FP), CX
	MOVQ kTaps+40(FP), R9
	DECQ R9               // window rows
	MOVQ CX, BX
	SHLQ $2, BX           // BX = bytes per row of n floats
	XORQ AX, AX           // AX = byte offset of the channel block

convTapsAVX2_loop:
	VXORPS Y0, Y0, Y0
	LEAQ   (SI)(AX*1), R10 // R10 = &state[j][c]
	LEAQ   (R8)(AX*1), R11 // R11 = &w[j][c]
	MOVQ   R9, R12

convTapsAVX2_tap:
	TESTQ  R12, R12
	JZ     convTapsAVX2_last
	VMOVUPS (R11), Y1
	VMULPS  (R10), Y1, Y1  // w_j·state_j, rounded
	VADDPS  Y1, Y0, Y0
	ADDQ    BX, R10
	ADDQ    BX, R11
	DECQ    R12
	JMP     convTapsAVX2_tap

convTapsAVX2_last:
	VMOVUPS (R11), Y1
	VMULPS  (DX)(AX*1), Y1, Y1 // w_{K-1}·x
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	SUBQ    $8, CX
	JNZ     convTapsAVX2_loop
	VZEROUPPER
	RET

// func deltaDotsAVX2(out, rows, x *float32, m, n int)
//
// Four rows at a time share each load of x (four accumulators), folded
// with VHADDPS into one vector of four sums; the last m%4 rows one at a
// time.
TEXT ·deltaDotsAVX2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ m+24(FP), CX
	MOVQ n+32(FP), BX
	SHLQ $2, BX           // BX = bytes per row

deltaDotsAVX2_quad:
	CMPQ   CX, $4
	JLT    deltaDotsAVX2_single
	LEAQ   (SI)(BX*1), R9  // rows r+1, r+2, r+3
	LEAQ   (R9)(BX*1), R10
	LEAQ   (R10)(BX*1), R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

deltaDotsAVX2_quadloop:
	VMOVUPS     (DX)(AX*1), Y4
	VFMADD231PS (SI)(AX*1), Y4, Y0 // acc_r += row_r·x
	VFMADD231PS (R9)(AX*1), Y4, Y1
	VFMADD231PS (R10)(AX*1), Y4, Y2
	VFMADD231PS (R11)(AX*1), Y4, Y3
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         deltaDotsAVX2_quadloop
	VEXTRACTF128 $1, Y0, X4        // fold each accumulator to 4 lanes
	VADDPS       X4, X0, X0
	VEXTRACTF128 $1, Y1, X4
	VADDPS       X4, X1, X1
	VEXTRACTF128 $1, Y2, X4
	VADDPS       X4, X2, X2
	VEXTRACTF128 $1, Y3, X4
	VADDPS       X4, X3, X3
	VHADDPS      X1, X0, X0        // {a01, a23, b01, b23}
	VHADDPS      X3, X2, X2        // {c01, c23, d01, d23}
	VHADDPS      X2, X0, X0        // {a, b, c, d}
	VMOVUPS      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (R11)(BX*1), SI
	SUBQ         $4, CX
	JMP          deltaDotsAVX2_quad

deltaDotsAVX2_single:
	TESTQ  CX, CX
	JZ     deltaDotsAVX2_done
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX

deltaDotsAVX2_singleloop:
	VMOVUPS     (DX)(AX*1), Y4
	VFMADD231PS (SI)(AX*1), Y4, Y0
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         deltaDotsAVX2_singleloop
	HSUM8(Y0, X0, X1)
	VMOVSS      X0, (DI)
	ADDQ        $4, DI
	ADDQ        BX, SI
	DECQ        CX
	JMP         deltaDotsAVX2_single

deltaDotsAVX2_done:
	VZEROUPPER
	RET

// func deltaAxpysAVX2(y, rows, w *float32, m, n int)
//
// y is walked in blocks of 64 floats held in Y0..Y7 while every row's
// block is added (w[r] broadcast in Y8), then in blocks of 8 (Y0 only).
TEXT ·deltaAxpysAVX2(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ m+24(FP), CX
	MOVQ n+32(FP), BX
	SHLQ $2, BX           // BX = bytes per row
	XORQ AX, AX           // AX = byte offset of the block in y and the rows

deltaAxpysAVX2_block64:
	LEAQ    256(AX), R9
	CMPQ    R9, BX
	JGT     deltaAxpysAVX2_block8
	VMOVUPS (DI)(AX*1), Y0
	VMOVUPS 32(DI)(AX*1), Y1
	VMOVUPS 64(DI)(AX*1), Y2
	VMOVUPS 96(DI)(AX*1), Y3
	VMOVUPS 128(DI)(AX*1), Y4
	VMOVUPS 160(DI)(AX*1), Y5
	VMOVUPS 192(DI)(AX*1), Y6
	VMOVUPS 224(DI)(AX*1), Y7
	LEAQ    (SI)(AX*1), R10 // R10 = this block of row r
	XORQ    R11, R11        // R11 = r

deltaAxpysAVX2_rows64:
	VBROADCASTSS (DX)(R11*4), Y8
	VFMADD231PS  (R10), Y8, Y0 // y += w[r]·row_r
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3
	VFMADD231PS  128(R10), Y8, Y4
	VFMADD231PS  160(R10), Y8, Y5
	VFMADD231PS  192(R10), Y8, Y6
	VFMADD231PS  224(R10), Y8, Y7
	ADDQ         BX, R10
	INCQ         R11
	CMPQ         R11, CX
	JLT          deltaAxpysAVX2_rows64
	VMOVUPS      Y0, (DI)(AX*1)
	VMOVUPS      Y1, 32(DI)(AX*1)
	VMOVUPS      Y2, 64(DI)(AX*1)
	VMOVUPS      Y3, 96(DI)(AX*1)
	VMOVUPS      Y4, 128(DI)(AX*1)
	VMOVUPS      Y5, 160(DI)(AX*1)
	VMOVUPS      Y6, 192(DI)(AX*1)
	VMOVUPS      Y7, 224(DI)(AX*1)
	MOVQ         R9, AX
	JMP          deltaAxpysAVX2_block64

deltaAxpysAVX2_block8:
	CMPQ    AX, BX
	JGE     deltaAxpysAVX2_done
	VMOVUPS (DI)(AX*1), Y0
	LEAQ    (SI)(AX*1), R10
	XORQ    R11, R11

deltaAxpysAVX2_rows8:
	VBROADCASTSS (DX)(R11*4), Y8
	VFMADD231PS  (R10), Y8, Y0
	ADDQ         BX, R10
	INCQ         R11
	CMPQ         R11, CX
	JLT          deltaAxpysAVX2_rows8
	VMOVUPS      Y0, (DI)(AX*1)
	ADDQ         $32, AX
	JMP          deltaAxpysAVX2_block8

deltaAxpysAVX2_done:
	VZEROUPPER
	RET
