//go:build purego || !(amd64 || arm64)

package turbo

import "github.com/waggle-llm/waggle/kernels"

// Without assembly every family runs the Go reference.
var expandLevels, scoreLevels, accumLevels, rotateLevels, viterbiLevels []kernels.Level

func turboLevel(kernels.Level) int { return levelGo }
