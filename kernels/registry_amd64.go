//go:build !purego

package kernels

// archLevels are the amd64 levels, lowest first.
var archLevels = []Level{Generic, AVX2, AVX512, AVX512VNNI}

// registerArch fills the registry rows of the amd64 levels. Each family of
// kernels fills them from its own file, so a kernel is added without
// touching this one:
//
//	registerLegacyQuantsAMD64  vecdot_legacy_amd64.go  Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 dots, q8_0/q8_1 quantize
//	registerKQuantsAMD64       vecdot_k_amd64.go       Q2_K..Q6_K dots, q8_K quantize
//	registerFloatOpsAMD64      float_amd64.go          F32/F16/BF16 dots, vector ops, conversions
//	registerDequantAMD64       dequantize_amd64.go        Q8_0, Q4_0 expansion to float32
//	registerAttnAMD64          attn_amd64.go           attention scores and value sums
//	registerFusedAMD64         fused_dot4_amd64.go     four-row decode kernels
//	registerGEMMAMD64          gemm_amd64.go           GEMM tiles
//	registerDeltaNetAMD64      deltanet_amd64.go       delta-rule (DeltaNet) kernels
//
// A nil entry inherits from the parent level.
func registerArch(t *levelTables) {
	for _, register := range []func(*levelTables){
		registerLegacyQuantsAMD64,
		registerKQuantsAMD64,
		registerFloatOpsAMD64,
		registerDequantAMD64,
		registerAttnAMD64,
		registerFusedAMD64,
		registerGEMMAMD64,
		registerDeltaNetAMD64,
	} {
		register(t)
	}
}
