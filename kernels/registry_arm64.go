//go:build !purego

package kernels

// archLevels are the arm64 levels, lowest first: neon (plain Advanced
// SIMD; widening SMULL/SADALP multiplies for the integer block sums) and
// neondot (the dot-product extension; SDOT for the block sums).
var archLevels = []Level{Generic, NEON, NEONDot}

// registerArch fills the registry rows of the arm64 levels. Each family of
// kernels fills them from its own file:
//
//	registerLegacyQuantsARM64  vecdot_legacy_arm64.go  Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 dots and VecDotN
//	registerKQuantsARM64       vecdot_k_arm64.go       Q2_K..Q6_K dots and VecDotN
//	registerQuantizeARM64      quantize_q8_arm64.go       q8_0, q8_1 and q8_K activation quantizers
//	registerFloatOpsARM64      float_arm64.go          F32/F16/BF16 dots, Dot, Add, Mul, Scale, F16/BF16 rows
//	registerActivationsARM64   float_arm64.go          SwiGLU, SoftMax, RMSNorm
//	registerAttnARM64          attn_arm64.go           attention scores and value sums
//	registerDeltaNetARM64      deltanet_arm64.go       delta-rule (DeltaNet) kernels
//
// A nil entry inherits from the parent level, so neondot only lists the
// kernels that SDOT speeds up. WAGGLE_KERNELS=neon forces the plain NEON
// kernels on a dot-product CPU.
func registerArch(t *levelTables) {
	for _, register := range []func(*levelTables){
		registerLegacyQuantsARM64,
		registerKQuantsARM64,
		registerQuantizeARM64,
		registerFloatOpsARM64,
		registerActivationsARM64,
		registerAttnARM64,
		registerDeltaNetARM64,
	} {
		register(t)
	}
}
