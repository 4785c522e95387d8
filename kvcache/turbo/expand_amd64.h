// Register roles and macros shared by expand_amd64.s and expand_tcq_amd64.s.

// Register roles.
#define DP DI   // &dst[r*w]: the row's 128 outputs
#define SRC SI  // the row's block
#define DS R8   // dst stride, bytes
#define SS R9   // src stride, bytes
#define NR R10  // rows left
#define CB R11  // the level table: tcq3Pairs, tcq2Pairs or a codebook
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
