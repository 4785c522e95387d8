package kernels

import (
	"fmt"
	"strings"
)

// Level is an instruction-set level of the kernels. Every kernel family has
// at most one implementation per level; a level runs its own
// implementations and, where it has none, its parent's, so the code that
// runs at a level uses only the instructions of that level and the levels
// below it. The levels form one chain per architecture:
//
//	amd64: generic < avx2 < avx512 < avx512vnni
//	arm64: generic < neon < neondot
type Level uint8

// The levels, each with what the CPU must have for it.
const (
	// Generic is the pure-Go reference, on every CPU.
	Generic Level = iota
	// AVX2 needs AVX2, FMA, F16C and BMI2 (every CPU with AVX2 has all four).
	AVX2
	// AVX512 adds AVX-512 F, BW and VL.
	AVX512
	// AVX512VNNI adds AVX-512 VNNI (VPDPBUSD, VPDPWSSD): the integer dot
	// products, four-row decode and GEMM tiles of the quantized types.
	AVX512VNNI
	// NEON is arm64's Advanced SIMD.
	NEON
	// NEONDot adds the dot-product extension (SDOT, UDOT).
	NEONDot

	numLevels
)

// levelInfo describes one level: its name, its parent and whether this
// CPU runs it.
var levelInfo = [numLevels]struct {
	name   string
	parent Level
	cpu    func() bool
}{
	Generic:    {"generic", Generic, func() bool { return true }},
	AVX2:       {"avx2", Generic, hasAVX2},
	AVX512:     {"avx512", AVX2, hasAVX512},
	AVX512VNNI: {"avx512vnni", AVX512, func() bool { return hasAVX512() && cpuFeatures.AVX512VNNI }},
	NEON:       {"neon", Generic, hasNEON},
	NEONDot:    {"neondot", NEON, func() bool { return hasNEON() && cpuFeatures.ASIMDDP }},
}

// String returns the level's name, as WAGGLE_KERNELS spells it.
func (l Level) String() string {
	if l < numLevels {
		return levelInfo[l].name
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// Parent returns the level below l (Generic for Generic).
func (l Level) Parent() Level { return levelInfo[l].parent }

// Includes reports whether code of level m may run at level l: m is l or
// one of its ancestors.
func (l Level) Includes(m Level) bool {
	for {
		if l == m {
			return true
		}
		if l == Generic {
			return false
		}
		l = l.Parent()
	}
}

// Available reports whether this build has level l and this CPU runs it.
func (l Level) Available() bool {
	return l < numLevels && l.compiled() && levelInfo[l].cpu()
}

// compiled reports whether this build has implementations at level l.
func (l Level) compiled() bool {
	for _, c := range archLevels {
		if c == l {
			return true
		}
	}
	return false
}

// ParseLevel returns the level named s (case and surrounding space
// ignored). Only levels compiled into this build parse.
func ParseLevel(s string) (Level, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for l := Generic; l < numLevels; l++ {
		switch {
		case levelInfo[l].name != s:
		case l.compiled():
			return l, nil
		default:
			return Generic, fmt.Errorf("kernel level %s is not in this build (it has %s)", s, levelList(archLevels))
		}
	}
	return Generic, fmt.Errorf("unknown kernel level %q (this build has %s)", s, levelList(archLevels))
}

// Levels returns the levels this build has and this CPU runs, lowest
// first.
func Levels() []Level {
	var ls []Level
	for _, l := range archLevels {
		if l.Available() {
			ls = append(ls, l)
		}
	}
	return ls
}

// bestLevel is the highest level this CPU runs.
func bestLevel() Level {
	ls := Levels()
	return ls[len(ls)-1]
}

// levelList joins level names for messages.
func levelList(ls []Level) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.String()
	}
	return strings.Join(names, ", ")
}
