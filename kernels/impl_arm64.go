//go:build !purego

package kernels

// archImplementations returns the arm64 assembly implementations: "neon"
// (parent "generic", available: hasNEON()), whose kernels may pick SDOT
// variants (<op>NEONDot) inside when cpuFeatures.ASIMDDP is set. None exist
// yet, so only generic runs.
func archImplementations() []*implementation { return nil }
