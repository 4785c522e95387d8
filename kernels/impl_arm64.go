//go:build !purego

package kernels

// archImplementations returns the arm64 assembly implementations: "neon"
// (plain Advanced SIMD, on top of generic; widening SMULL/SADALP multiplies
// for the integer block sums) and "neondot" (on top of neon, available when
// the CPU has the dot-product extension; SDOT for the block sums). Each
// family of kernels fills the tables from its own file:
//
//	registerLegacyQuantsARM64  vecdot_legacy_arm64.go  Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 dots and VecDotN
//	registerKQuantsARM64       vecdot_k_arm64.go       Q2_K..Q6_K dots and VecDotN
//	registerQuantizeARM64      quantize_arm64.go       q8_0, q8_1 and q8_K activation quantizers
//	registerFloatOpsARM64      float_arm64.go          F32/F16/BF16 dots, Dot, Add, Mul, Scale, F16/BF16 rows
//	registerActivationsARM64   float_exp_arm64.go      SwiGLU, SoftMax, RMSNorm
//
// The attention kernels (attn_arm64.go) are added by registerAttn.
//
// A nil table entry inherits from the parent implementation, so neondot
// only lists the kernels that SDOT speeds up. WAGGLE_KERNELS=neon forces the
// plain NEON kernels on a dot-product CPU.
func archImplementations() []*implementation {
	neon := &implementation{name: "neon", parent: "generic", priority: 1, available: hasNEON()}
	neondot := &implementation{name: "neondot", parent: "neon", priority: 2, available: hasNEON() && cpuFeatures.ASIMDDP}
	for _, register := range []func(neon, neondot *kernelTable){
		registerLegacyQuantsARM64,
		registerKQuantsARM64,
		registerQuantizeARM64,
		registerFloatOpsARM64,
		registerActivationsARM64,
	} {
		register(&neon.kernels, &neondot.kernels)
	}
	return []*implementation{neon, neondot}
}
