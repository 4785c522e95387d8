package turbo

import "github.com/waggle-llm/waggle/kernels"

// Kernel levels of this package's families, best last. The kernels
// registry (kernels.Register) sets each family's level from the selected
// kernels.Level through turboLevel (levels_<arch>.go), so WAGGLE_KERNELS
// and kernels.SelectLevel move these families with every other; tests step
// a family's variable directly to compare levels.
const (
	levelGo     = iota // the Go reference
	levelAVX2          // amd64: AVX2 with FMA, F16C and BMI2; arm64: NEON (levelNEON)
	levelAVX512        // amd64: AVX-512 F, BW and VL
)

// The level each family runs.
var expandImpl, scoreImpl, accumImpl, rotateImpl, viterbiImpl int

// The families and the registry levels each implements (the
// <family>Levels of the per-architecture files; none without assembly).
func init() {
	for _, f := range []struct {
		name   string
		levels []kernels.Level
		impl   *int
	}{
		{"turbo/expand", expandLevels, &expandImpl},
		{"turbo/score", scoreLevels, &scoreImpl},
		{"turbo/accumulate", accumLevels, &accumImpl},
		{"turbo/rotate", rotateLevels, &rotateImpl},
		{"turbo/viterbi", viterbiLevels, &viterbiImpl},
	} {
		impl := f.impl
		kernels.Register(kernels.Family{Name: f.name, Levels: f.levels, Use: func(l kernels.Level) { *impl = turboLevel(l) }})
	}
}
