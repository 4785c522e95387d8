//go:build !purego

#include "textflag.h"
#include "tcqpairs_amd64.h"

// Row expansion kernels for ExpandRows (semantics as Go in expand_amd64.go).
// Each routine walks n rows of one block column: it broadcasts the block's
// fp16 norm N to every lane (VPBROADCASTW + VCVTPH2PS), then, fully
// unrolled, turns 16 (AVX-512) or 8 (AVX2) indices into levels and stores
// level·N. Indices are unpacked by broadcasting a 4-byte window of the block
// to every lane and shifting each lane by its own count (VPSRLVD, counts in
// expand_amd64.go); levels come from VPERMPS over a register table (scalar
// types, which ignore index bits above the table) or, for TCQ, from scalar
// loads of level pairs (see PAIR). Window offsets below are block byte offsets;
// every window ends inside the block (noted where it is close).

// Register roles.
#define DP DI   // &dst[r*w]: the row's 128 outputs
#define SRC SI  // the row's block
#define DS R8   // dst stride, bytes
#define SS R9   // src stride, bytes
#define NR R10  // rows left
#define CB R11  // &tcq3Pairs[0] or &tcq2Pairs[0]
#define ZN Z0   // N in every lane

// ARGS loads the common arguments; each routine then returns at once when
// n <= 0.
#define ARGS \
	MOVQ dst+0(FP), DP;        \
	MOVQ src+8(FP), SRC;       \
	MOVQ dstStride+16(FP), DS; \
	MOVQ srcStride+24(FP), SS; \
	MOVQ n+32(FP), NR

// NEXT advances to the next row and jumps to loop while rows are left.
#define NEXT(loop) \
	ADDQ DS, DP;  \
	ADDQ SS, SRC; \
	DECQ NR;      \
	JNZ  loop

// NORM16 broadcasts the block's fp16 norm to the 16 float32 lanes of ZN.
#define NORM16 \
	VPBROADCASTW (SRC), Y0; \
	VCVTPH2PS    Y0, ZN

// AVX-512 register roles.
#define ZLV Z1  // levels, then outputs
#define ZIX Z2  // indices or states
#define ZHI Z3  // turbo3 sign bits
#define ZTAB Z4 // VPERMPS table
#define ZSHA Z5 // shift counts (indices or states)
#define ZSHB Z6 // shift counts (turbo3 sign bits)
#define ZMSK Z7 // 3 in every lane (turbo3)




// HALVES16 sets K1 = lanes 8..15, for merging a second window into them.
#define HALVES16 \
	MOVL  $0xff00, AX; \
	KMOVW AX, K1

// T2_16 stores values 16i..16i+15 of turbo2 (window at 2+4i: 2-bit index j
// at bit 2j; the table repeats the 4 levels, so bits 2-3 need no mask).
#define T2_16(win, out) \
	VPBROADCASTD win(SRC), ZIX; \
	VPSRLVD      ZSHA, ZIX, ZIX; \
	VPERMPS      ZTAB, ZIX, ZLV; \
	VMULPS       ZN, ZLV, ZLV;   \
	VMOVUPS      ZLV, out(DP)

// func expandTurbo2AVX512(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo2AVX512(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo2AVX512_done
	VMOVUPS ·permLevels2(SB), ZTAB
	VMOVDQU32 ·shift2x16(SB), ZSHA

expandTurbo2AVX512_loop:
	NORM16
	T2_16(2, 0)
	T2_16(6, 64)
	T2_16(10, 128)
	T2_16(14, 192)
	T2_16(18, 256)
	T2_16(22, 320)
	T2_16(26, 384)
	T2_16(30, 448) // bytes 30..33 of 34
	NEXT(expandTurbo2AVX512_loop)

expandTurbo2AVX512_done:
	VZEROUPPER
	RET

// T3_16 stores values 16i..16i+15 of turbo3: the low index bits from the
// window at 2+4i (bit 2j), bit 2 from the window at 32+2i, whose bytes 2-3
// are signs[2i:2i+2] (bit 16+j, shifted to bit 2 by 14+j). VPTERNLOGD
// $0xE4 is the bit select ZIX = ZIX&3 | ZHI&^3 (index bit 3 is a don't-care).
#define T3_16(lo, hi, out) \
	VPBROADCASTD lo(SRC), ZIX;          \
	VPBROADCASTD hi(SRC), ZHI;          \
	VPSRLVD      ZSHA, ZIX, ZIX;        \
	VPSRLVD      ZSHB, ZHI, ZHI;        \
	VPTERNLOGD   $0xE4, ZMSK, ZHI, ZIX; \
	VPERMPS      ZTAB, ZIX, ZLV;        \
	VMULPS       ZN, ZLV, ZLV;          \
	VMOVUPS      ZLV, out(DP)

// func expandTurbo3AVX512(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo3AVX512(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo3AVX512_done
	VMOVUPS ·permLevels3(SB), ZTAB
	VMOVDQU32 ·shift2x16(SB), ZSHA
	VMOVDQU32 ·shiftT3Hi(SB), ZSHB
	MOVL    $3, AX
	VPBROADCASTD AX, ZMSK

expandTurbo3AVX512_loop:
	NORM16
	T3_16(2, 32, 0)
	T3_16(6, 34, 64)
	T3_16(10, 36, 128)
	T3_16(14, 38, 192)
	T3_16(18, 40, 256)
	T3_16(22, 42, 320)
	T3_16(26, 44, 384)
	T3_16(30, 46, 448) // bytes 46..49 of 50
	NEXT(expandTurbo3AVX512_loop)

expandTurbo3AVX512_done:
	VZEROUPPER
	RET

// T4_16 stores values 16i..16i+15 of turbo4: nibble j of the window at
// 2+8i (lanes 0-7) and of the one at 6+8i (lanes 8-15, merged under K1);
// VPERMPS takes exactly the 4 low bits.
#define T4_16(a, b, out) \
	VPBROADCASTD a(SRC), ZIX;     \
	VPBROADCASTD b(SRC), K1, ZIX; \
	VPSRLVD      ZSHA, ZIX, ZIX;  \
	VPERMPS      ZTAB, ZIX, ZLV;  \
	VMULPS       ZN, ZLV, ZLV;    \
	VMOVUPS      ZLV, out(DP)

// func expandTurbo4AVX512(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo4AVX512(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo4AVX512_done
	VMOVUPS ·centroids4(SB), ZTAB
	VMOVDQU32 ·shift4x8(SB), ZSHA
	HALVES16

expandTurbo4AVX512_loop:
	NORM16
	T4_16(2, 6, 0)
	T4_16(10, 14, 64)
	T4_16(18, 22, 128)
	T4_16(26, 30, 192)
	T4_16(34, 38, 256)
	T4_16(42, 46, 320)
	T4_16(50, 54, 384)
	T4_16(58, 62, 448) // bytes 62..65 of 66
	NEXT(expandTurbo4AVX512_loop)

expandTurbo4AVX512_done:
	VZEROUPPER
	RET

// AVX2 register roles.
#define YN Y0    // N in every lane
#define YLV Y1   // levels, then outputs
#define YIX Y2   // indices or states
#define YHI Y3   // turbo3 sign bits; turbo4 upper levels
#define YTAB Y4  // VPERMPS table (turbo4: levels 0-7)
#define YSHA Y5  // shift counts
#define YSHB Y6  // shift counts (turbo3 sign bits)
#define YMSK Y7  // 3 in every lane (turbo3)
#define YTAB2 Y8 // turbo4: levels 8-15
#define YG Y9    // turbo4 blend selector

// NORM8 broadcasts the block's fp16 norm to the 8 float32 lanes of YN.
#define NORM8 \
	VPBROADCASTW (SRC), X0; \
	VCVTPH2PS    X0, YN

// BCAST8 sets every lane of reg to the 32-bit constant c.
#define BCAST8(c, reg) \
	MOVL         c, AX;  \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, reg

// T2_8 stores values 8i..8i+7 of turbo2: the window at 2i ends with
// qs[2i:2i+2] (index k at bit 16+2k; the table repeats, so bit 2 is free).
#define T2_8(win, out) \
	VPBROADCASTD win(SRC), YIX; \
	VPSRLVD      YSHA, YIX, YIX; \
	VPERMPS      YTAB, YIX, YLV; \
	VMULPS       YN, YLV, YLV;   \
	VMOVUPS      YLV, out(DP)

// func expandTurbo2AVX2(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo2AVX2(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo2AVX2_done
	VMOVUPS ·permLevels2(SB), YTAB
	VMOVDQU ·shift2x16+32(SB), YSHA // 16, 18, ..., 30

expandTurbo2AVX2_loop:
	NORM8
	T2_8(0, 0)
	T2_8(2, 32)
	T2_8(4, 64)
	T2_8(6, 96)
	T2_8(8, 128)
	T2_8(10, 160)
	T2_8(12, 192)
	T2_8(14, 224)
	T2_8(16, 256)
	T2_8(18, 288)
	T2_8(20, 320)
	T2_8(22, 352)
	T2_8(24, 384)
	T2_8(26, 416)
	T2_8(28, 448)
	T2_8(30, 480) // bytes 30..33 of 34
	NEXT(expandTurbo2AVX2_loop)

expandTurbo2AVX2_done:
	VZEROUPPER
	RET

// T3_8 stores values 8i..8i+7 of turbo3: low bits from the window at 2+2i
// (bit 2k), bit 2 from the window at 31+i, whose top byte is signs[i]
// (bit 24+k, shifted to bit 2 by 22+k); index = lo&3 | hi&^3, whose bits
// above 2 VPERMPS ignores.
#define T3_8(lo, hi, out) \
	VPBROADCASTD lo(SRC), YIX;  \
	VPBROADCASTD hi(SRC), YHI;  \
	VPSRLVD      YSHA, YIX, YIX; \
	VPSRLVD      YSHB, YHI, YHI; \
	VPAND        YMSK, YIX, YIX; \
	VPANDN       YHI, YMSK, YHI; \
	VPOR         YHI, YIX, YIX;  \
	VPERMPS      YTAB, YIX, YLV; \
	VMULPS       YN, YLV, YLV;   \
	VMOVUPS      YLV, out(DP)

// func expandTurbo3AVX2(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo3AVX2(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo3AVX2_done
	VMOVUPS ·centroids3(SB), YTAB
	VMOVDQU ·shift2x8(SB), YSHA
	VMOVDQU ·shiftT3Hi+32(SB), YSHB // 22, ..., 29
	BCAST8($3, YMSK)

expandTurbo3AVX2_loop:
	NORM8
	T3_8(2, 31, 0)
	T3_8(4, 32, 32)
	T3_8(6, 33, 64)
	T3_8(8, 34, 96)
	T3_8(10, 35, 128)
	T3_8(12, 36, 160)
	T3_8(14, 37, 192)
	T3_8(16, 38, 224)
	T3_8(18, 39, 256)
	T3_8(20, 40, 288)
	T3_8(22, 41, 320)
	T3_8(24, 42, 352)
	T3_8(26, 43, 384)
	T3_8(28, 44, 416)
	T3_8(30, 45, 448)
	T3_8(32, 46, 480) // bytes 46..49 of 50
	NEXT(expandTurbo3AVX2_loop)

expandTurbo3AVX2_done:
	VZEROUPPER
	RET

// T4_8 stores values 8i..8i+7 of turbo4 (window at 2+4i, nibble k): two
// 8-entry VPERMPS lookups, blended on index bit 3 (moved to the sign bit:
// set takes the upper level).
#define T4_8(win, out) \
	VPBROADCASTD win(SRC), YIX;      \
	VPSRLVD      YSHA, YIX, YIX;      \
	VPERMPS      YTAB, YIX, YLV;      \
	VPERMPS      YTAB2, YIX, YHI;     \
	VPSLLD       $28, YIX, YG;        \
	VBLENDVPS    YG, YHI, YLV, YLV;   \
	VMULPS       YN, YLV, YLV;        \
	VMOVUPS      YLV, out(DP)

// func expandTurbo4AVX2(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTurbo4AVX2(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTurbo4AVX2_done
	VMOVUPS ·centroids4(SB), YTAB
	VMOVUPS ·centroids4+32(SB), YTAB2
	VMOVDQU ·shift4x8(SB), YSHA

expandTurbo4AVX2_loop:
	NORM8
	T4_8(2, 0)
	T4_8(6, 32)
	T4_8(10, 64)
	T4_8(14, 96)
	T4_8(18, 128)
	T4_8(22, 160)
	T4_8(26, 192)
	T4_8(30, 224)
	T4_8(34, 256)
	T4_8(38, 288)
	T4_8(42, 320)
	T4_8(46, 352)
	T4_8(50, 384)
	T4_8(54, 416)
	T4_8(58, 448)
	T4_8(62, 480) // bytes 62..65 of 66
	NEXT(expandTurbo4AVX2_loop)

expandTurbo4AVX2_done:
	VZEROUPPER
	RET

// TCQ blocks go through a pair table (tcq3Pairs, tcq2Pairs): entry x of the
// (6+2k)-bit window starting at bit 2k·p of the stream holds the codebook
// entries of states 2p and 2p+1 (state 2p+1 is the window's top 6+k bits),
// so one 8-byte load fetches two levels. The loads are scalar: on the Zen 4
// this was measured on, VGATHERDPS and VPGATHERDQ over the pair table were
// 1.6-2.3x slower per block. A gather from the 2 KiB codebook itself
// (states cut out 16 at a time by VPSHUFB + VPSRLVD) was also tried, with
// 64-row chunks of 8 interleaved heads at 16K rows like the engine's:
// 2.0-2.2 G values/s against these kernels' 4.2 on an idle machine (it
// only looked faster under heavy contention, when time slicing evicts the
// 32 KiB pair table from L1). Per 4 pairs one 4-byte window is read;
// RORX (BMI2) + AND cut out each pair's index.

// PAIR stores values 2p, 2p+1 (scaled by N in X0) from the pair whose index
// is bits sh.. of AX.
#define PAIR(sh, mask, out, X) \
	RORXL  $sh, AX, BX;   \
	ANDL   mask, BX;      \
	VMOVQ  (CB)(BX*8), X; \
	VMULPS X0, X, X;      \
	VMOVQ  X, out(DP)

// Q3_8 stores values 8q..8q+7 of turbo3_tcq: pairs 4q..4q+3 start at bits
// 0, 6, 12, 18 of the window at 2+3q.
#define Q3_8(win, o0, o1, o2, o3) \
	MOVL win(SRC), AX;          \
	PAIR(0, $4095, o0, X1);     \
	PAIR(6, $4095, o1, X2);     \
	PAIR(12, $4095, o2, X3);    \
	PAIR(18, $4095, o3, X4)

// func expandTCQ3PairsAVX2(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ3PairsAVX2(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTCQ3PairsAVX2_done
	LEAQ  ·tcq3Pairs(SB), CB

expandTCQ3PairsAVX2_loop:
	NORM8
	Q3_8(2, 0, 8, 16, 24)
	Q3_8(5, 32, 40, 48, 56)
	Q3_8(8, 64, 72, 80, 88)
	Q3_8(11, 96, 104, 112, 120)
	Q3_8(14, 128, 136, 144, 152)
	Q3_8(17, 160, 168, 176, 184)
	Q3_8(20, 192, 200, 208, 216)
	Q3_8(23, 224, 232, 240, 248)
	Q3_8(26, 256, 264, 272, 280)
	Q3_8(29, 288, 296, 304, 312)
	Q3_8(32, 320, 328, 336, 344)
	Q3_8(35, 352, 360, 368, 376)
	Q3_8(38, 384, 392, 400, 408)
	Q3_8(41, 416, 424, 432, 440)
	Q3_8(44, 448, 456, 464, 472)
	Q3_8(47, 480, 488, 496, 504) // bytes 47..50 of 52
	NEXT(expandTCQ3PairsAVX2_loop)

expandTCQ3PairsAVX2_done:
	VZEROUPPER
	RET

// Q2_8 stores values 8q..8q+7 of turbo2_tcq: pairs 4q..4q+3 start at bits
// 0, 4, 8, 12 of the window at 2+2q.
#define Q2_8(win, o0, o1, o2, o3) \
	MOVL win(SRC), AX;          \
	PAIR(0, $1023, o0, X1);     \
	PAIR(4, $1023, o1, X2);     \
	PAIR(8, $1023, o2, X3);     \
	PAIR(12, $1023, o3, X4)

// func expandTCQ2PairsAVX2(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ2PairsAVX2(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTCQ2PairsAVX2_done
	LEAQ  ·tcq2Pairs(SB), CB

expandTCQ2PairsAVX2_loop:
	NORM8
	Q2_8(2, 0, 8, 16, 24)
	Q2_8(4, 32, 40, 48, 56)
	Q2_8(6, 64, 72, 80, 88)
	Q2_8(8, 96, 104, 112, 120)
	Q2_8(10, 128, 136, 144, 152)
	Q2_8(12, 160, 168, 176, 184)
	Q2_8(14, 192, 200, 208, 216)
	Q2_8(16, 224, 232, 240, 248)
	Q2_8(18, 256, 264, 272, 280)
	Q2_8(20, 288, 296, 304, 312)
	Q2_8(22, 320, 328, 336, 344)
	Q2_8(24, 352, 360, 368, 376)
	Q2_8(26, 384, 392, 400, 408)
	Q2_8(28, 416, 424, 432, 440)
	Q2_8(30, 448, 456, 464, 472)
	Q2_8(32, 480, 488, 496, 504) // bytes 32..35 of 36
	NEXT(expandTCQ2PairsAVX2_loop)

expandTCQ2PairsAVX2_done:
	VZEROUPPER
	RET

// The AVX-512 TCQ kernels load the same level pairs but assemble 16 values
// in a register (two pairs per XMM by VMOVQ + VPINSRQ, XMMs into a YMM, YMMs
// into a ZMM), so each 16 values take one multiply by N and one 64-byte
// store instead of eight of each.

// P4 (tcqpairs_amd64.h) puts values 8q..8q+7 of a TCQ block into a YMM.

// Q3_16 stores values 16i..16i+15 of turbo3_tcq from the windows at
// 2+6i and 5+6i.
#define Q3_16(w0, w1, out) \
	P4(w0, 6, 12, 18, $4095, X1, X2, Y1); \
	P4(w1, 6, 12, 18, $4095, X3, X4, Y3); \
	VINSERTI64X4 $1, Y3, Z1, Z1;          \
	VMULPS       ZN, Z1, Z1;              \
	VMOVUPS      Z1, out(DP)

// func expandTCQ3PairsAVX512(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ3PairsAVX512(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTCQ3PairsAVX512_done
	LEAQ  ·tcq3Pairs(SB), CB

expandTCQ3PairsAVX512_loop:
	NORM16
	Q3_16(2, 5, 0)
	Q3_16(8, 11, 64)
	Q3_16(14, 17, 128)
	Q3_16(20, 23, 192)
	Q3_16(26, 29, 256)
	Q3_16(32, 35, 320)
	Q3_16(38, 41, 384)
	Q3_16(44, 47, 448) // bytes 47..50 of 52
	NEXT(expandTCQ3PairsAVX512_loop)

expandTCQ3PairsAVX512_done:
	VZEROUPPER
	RET

// Q2_16 stores values 16i..16i+15 of turbo2_tcq from the windows at
// 2+4i and 4+4i.
#define Q2_16(w0, w1, out) \
	P4(w0, 4, 8, 12, $1023, X1, X2, Y1); \
	P4(w1, 4, 8, 12, $1023, X3, X4, Y3); \
	VINSERTI64X4 $1, Y3, Z1, Z1;         \
	VMULPS       ZN, Z1, Z1;             \
	VMOVUPS      Z1, out(DP)

// func expandTCQ2PairsAVX512(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ2PairsAVX512(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   expandTCQ2PairsAVX512_done
	LEAQ  ·tcq2Pairs(SB), CB

expandTCQ2PairsAVX512_loop:
	NORM16
	Q2_16(2, 4, 0)
	Q2_16(6, 8, 64)
	Q2_16(10, 12, 128)
	Q2_16(14, 16, 192)
	Q2_16(18, 20, 256)
	Q2_16(22, 24, 320)
	Q2_16(26, 28, 384)
	Q2_16(30, 32, 448) // bytes 32..35 of 36
	NEXT(expandTCQ2PairsAVX512_loop)

expandTCQ2PairsAVX512_done:
	VZEROUPPER
	RET
