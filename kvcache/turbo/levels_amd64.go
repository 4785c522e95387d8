//go:build !purego

package turbo

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// levelBest is the best kernel level this CPU runs, decided once at
// start-up: AVX-512 needs F (16-lane VPERMPS, VPTERNLOGD, mask registers),
// BW and VL; AVX2 needs useAVX2 (AVX2 and FMA), F16C (VCVTPH2PS for the
// norm) and BMI2 (RORX, TCQ kernels). Every AVX2 and AVX-512 CPU made has
// F16C and BMI2, so one rule serves every kernel family even where one of
// them needs less. WAGGLE_KERNELS=generic gives levelGo (through useAVX2),
// =avx2 caps the level at levelAVX2.
var levelBest = func() int {
	switch {
	case !useAVX2 || !cpu.X86.HasF16C || !cpu.X86.HasBMI2:
		return levelGo
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL &&
		strings.ToLower(strings.TrimSpace(os.Getenv("WAGGLE_KERNELS"))) != "avx2":
		return levelAVX512
	}
	return levelAVX2
}()
