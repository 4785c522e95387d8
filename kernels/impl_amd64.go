//go:build !purego

package kernels

// archImplementations returns the amd64 assembly implementations: "avx2"
// (AVX2+FMA+F16C) on top of generic, and "avx512" (F+BW+VL, VNNI used when
// present) on top of avx2. Each family of kernels fills the tables from its
// own file, so a kernel is added without touching this one:
//
//	registerLegacyQuantsAMD64  vecdot_legacy_amd64.go  Q4_0 Q4_1 Q5_0 Q5_1 Q8_0, q8_0/q8_1 quantize
//	registerKQuantsAMD64       vecdot_k_amd64.go       Q2_K..Q6_K, q8_K quantize
//	registerFloatOpsAMD64      float_amd64.go          F32/F16/BF16 dots, vector ops, conversions
//	registerDequantAMD64       dequant_amd64.go        Q8_0, Q4_0 expansion to float32
//
// A nil table entry inherits from the parent implementation.
func archImplementations() []*implementation {
	avx2 := &implementation{name: "avx2", parent: "generic", priority: 1, available: hasAVX2()}
	avx512 := &implementation{name: "avx512", parent: "avx2", priority: 2, available: hasAVX512()}
	for _, register := range []func(avx2, avx512 *kernelTable){
		registerLegacyQuantsAMD64,
		registerKQuantsAMD64,
		registerFloatOpsAMD64,
		registerDequantAMD64,
	} {
		register(&avx2.kernels, &avx512.kernels)
	}
	return []*implementation{avx2, avx512}
}
