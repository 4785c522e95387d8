// Package kernels holds Waggle's CPU math: the GGML tensor types and their
// block layouts, fp16/bf16 conversion, row quantization and dequantization,
// quantized dot products, and the small vector ops a transformer layer needs
// (RMSNorm, SoftMax, SwiGLU, RoPE, element-wise arithmetic).
//
// # Oracle
//
// llama.cpp's ggml is the reference for every kernel. Each function names the
// ggml routine it follows and keeps its observable semantics: block layouts
// are byte-identical to ggml-common.h, quantized dot products accumulate in
// integers per block exactly like ggml's scalar *_generic routines and apply
// the float scales at the end in the same order, and float reductions use the
// same accumulator width (float64 where ggml uses ggml_float).
//
// Go may fuse x*y+z into one FMA on some targets. The generic kernels round
// every product that feeds an addition explicitly (float32(x*y)), so they give
// the same bits on amd64 and arm64 and the same bits as the unfused C code.
//
// # Layout and dispatch
//
// Each op has an untagged <op>.go holding <op>Generic, the reference, which is
// compiled on every target. Faster implementations live beside it in
// <op>_<arch>.go/.s, named for their level (…AVX2, …AVX512, …VNNI, …NEON,
// …NEONDot), and put themselves in their level's row of the registry
// (registry.go, level.go; registry_<arch>.go lists the families). The levels
// are "generic", "avx2" (AVX2+FMA+F16C+BMI2), "avx512" (+F/BW/VL) and
// "avx512vnni" (+VNNI) on amd64, "generic", "neon" and "neondot" (SDOT) on
// arm64. The exported functions call through the table of the level chosen
// once at start-up from the CPU and WAGGLE_KERNELS; SelectLevel switches
// every family at once, those registered from other packages included.
//
// # Preconditions
//
// The exported functions check slice lengths and panic with a message that
// starts with "kernels:" when a caller breaks a documented precondition (a
// programmer error, never a data error). They never allocate.
//
// # Test tolerances
//
// The tolerances below are the only ones the tests use; they are written once
// here so that a later assembly implementation is held to the same bar.
// "Normalized" means |got-want| divided by the sum of the absolute values of
// the terms being combined (for a dot product, sum |w_i*x_i|), so the bound
// does not depend on cancellation. The quantized-dot bounds were set about
// ten times above the worst error seen on 10^4 random rows.
package kernels

// Per-op test tolerances (normalized error unless stated otherwise).
const (
	// tolVecDotDequant bounds VecDot(t, w, x) against the float64 dot of
	// DequantizeRow(t, w) and DequantizeRow(t.VecDotType(), x). The two round
	// in different places (per-block float32 scales versus per-element
	// products), so they agree only to a few float32 ulps of the term sum.
	// Q4_1 and Q5_1 additionally carry the rounding of the activation block
	// sum: ggml stores s = fp16(d32*sum(q)) from the float32 scale d32, while
	// the quants dequantize with fp16(d32); the tests add that bound,
	// |m|*(2^-10*|s| + 2^-24) per block, on top, and count the
	// block offsets (m, dmin*min) twice in the term sum because VecDot applies
	// them separately from the scaled quants.
	tolVecDotDequant = 5e-7

	// tolVecDotImpl bounds any registered VecDot implementation against
	// the generic one. Integer block sums must match exactly; only the order
	// of the float32 scale-and-accumulate steps may differ.
	tolVecDotImpl = 1e-6

	// tolDotImpl bounds Dot implementations against the generic float64
	// accumulation (a SIMD version accumulates in float32 lanes).
	tolDotImpl = 1e-6

	// tolElementwise bounds Add/Mul/Scale/SwiGLU implementations against the
	// generic ones, relative to the magnitude of each result element.
	tolElementwise = 1e-6

	// tolRMSNorm, tolSoftMax and tolSwiGLU bound the generic kernels against
	// straightforward float64 computations, relative per element.
	tolRMSNorm = 1e-6
	tolSoftMax = 1e-6
	tolSwiGLU  = 1e-6

	// tolRope bounds RopeCache/RopeApply against float64 cos/sin of the
	// angles ggml defines (theta_i built by the float32 recurrence
	// theta_i = theta_{i-1}*theta_scale), absolute per element for
	// unit-magnitude inputs.
	tolRope = 1e-5
)
