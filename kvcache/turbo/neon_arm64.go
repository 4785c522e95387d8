//go:build !purego

package turbo

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// useNEON selects the NEON kernels (expand_arm64.s, rotate_arm64.s,
// viterbi_arm64.s), decided once at start-up. Advanced SIMD is part of
// every arm64 Linux and macOS target, but x/sys/cpu is asked anyway, as the
// kernels package does; WAGGLE_KERNELS=generic forces the Go references.
// Every NEON kernel gives its reference's bits, so the choice changes speed
// only.
var useNEON = cpu.ARM64.HasASIMD &&
	strings.ToLower(strings.TrimSpace(os.Getenv("WAGGLE_KERNELS"))) != "generic"
