package golden

// MedianBound returns the bound on the median per-position |Δlogit| over all
// cases of a golden file (keyed by its stem; "stem/flash/f16" and the like
// for the flash-attention runs), and whether one is recorded.
//
// The maximum alone (Tolerance: 0.5 for every quantized type) says little:
// most files agree with llama.cpp to a few 1e-6 because the arithmetic is
// identical, and a file's median only grows when a rounding flip of a q8
// activation early in a case persists through the rest of it. The bounds are
// the largest median measured on every kernel path CI runs (generic, AVX2,
// AVX-512, NEON, NEON with dotprod), times 1.5, and at least 2e-5, so a
// change in the arithmetic of any path shows here long before it reaches the
// maximum.
func MedianBound(stem string) (float64, bool) {
	b, ok := medianBounds[stem]
	return b, ok
}

var medianBounds = map[string]float64{
	"llama-2-tiny-random":                2e-05,
	"stories260K-f16":                    0.0048,
	"stories260K-f32":                    2e-05,
	"synth-llama-tiny-bf16":              0.038,
	"synth-llama-tiny-f16":               0.0064,
	"synth-llama-tiny-f32":               2e-05,
	"synth-llama-tiny-q2_k":              2e-05,
	"synth-llama-tiny-q3_k_m":            0.18,
	"synth-llama-tiny-q4_0":              0.18,
	"synth-llama-tiny-q4_1":              0.17,
	"synth-llama-tiny-q4_k_m":            0.13,
	"synth-llama-tiny-q5_0":              2e-05,
	"synth-llama-tiny-q5_1":              0.21,
	"synth-llama-tiny-q5_k_m":            2e-05,
	"synth-llama-tiny-q6_k":              2e-05,
	"synth-llama-tiny-q8_0":              0.073,
	"synth-llama3-tiny-q4_k_m":           2e-05,
	"synth-llama3-tiny-q4_k_m/flash/f16": 0.27,
	"synth-llama3-tiny-q4_k_m/flash/f32": 2e-05,
	"synth-qwen2-tiny-q8_0":              2e-05,
	"synth-qwen3-spm-f32":                2e-05,
	"synth-qwen3-spm-f32/flash/f16":      0.0062,
	"synth-qwen3-spm-f32/flash/f32":      2e-05,
	"synth-qwen3-spm-q4_k_m":             0.31,
	"synth-qwen3-spm-q8_0":               0.15,
	"synth-qwen35-spm-f32":               5e-05,
	"synth-qwen35moe-spm-f32":            5e-05,
	"synth-qwen35-spm-q8_0":              0.065,
	"synth-qwen35-spm-q4_k_m":            0.25,
}
