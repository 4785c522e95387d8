//go:build !purego

package turbo

import "github.com/waggle-llm/waggle/kernels"

// turboLevel maps a level a family implements to this package's number.
func turboLevel(l kernels.Level) int {
	switch l {
	case kernels.AVX512:
		return levelAVX512
	case kernels.AVX2:
		return levelAVX2
	}
	return levelGo
}

// The registry levels each family implements on amd64: every family has
// AVX2 kernels, all but the rotation AVX-512 ones too.
var (
	expandLevels  = []kernels.Level{kernels.AVX2, kernels.AVX512}
	scoreLevels   = []kernels.Level{kernels.AVX2, kernels.AVX512}
	accumLevels   = []kernels.Level{kernels.AVX2, kernels.AVX512}
	rotateLevels  = []kernels.Level{kernels.AVX2}
	viterbiLevels = []kernels.Level{kernels.AVX2, kernels.AVX512}
)
