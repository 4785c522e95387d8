// Shared by the float_*_arm64.s files.

// Vector instructions the Go assembler lacks, WORD-encoded. Arguments are
// vector register numbers; the mnemonic each one stands for is beside it.
#define FMUL4S(m, n, d)   WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul   Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d)   WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.4S, Vn.4S, Vm.4S
#define FADD2D(m, n, d)   WORD $(0x4E60D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd   Vd.2D, Vn.2D, Vm.2D
#define FADDPD(n, d)      WORD $(0x7E70D800 | ((n)<<5) | (d))             // faddp  Dd, Vn.2D
#define FCVTL2D(n, d)     WORD $(0x0E617800 | ((n)<<5) | (d))             // fcvtl  Vd.2D, Vn.2S
#define FCVTL22D(n, d)    WORD $(0x4E617800 | ((n)<<5) | (d))             // fcvtl2 Vd.2D, Vn.4S
#define FCVTL4S(n, d)     WORD $(0x0E217800 | ((n)<<5) | (d))             // fcvtl  Vd.4S, Vn.4H
#define FCVTL24S(n, d)    WORD $(0x4E217800 | ((n)<<5) | (d))             // fcvtl2 Vd.4S, Vn.8H
#define FCVTN4H(n, d)     WORD $(0x0E216800 | ((n)<<5) | (d))             // fcvtn  Vd.4H, Vn.4S
#define FCVTN28H(n, d)    WORD $(0x4E216800 | ((n)<<5) | (d))             // fcvtn2 Vd.8H, Vn.4S
#define FCMEQ4S(m, n, d)  WORD $(0x4E20E400 | ((m)<<16) | ((n)<<5) | (d)) // fcmeq  Vd.4S, Vn.4S, Vm.4S
#define XTN4H(n, d)       WORD $(0x0E612800 | ((n)<<5) | (d))             // xtn    Vd.4H, Vn.4S
#define XTN28H(n, d)      WORD $(0x4E612800 | ((n)<<5) | (d))             // xtn2   Vd.8H, Vn.4S

// BF16WIDEN widens the eight bf16 values in src (H8) to float32 in lo (the
// first four) and hi, exactly: a bf16 is the top half of a float32, so
// interleaving a zero half below each value (ZIP1/ZIP2 with zero) is the
// conversion. Arguments are register names.
#define BF16WIDEN(src, zero, lo, hi) \
	VZIP1 src.H8, zero.H8, lo.H8; /* lo = {0, src[0], 0, src[1], ...} as halves */ \
	VZIP2 src.H8, zero.H8, hi.H8

#define ap  R0 // first operand / destination of in-place ops
#define bp  R1 // second operand
#define dp  R2 // destination
#define cnt R3 // values left
#define tmp R4
