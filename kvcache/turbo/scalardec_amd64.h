// Shared by accum_amd64.s and score_amd64.s: the AVX-512 decode of 32
// values of a scalar block (turbo2, turbo3, turbo4) with VPERMPS, and the
// constants it keeps in registers. It expects the block at SRC and uses Z2
// and Z3 (and K1, turbo4) as scratch; the levels come out in Z1 (values
// 32k..32k+15) and Z5 (32k+16..), not yet scaled by the norm.

// NOINIT: a routine without constants to load.
#define NOINIT

// Scalar slice k (windows as T2_16, T3_16, T4_16 in expand_amd64.s):
// turbo2 at w = 2+8k and w+4; turbo3 low bits at w = 2+8k and w+4, bit 2
// at 31+w/2 and 33+w/2; turbo4 at w = 2+16k, w+4 (merged under K1), w+8
// and w+12. Table in Z24, shift counts in Z25 (and Z26, turbo3), 3s in
// Z27 (turbo3); Z2, Z3 hold indices.
#define S2DEC32(w) \
	VPBROADCASTD w(SRC), Z2;   \
	VPSRLVD      Z25, Z2, Z2;  \
	VPERMPS      Z24, Z2, Z1;  \
	VPBROADCASTD w+4(SRC), Z3; \
	VPSRLVD      Z25, Z3, Z3;  \
	VPERMPS      Z24, Z3, Z5

// S3GROUP: VPTERNLOGD $0xE4 is the bit select Z2 = Z2&3 | Z3&^3.
#define S3GROUP(lo, hi, out) \
	VPBROADCASTD lo(SRC), Z2;         \
	VPBROADCASTD hi(SRC), Z3;         \
	VPSRLVD      Z25, Z2, Z2;         \
	VPSRLVD      Z26, Z3, Z3;         \
	VPTERNLOGD   $0xE4, Z27, Z3, Z2;  \
	VPERMPS      Z24, Z2, out

#define S3DEC32(w) \
	S3GROUP(w, 31+w/2, Z1); \
	S3GROUP(w+4, 33+w/2, Z5)

// S4GROUP: lanes 8-15 (K1) take the second window's nibbles.
#define S4GROUP(a, b, out) \
	VPBROADCASTD a(SRC), Z2;     \
	VPBROADCASTD b(SRC), K1, Z2; \
	VPSRLVD      Z25, Z2, Z2;    \
	VPERMPS      Z24, Z2, out

#define S4DEC32(w) \
	S4GROUP(w, w+4, Z1); \
	S4GROUP(w+8, w+12, Z5)

#define INIT2 \
	VMOVUPS   ·permLevels2(SB), Z24; \
	VMOVDQU32 ·shift2x16(SB), Z25

#define INIT3 \
	VMOVUPS      ·permLevels3(SB), Z24; \
	VMOVDQU32    ·shift2x16(SB), Z25;   \
	VMOVDQU32    ·shiftT3Hi(SB), Z26;   \
	MOVL         $3, AX;                \
	VPBROADCASTD AX, Z27

#define INIT4 \
	VMOVUPS   ·centroids4(SB), Z24; \
	VMOVDQU32 ·shift4x8(SB), Z25;   \
	MOVL      $0xff00, AX;          \
	KMOVW     AX, K1

