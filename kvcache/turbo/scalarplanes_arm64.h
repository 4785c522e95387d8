// Shared by expand_arm64.s and scalar_arm64.s: the byte-plane decode of
// the scalar types (turbo2, turbo3, turbo4). A block's 4, 8 or 16 levels
// are multiplied by its norm N (decodeBlock's own float32 products) and
// split into four byte planes V13..V16 (plane k = byte k of every product);
// the indices are unpacked one per byte, in value order; a TBL per plane
// then gives byte k of 16 values at once, and an interleave (ST4 into
// memory, or two rounds of ZIP in registers: LOOK16) rebuilds the floats.
// Register roles are fixed (the including file follows them): V1-V4
// levels, V5-V8 levels·N, V9-V12 plane selectors, V13-V16 planes, V17
// index mask, V19 sign bits (turbo3), V24-V29 index work, V30 index
// bytes, V31 sign bytes (turbo3); V3, V4, V7, V8 sign-byte selectors
// (turbo3, which has only two level registers). FCVTL4S and FMUL4S come
// from tcqpairs_arm64.h.

// SELECTORS loads the plane selectors: lane i of plane k is byte 4i+k of
// the level table (bytes from 16 up pick from a second table register).
#define SELECTORS \
	VMOVQ $0x1c1814100c080400, $0x3c3834302c282420, V9;  \
	VMOVQ $0x1d1915110d090501, $0x3d3935312d292521, V10; \
	VMOVQ $0x1e1a16120e0a0602, $0x3e3a36322e2a2622, V11; \
	VMOVQ $0x1f1b17130f0b0703, $0x3f3b37332f2b2723, V12

// PLANES1, 2 and 4 split the scaled levels (in 1, 2 or 4 registers from
// V5 on) into V13..V16.
#define PLANES1 \
	VTBL V9.B16, [V5.B16], V13.B16;  \
	VTBL V10.B16, [V5.B16], V14.B16; \
	VTBL V11.B16, [V5.B16], V15.B16; \
	VTBL V12.B16, [V5.B16], V16.B16

#define PLANES2 \
	VTBL V9.B16, [V5.B16, V6.B16], V13.B16;  \
	VTBL V10.B16, [V5.B16, V6.B16], V14.B16; \
	VTBL V11.B16, [V5.B16, V6.B16], V15.B16; \
	VTBL V12.B16, [V5.B16, V6.B16], V16.B16

#define PLANES4 \
	VTBL V9.B16, [V5.B16, V6.B16, V7.B16, V8.B16], V13.B16;  \
	VTBL V10.B16, [V5.B16, V6.B16, V7.B16, V8.B16], V14.B16; \
	VTBL V11.B16, [V5.B16, V6.B16, V7.B16, V8.B16], V15.B16; \
	VTBL V12.B16, [V5.B16, V6.B16, V7.B16, V8.B16], V16.B16

// T3SELECTORS loads turbo3's constants: plane selectors whose entries 0-3
// and 7-10 pick levels 0-3 and 4-7 (see SIGN16), the index mask, the bit
// of each lane in its sign byte, and the sign-byte selectors.
#define T3SELECTORS \
	VMOVQ $0x10ffffff0c080400, $0xffffffffff1c1814, V9;  \
	VMOVQ $0x11ffffff0d090501, $0xffffffffff1d1915, V10; \
	VMOVQ $0x12ffffff0e0a0602, $0xffffffffff1e1a16, V11; \
	VMOVQ $0x13ffffff0f0b0703, $0xffffffffff1f1b17, V12; \
	VMOVI $3, V17.B16;                                   \
	VMOVQ $0x8040201008040201, $0x8040201008040201, V19; \
	VMOVQ $0x0000000000000000, $0x0101010101010101, V3;  /* sign bytes 0, 1 */ \
	VMOVQ $0x0202020202020202, $0x0303030303030303, V4;  /* 2, 3 */ \
	VMOVQ $0x0404040404040404, $0x0505050505050505, V7;  /* 4, 5 */ \
	VMOVQ $0x0606060606060606, $0x0707070707070707, V8   /* 6, 7 */

// UNPACK2 spreads the 64 2-bit indices in V30 (value 4i+s at byte i, bit
// 2s) one per byte, in value order, over V26..V29 (V17 = 3 in every byte).
#define UNPACK2 \
	VAND  V17.B16, V30.B16, V24.B16; /* values 4i */                 \
	VUSHR $2, V30.B16, V25.B16;                                      \
	VAND  V17.B16, V25.B16, V25.B16; /* values 4i+1 */               \
	VUSHR $4, V30.B16, V26.B16;                                      \
	VAND  V17.B16, V26.B16, V26.B16; /* values 4i+2 */               \
	VUSHR $6, V30.B16, V27.B16;      /* values 4i+3 */               \
	VZIP1 V26.B16, V24.B16, V28.B16; /* values 0, 2, 4, ..., 30 */   \
	VZIP1 V27.B16, V25.B16, V29.B16; /* values 1, 3, 5, ..., 31 */   \
	VZIP2 V26.B16, V24.B16, V24.B16; /* values 32, 34, ..., 62 */    \
	VZIP2 V27.B16, V25.B16, V25.B16; /* values 33, 35, ..., 63 */    \
	VZIP1 V29.B16, V28.B16, V26.B16; /* values 0..15 */              \
	VZIP2 V29.B16, V28.B16, V27.B16; /* values 16..31 */             \
	VZIP1 V25.B16, V24.B16, V28.B16; /* values 32..47 */             \
	VZIP2 V25.B16, V24.B16, V29.B16  /* values 48..63 */

// SIGN16(sel, y) adds 7 to each index in y whose sign bit (in V31) is
// set: lane j takes bit j%8 of the byte sel picks for it. The turbo3 planes
// hold levels 0-3 at entries 0-3 and levels 4-7 at entries 7-10, so the
// 0xff of CMTST shifted right by 5 is the whole merge.
#define SIGN16(sel, y) \
	VTBL   sel, [V31.B16], V24.B16;   /* the lane's sign byte */        \
	VCMTST V19.B16, V24.B16, V24.B16; /* 0xff where its bit is set */   \
	VUSRA  $5, V24.B16, y             /* y += 7 there */

// T3IDX64 puts turbo3's 64 indices (low bits in V30, sign bytes in V31)
// one per byte, in value order, in V26..V29, in the planes' numbering.
#define T3IDX64 \
	UNPACK2;                 \
	SIGN16(V3.B16, V26.B16); \
	SIGN16(V4.B16, V27.B16); \
	SIGN16(V7.B16, V28.B16); \
	SIGN16(V8.B16, V29.B16)

// T4IDX32 puts turbo4's 32 indices in the 16 bytes of V30 (even values in
// the low nibbles, odd ones in the high; V17 = 15) one per byte, in value
// order, in V26, V27.
#define T4IDX32 \
	VAND  V17.B16, V30.B16, V24.B16; \
	VUSHR $4, V30.B16, V25.B16;      \
	VZIP1 V25.B16, V24.B16, V26.B16; \
	VZIP2 V25.B16, V24.B16, V27.B16

// LOOK16(y, p0, p1, p2, p3, t0, t1, t2, t3, v0, v1, v2, v3) puts the 16
// values whose plane indices are the bytes of y (full names: V29.B16) in
// v0..v3 (register names, V1), in order, from the planes p0..p3 (V9):
// plane bytes in v0..v3, byte pairs in t0..t3, then whole values.
#define LOOK16(y, p0, p1, p2, p3, t0, t1, t2, t3, v0, v1, v2, v3) \
	VTBL  y, [p0.B16], v0.B16;      \
	VTBL  y, [p1.B16], v1.B16;      \
	VTBL  y, [p2.B16], v2.B16;      \
	VTBL  y, [p3.B16], v3.B16;      \
	VZIP1 v1.B16, v0.B16, t0.B16;   /* bytes 0, 1 of values 0..7 */ \
	VZIP2 v1.B16, v0.B16, t1.B16;   /* of values 8..15 */           \
	VZIP1 v3.B16, v2.B16, t2.B16;   /* bytes 2, 3 of values 0..7 */ \
	VZIP2 v3.B16, v2.B16, t3.B16;   /* of values 8..15 */           \
	VZIP1 t2.H8, t0.H8, v0.H8;      /* values 0..3 */               \
	VZIP2 t2.H8, t0.H8, v1.H8;      /* 4..7 */                      \
	VZIP1 t3.H8, t1.H8, v2.H8;      /* 8..11 */                     \
	VZIP2 t3.H8, t1.H8, v3.H8       /* 12..15 */

// T2INIT, T3INIT, T4INIT load a type's levels (V1.., from QP's table),
// the plane selectors and the index mask; T2PLANES, T3PLANES, T4PLANES
// scale the levels by the row's norm (NORM) and split them into the
// planes V13..V16. The expansion and the row records (scalar_arm64.s)
// decode a row alike up to here.
#define T2INIT \
	MOVD  $·centroids2(SB), QP; \
	VLD1  (QP), [V1.S4];        \
	SELECTORS;                  \
	VMOVI $3, V17.B16

#define T3INIT \
	MOVD  $·centroids3(SB), QP;     \
	VLD1  (QP), [V1.S4, V2.S4];     \
	T3SELECTORS

#define T4INIT \
	MOVD  $·centroids4(SB), QP;                     \
	VLD1  (QP), [V1.S4, V2.S4, V3.S4, V4.S4];       \
	SELECTORS;                                      \
	VMOVI $15, V17.B16

#define T2PLANES \
	NORM;            \
	FMUL4S(0, 1, 5); \
	PLANES1

#define T3PLANES \
	NORM;            \
	FMUL4S(0, 1, 5); \
	FMUL4S(0, 2, 6); \
	PLANES2

#define T4PLANES \
	NORM;            \
	FMUL4S(0, 1, 5); \
	FMUL4S(0, 2, 6); \
	FMUL4S(0, 3, 7); \
	FMUL4S(0, 4, 8); \
	PLANES4
