package kernels

import "sort"

// tableFamily names one family of kernelTable for reports and tests: has
// tells whether a table holds the family's kernel for weight type t
// (untyped families ignore t); without one, what runs is fallback.
type tableFamily struct {
	name     string
	typed    bool
	has      func(kt *kernelTable, t DType) bool
	fallback string
}

// tableFamilies are this package's kernel families, one per kernelTable
// entry.
var tableFamilies = []tableFamily{
	{"vecdot", true, func(kt *kernelTable, t DType) bool { return kt.vecDot[t] != nil }, ""},
	{"vecdot-cols", true, func(kt *kernelTable, t DType) bool { return kt.vecDotN[t] != nil }, "a vecdot per column"},
	{"quantize", true, func(kt *kernelTable, t DType) bool { return kt.quantize[t] != nil }, ""},
	{"dequantize", true, func(kt *kernelTable, t DType) bool { return kt.dequantize[t] != nil }, ""},
	{"attention-values", true, func(kt *kernelTable, t DType) bool { return kt.attnValues[t] != nil }, ""},
	{"attention-scores", true, func(kt *kernelTable, t DType) bool { return kt.attnScores[t] != nil }, "a vecdot per key"},
	{"decode-4row", true, func(kt *kernelTable, t DType) bool { return kt.fused[t] != nil }, "MatMul"},
	{"gemm", true, func(kt *kernelTable, t DType) bool { return kt.gemm[t] != nil }, "vecdot-cols"},
	{"deltanet", false, func(kt *kernelTable, _ DType) bool { return kt.delta != nil }, "the generic Go loops"},
	{"dot", false, func(kt *kernelTable, _ DType) bool { return kt.dot != nil }, ""},
	{"add", false, func(kt *kernelTable, _ DType) bool { return kt.add != nil }, ""},
	{"mul", false, func(kt *kernelTable, _ DType) bool { return kt.mul != nil }, ""},
	{"scale", false, func(kt *kernelTable, _ DType) bool { return kt.scale != nil }, ""},
	{"swiglu", false, func(kt *kernelTable, _ DType) bool { return kt.swiGLU != nil }, ""},
	{"rmsnorm", false, func(kt *kernelTable, _ DType) bool { return kt.rmsNorm != nil }, ""},
	{"softmax", false, func(kt *kernelTable, _ DType) bool { return kt.softMax != nil }, ""},
	{"online-softmax", false, func(kt *kernelTable, _ DType) bool { return kt.onlineSoftMax != nil }, ""},
}

// provider returns the level whose own kernel of family f for type t runs
// at level l (the nearest of l and its ancestors that registered one), and
// false when no level on the chain has one.
func (f tableFamily) provider(l Level, t DType) (Level, bool) {
	for ; ; l = l.Parent() {
		if f.has(&registry[l], t) {
			return l, true
		}
		if l == Generic {
			return Generic, false
		}
	}
}

// ownLevels returns the levels of this build that register a kernel of f
// themselves (for some type), lowest first.
func (f tableFamily) ownLevels() []Level {
	var ls []Level
	for _, l := range archLevels {
		for t := DType(0); t < dtypeLimit; t++ {
			if f.has(&registry[l], t) {
				ls = append(ls, l)
				break
			}
		}
	}
	return ls
}

// FamilyLevels says which level's kernels of one family run: per level,
// the weight types it serves (nil for an untyped family), and what runs
// where the family has no kernel (other types, or all of them).
type FamilyLevels struct {
	Family string
	Levels []LevelTypes // highest level first; empty when no level has a kernel
	Else   string       // what runs without a kernel ("" when every case has one)
}

// LevelTypes is one level of a FamilyLevels and the types it serves.
type LevelTypes struct {
	Level Level
	Types []DType
}

// Report describes, for every kernel family of the registry (this
// package's and the registered ones), which level's implementation runs
// under the selected level, so a report of a run says what ran.
func Report() []FamilyLevels {
	var out []FamilyLevels
	for _, f := range tableFamilies {
		out = append(out, FamilyLevels{f.name, f.report(activeLevel), f.fallback})
	}
	familiesMu.Lock()
	defer familiesMu.Unlock()
	for _, f := range families {
		out = append(out, FamilyLevels{f.Name, []LevelTypes{{Level: f.levelAt(activeLevel)}}, ""})
	}
	return out
}

// report groups the types of f by the level that serves them at l.
func (f tableFamily) report(l Level) []LevelTypes {
	if !f.typed {
		if p, ok := f.provider(l, 0); ok {
			return []LevelTypes{{Level: p}}
		}
		return nil
	}
	byLevel := map[Level][]DType{}
	for t := DType(0); t < dtypeLimit; t++ {
		if p, ok := f.provider(l, t); ok {
			byLevel[p] = append(byLevel[p], t)
		}
	}
	var out []LevelTypes
	for p, ts := range byLevel {
		out = append(out, LevelTypes{p, ts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Level > out[j].Level })
	return out
}
