//go:build !purego

#include "textflag.h"
#include "expand_amd64.h"

// TCQ row expansion by vector state extraction and a gather from the
// codebook itself (2 KiB for turbo3_tcq, 1 KiB for turbo2_tcq), AVX-512
// F/BW. Per 16 values: one 8-byte window of the stream broadcast to every
// qword, VPSHUFB puts the two bytes holding value j's state in dword j,
// VPSRLVD and a mask cut the state out, VGATHERDPS fetches the 16 levels.
// The codebook stays in L1 under the streaming rows, which the 32 KiB pair
// table of the scalar kernel (expand_amd64.s) did not: at 16K context that
// kernel took 60% of a decode step. Semantics as expandColumnGo.

#define ZSHUF Z4
#define ZSHA Z5
#define ZMASK Z6

// G16 stores 16 values at out(DP) whose states lie in the 8 bytes at
// win(SRC), laid out as shuf/ZSHA describe; ix and lv are scratch.
#define G16(win, shuf, ix, lv, out) \
	VPBROADCASTQ win(SRC), ix;       \
	VPSHUFB      shuf, ix, ix;       \
	VPSRLVD      ZSHA, ix, ix;       \
	VPANDD       ZMASK, ix, ix;      \
	KXNORW       K1, K1, K1;         \
	VGATHERDPS   (CB)(ix*4), K1, lv; \
	VMULPS       ZN, lv, lv;         \
	VMOVUPS      lv, out(DP)

// func expandTCQ3Gather(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ3Gather(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   tcq3_done
	LEAQ  ·tcq3Codebook(SB), CB
	VMOVDQU8  ·tcqShuf3(SB), ZSHUF
	VMOVDQU32 ·tcqShift3(SB), ZSHA
	MOVL         $511, AX
	VPBROADCASTD AX, ZMASK

tcq3_loop:
	NORM16
	G16(2, ZSHUF, Z2, Z1, 0)
	G16(8, ZSHUF, Z3, Z8, 64)
	G16(14, ZSHUF, Z9, Z10, 128)
	G16(20, ZSHUF, Z11, Z12, 192)
	G16(26, ZSHUF, Z2, Z1, 256)
	G16(32, ZSHUF, Z3, Z8, 320)
	G16(38, ZSHUF, Z9, Z10, 384)
	G16(44, ZSHUF, Z11, Z12, 448) // bytes 44..51 of 52
	NEXT(tcq3_loop)

tcq3_done:
	VZEROUPPER
	RET

// func expandTCQ2Gather(dst *float32, src *byte, dstStride, srcStride, n int)
TEXT ·expandTCQ2Gather(SB), NOSPLIT, $0-40
	ARGS
	TESTQ NR, NR
	JLE   tcq2_done
	LEAQ  ·tcq2Codebook(SB), CB
	VMOVDQU8  ·tcqShuf2(SB), ZSHUF
	VMOVDQU8  ·tcqShuf2Last(SB), Z7
	VMOVDQU32 ·tcqShift2(SB), ZSHA
	MOVL         $255, AX
	VPBROADCASTD AX, ZMASK

tcq2_loop:
	NORM16
	G16(2, ZSHUF, Z2, Z1, 0)
	G16(6, ZSHUF, Z3, Z8, 64)
	G16(10, ZSHUF, Z9, Z10, 128)
	G16(14, ZSHUF, Z11, Z12, 192)
	G16(18, ZSHUF, Z2, Z1, 256)
	G16(22, ZSHUF, Z3, Z8, 320)
	G16(26, ZSHUF, Z9, Z10, 384)
	G16(27, Z7, Z11, Z12, 448) // window 30 moved back 3 bytes: bytes 27..34 of 36
	NEXT(tcq2_loop)

tcq2_done:
	VZEROUPPER
	RET
