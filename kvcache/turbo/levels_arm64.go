//go:build !purego

package turbo

import "github.com/waggle-llm/waggle/kernels"

// levelNEON is arm64's assembly level; it takes the number amd64 gives
// levelAVX2, as one build has only one of them.
const levelNEON = levelAVX2

// turboLevel maps a level a family implements to this package's number.
func turboLevel(l kernels.Level) int {
	if l == kernels.NEON {
		return levelNEON
	}
	return levelGo
}

// The registry levels each family implements on arm64: NEON for all.
var expandLevels, scoreLevels, accumLevels, rotateLevels, viterbiLevels = neonOnly, neonOnly, neonOnly, neonOnly, neonOnly

var neonOnly = []kernels.Level{kernels.NEON}
