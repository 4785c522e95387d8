//go:build !purego

#include "textflag.h"

// q8_K activation quantizer, AVX2 (see quantizeRowQ8_KGeneric). Per
// 256-value super-block: the value of largest magnitude (the first on ties)
// gives iscale = -127/max and d = 1/iscale; q = min(127, round-half-even(
// iscale*x)) and bsums[j] = sum of q[16j:16j+16]. Every step is the same
// float32 operation the generic code does, so the bytes are identical.
// Where iscale overflows to infinity (a subnormal maximum) the products are
// infinite or NaN; Go's int conversion and VCVTPS2DQ both give the
// "indefinite" integer for them, whose low byte and low 16 bits are zero,
// and that is what the generic code stores, so it is zeroed here too.

#define SRC SI    // current source super-block
#define DST DI    // current q8_K block
#define NBLK CX   // super-blocks left
#define ABS Y15   // 0x7fffffff: clears the float sign
#define I127 Y14  // int32 127
#define INDEF Y13 // int32 0x80000000, VCVTPS2DQ's out-of-range result
#define PERM Y12  // kqPackOrder
#define ISCALE Y11

// QUANT8(off, y) sets y to the eight int32 quants of the floats at off(R8).
#define QUANT8(off, y) \
	VMULPS off(R8), ISCALE, y; \
	VCVTPS2DQ y, y /* round half to even (MXCSR default) */; \
	VPMINSD I127, y, y; \
	VPCMPEQD INDEF, y, Y10; \
	VPANDN y, Y10, y /* indefinite -> 0 */

// func quantizeRowQ8_KAVX2(dst []byte, src []float32)
TEXT ·quantizeRowQ8_KAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DST
	MOVQ src_base+24(FP), SRC
	MOVQ src_len+32(FP), NBLK
	SHRQ $8, NBLK
	JZ   quantizeRowQ8_KAVX2_done
	MOVL $0x7fffffff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, ABS
	MOVL $127, AX
	VMOVD AX, X14
	VPBROADCASTD X14, I127
	MOVL $0x80000000, AX
	VMOVD AX, X13
	VPBROADCASTD X13, INDEF
	VMOVDQU ·kqPackOrder(SB), PERM

quantizeRowQ8_KAVX2_loop:
	CALL ·q8KAbsMaxAVX2(SB) // X0 = max |x|, Y0 = broadcast
	VXORPS X1, X1, X1
	VUCOMISS X1, X0
	JEQ  quantizeRowQ8_KAVX2_zero // also taken for a NaN maximum

	// Find the first value with |x| == max; bounded so NaN input cannot run off.
	XORQ AX, AX

quantizeRowQ8_KAVX2_find:
	VANDPS (SRC)(AX*4), ABS, Y1
	VCMPPS $0, Y0, Y1, Y1 // |x| == max
	VMOVMSKPS Y1, DX
	TESTL DX, DX
	JNZ  quantizeRowQ8_KAVX2_found
	ADDQ $8, AX
	CMPQ AX, $256
	JB   quantizeRowQ8_KAVX2_find
	XORQ AX, AX
	MOVL $1, DX

quantizeRowQ8_KAVX2_found:
	BSFL DX, DX // first matching lane
	ADDQ DX, AX
	MOVL $0xc2fe0000, DX // -127.0
	VMOVD DX, X2
	VDIVSS (SRC)(AX*4), X2, X2 // iscale = -127/max
	MOVL $0x3f800000, DX // 1.0
	VMOVD DX, X3
	VDIVSS X2, X3, X3 // d = 1/iscale
	VMOVSS X3, 0(DST)
	VBROADCASTSS X2, ISCALE
	CALL ·q8KQuantBlockAVX2(SB)
	JMP  quantizeRowQ8_KAVX2_next

quantizeRowQ8_KAVX2_zero:
	VPXOR Y1, Y1, Y1
	MOVQ $0, AX

quantizeRowQ8_KAVX2_clear:
	VMOVDQU Y1, (DST)(AX*1)
	ADDQ $32, AX
	CMPQ AX, $288
	JB   quantizeRowQ8_KAVX2_clear
	MOVL $0, 288(DST)

quantizeRowQ8_KAVX2_next:
	ADDQ $1024, SRC
	ADDQ $292, DST
	DECQ NBLK
	JNZ  quantizeRowQ8_KAVX2_loop

quantizeRowQ8_KAVX2_done:
	VZEROUPPER
	RET

// q8KAbsMaxAVX2 sets X0 (and every lane of Y0) to max |x| over the 256 floats
// at SRC. Register-argument helper of quantizeRowQ8_KAVX2; clobbers AX, Y1-Y3.
TEXT ·q8KAbsMaxAVX2(SB), NOSPLIT|NOFRAME, $0-0
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

q8KAbsMaxAVX2_loop:
	VANDPS (SRC)(AX*1), ABS, Y4
	VMAXPS Y4, Y0, Y0
	VANDPS 32(SRC)(AX*1), ABS, Y4
	VMAXPS Y4, Y1, Y1
	VANDPS 64(SRC)(AX*1), ABS, Y4
	VMAXPS Y4, Y2, Y2
	VANDPS 96(SRC)(AX*1), ABS, Y4
	VMAXPS Y4, Y3, Y3
	ADDQ   $128, AX
	CMPQ   AX, $1024
	JB     q8KAbsMaxAVX2_loop
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VMOVHLPS X0, X0, X1 // X1[0:2] = X0[2:4]
	VMAXPS X1, X0, X0
	VMOVSHDUP X0, X1 // X1[0] = X0[1]
	VMAXSS X1, X0, X0
	VBROADCASTSS X0, Y0
	RET

// q8KQuantBlockAVX2 writes the 256 quants and 16 bsums of the block at SRC to
// the q8_K block at DST, with ISCALE set. Register-argument helper of
// quantizeRowQ8_KAVX2; clobbers AX, R8-R10, Y0-Y10.
TEXT ·q8KQuantBlockAVX2(SB), NOSPLIT|NOFRAME, $0-0
	MOVQ SRC, R8
	LEAQ 4(DST), R9   // quants
	LEAQ 260(DST), AX // bsums
	MOVQ $4, R10

q8KQuantBlockAVX2_loop:
	QUANT8(0, Y0)
	QUANT8(32, Y1)
	QUANT8(64, Y2)
	QUANT8(96, Y3)
	QUANT8(128, Y4)
	QUANT8(160, Y5)
	QUANT8(192, Y6)
	QUANT8(224, Y7)
	// Four bsums: sums of Y0+Y1, Y2+Y3, Y4+Y5, Y6+Y7.
	VPADDD Y1, Y0, Y8
	VPADDD Y3, Y2, Y9
	VPHADDD Y9, Y8, Y8 // per lane: pair sums of group 0, then group 1
	VPADDD Y5, Y4, Y9
	VPADDD Y7, Y6, Y10
	VPHADDD Y10, Y9, Y9
	VPHADDD Y9, Y8, Y8 // per lane: half sums of groups 0-3
	VEXTRACTI128 $1, Y8, X9
	VPADDD X9, X8, X8
	VPACKSSDW X8, X8, X8 // int16 (|bsum| <= 16*127)
	VMOVQ X8, (AX)
	// 64 quants to bytes: in-lane packs, then restore the order.
	VPACKSSDW Y1, Y0, Y8
	VPACKSSDW Y3, Y2, Y9
	VPACKSSWB Y9, Y8, Y8
	VPERMD Y8, PERM, Y8
	VMOVDQU Y8, (R9)
	VPACKSSDW Y5, Y4, Y8
	VPACKSSDW Y7, Y6, Y9
	VPACKSSWB Y9, Y8, Y8
	VPERMD Y8, PERM, Y8
	VMOVDQU Y8, 32(R9)
	ADDQ $256, R8
	ADDQ $64, R9
	ADDQ $8, AX
	DECQ R10
	JNZ  q8KQuantBlockAVX2_loop
	RET
