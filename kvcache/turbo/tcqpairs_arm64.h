// Shared by expand_arm64.s, score_arm64.s and accum_arm64.s: vector
// instructions the Go assembler lacks, WORD-encoded, and one step of the
// TCQ pair-table decode.

// Arguments are vector register numbers; the mnemonic each one stands for
// is beside it.
#define FMUL4S(m, n, d) WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d)) // fmul  Vd.4S, Vn.4S, Vm.4S
#define FADD4S(m, n, d) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d)) // fadd  Vd.4S, Vn.4S, Vm.4S
#define FADDP4S(m, n, d) WORD $(0x6E20D400 | ((m)<<16) | ((n)<<5) | (d)) // faddp Vd.4S, Vn.4S, Vm.4S
#define FCVTL4S(n, d)   WORD $(0x0E217800 | ((n)<<5) | (d))             // fcvtl Vd.4S, Vn.4H

// FMULE4S(m, l, n, d): fmul Vd.4S, Vn.4S, Vm.S[l], every lane of Vn times
// lane l of Vm (index H:L in bits 11 and 21; m < 32 fills M:Rm).
#define FMULE4S(m, l, n, d) WORD $(0x4F809000 | (((l)&1)<<21) | ((m)<<16) | (((l)>>1)<<11) | ((n)<<5) | (d))

// TCQ: entry x of the pair table holds the levels of the two states in the
// (6+2k)-bit window x of the stream, so value pair p (states 2p, 2p+1) is
// one 8-byte load at the window starting at stream bit 2k·p. Per 16 values
// one 8-byte window WIN of the block is read and UBFX cuts out each pair's
// index; two pairs are joined in one vector (INS) and multiplied by N.
// The including file defines CB (the pair table), WIN and IX, keeps N in
// every lane of V0 and leaves V31 to these macros.

// QUAD(a, b, w, F, V, v) loads the pairs whose w-bit indices start at bits a
// and b of WIN into V (named as F, V and number v) and scales them by N.
#define QUAD(a, b, w, F, V, v) \
	UBFX  $(a), WIN, $w, IX;  \
	FMOVD (CB)(IX<<3), F;   \
	UBFX  $(b), WIN, $w, IX;  \
	FMOVD (CB)(IX<<3), F31; \
	VMOV  V31.D[0], V.D[1]; \
	FMUL4S(0, v, v)

// DECODE16(win, s, d, w, base) puts 16 values in V1..V4: pairs start at bits
// s, s+d, ... of the 8-byte window at win(base).
#define DECODE16(win, s, d, w, base) \
	MOVD win(base), WIN;                    \
	QUAD(s, s+d, w, F1, V1, 1);             \
	QUAD(s+2*d, s+3*d, w, F2, V2, 2);       \
	QUAD(s+4*d, s+5*d, w, F3, V3, 3);       \
	QUAD(s+6*d, s+7*d, w, F4, V4, 4)
