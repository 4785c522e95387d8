package turbo

// Kernel levels, best last. On amd64 every kernel family with per-level
// assembly (ExpandRows, the TCQ trellis search, the rotation) starts at the
// one level levelBest (levels_amd64.go) picks, so WAGGLE_KERNELS moves them
// together; tests step each family's level down to levelGo to compare.
const (
	levelGo     = iota // the Go reference
	levelAVX2          // AVX2 with FMA, F16C and BMI2
	levelAVX512        // AVX-512 F, BW and VL
)
