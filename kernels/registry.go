package kernels

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Signatures of the kernels that implementations provide. Each one is called
// only after the exported wrapper has checked the lengths.
type (
	// vecDotFunc returns the dot of n weight values in w with n activation
	// values in x (already in the weight type's VecDotType).
	vecDotFunc func(n int, w, x []byte) float32
	// dequantizeFunc expands len(dst) values from src.
	dequantizeFunc func(dst []float32, src []byte)
	// quantizeFunc packs len(src) values into dst.
	quantizeFunc func(dst []byte, src []float32)
	// vecDotNFunc computes out[c] = dot(w, x[c*xStride:]) for c < len(out),
	// 1 <= len(out) <= MaxDotCols: one weight row against several activation
	// columns, so a prefill matmul unpacks each weight block once.
	vecDotNFunc func(n int, w, x []byte, xStride int, out []float32)
)

// MaxDotCols is the most activation columns one VecDotN call takes.
const MaxDotCols = 4

// kernelTable is the registry's row for one level: every kernel family of
// this package, per weight type where the family is typed. In a level's
// own table a nil entry means "the parent level's"; resolve overlays the
// chain into the full table a level runs.
type kernelTable struct {
	vecDot     [dtypeLimit]vecDotFunc
	vecDotN    [dtypeLimit]vecDotNFunc
	dequantize [dtypeLimit]dequantizeFunc
	quantize   [dtypeLimit]quantizeFunc
	attnValues [dtypeLimit]attnValuesFunc
	attnScores [dtypeLimit]attnScoresFunc // nil: a vecDot per key
	fused      [dtypeLimit]*fusedKernels  // nil: DecodeMatMul is MatMul
	gemm       [dtypeLimit]*gemmKernel    // nil: MatMul runs VecDotN
	delta      *deltaKernels              // nil: the Go delta-rule loops
	dot        func(a, b []float32) float32
	add        func(dst, a, b []float32)
	mul        func(dst, a, b []float32)
	scale      func(x []float32, s float32)
	swiGLU     func(dst, gate, up []float32)
	rmsNorm    func(dst, x []float32, eps float32)
	softMax    func(x []float32)

	// onlineSoftMax scales x by s, returns max(m, x…) and replaces x with
	// exp(x[i]-max), returning their sum too (OnlineSoftMax).
	onlineSoftMax func(x []float32, s, m float32) (float32, float64)
}

// overlay copies the non-nil entries of src over dst.
func (dst *kernelTable) overlay(src *kernelTable) {
	for i := range dtypeLimit {
		if src.vecDot[i] != nil {
			dst.vecDot[i] = src.vecDot[i]
		}
		if src.vecDotN[i] != nil {
			dst.vecDotN[i] = src.vecDotN[i]
		}
		if src.dequantize[i] != nil {
			dst.dequantize[i] = src.dequantize[i]
		}
		if src.quantize[i] != nil {
			dst.quantize[i] = src.quantize[i]
		}
		if src.attnValues[i] != nil {
			dst.attnValues[i] = src.attnValues[i]
		}
		if src.attnScores[i] != nil {
			dst.attnScores[i] = src.attnScores[i]
		}
		if src.fused[i] != nil {
			dst.fused[i] = src.fused[i]
		}
		if src.gemm[i] != nil {
			dst.gemm[i] = src.gemm[i]
		}
	}
	dst.overlayOps(src)
}

// overlayOps copies the non-nil untyped entries of src over dst.
func (dst *kernelTable) overlayOps(src *kernelTable) {
	if src.delta != nil {
		dst.delta = src.delta
	}
	if src.dot != nil {
		dst.dot = src.dot
	}
	if src.add != nil {
		dst.add = src.add
	}
	if src.mul != nil {
		dst.mul = src.mul
	}
	if src.scale != nil {
		dst.scale = src.scale
	}
	if src.swiGLU != nil {
		dst.swiGLU = src.swiGLU
	}
	if src.rmsNorm != nil {
		dst.rmsNorm = src.rmsNorm
	}
	if src.softMax != nil {
		dst.softMax = src.softMax
	}
	if src.onlineSoftMax != nil {
		dst.onlineSoftMax = src.onlineSoftMax
	}
}

// genericTable is the pure-Go reference, the Generic level's row.
func genericTable() kernelTable {
	return kernelTable{
		vecDot:     vecDotGeneric,
		dequantize: dequantizeGeneric,
		quantize:   quantizeGeneric,
		attnValues: attnValuesGeneric,
		dot:        dotGeneric,
		add:        addGeneric,
		mul:        mulGeneric,
		scale:      scaleGeneric,
		swiGLU:     swiGLUGeneric,
		rmsNorm:    rmsNormGeneric,
		softMax:    softMaxGeneric,

		onlineSoftMax: onlineSoftMaxGeneric,
	}
}

// levelTables is the registry: for each level, the kernels that level
// implements itself. registerArch (registry_<arch>.go) fills the rows of the
// architecture's levels, each family of kernels from its own file.
type levelTables [numLevels]kernelTable

// registry is built during package variable initialization, before the
// start-up selection reads it, and never changes afterwards.
var registry = func() *levelTables {
	var t levelTables
	t[Generic] = genericTable()
	registerArch(&t)
	return &t
}()

// resolveLevel returns the full table level l runs: generic overlaid with
// every ancestor's own row, then with l's.
func resolveLevel(l Level) kernelTable {
	var chain []Level
	for m := l; ; m = m.Parent() {
		chain = append(chain, m)
		if m == Generic {
			break
		}
	}
	var kt kernelTable
	for i := len(chain) - 1; i >= 0; i-- {
		kt.overlay(&registry[chain[i]])
	}
	return kt
}

// resolve returns the full table of the named level, or an error when this
// build or this CPU has no such level.
func resolve(name string) (kernelTable, error) {
	l, err := availableLevel(name)
	if err != nil {
		return kernelTable{}, err
	}
	return resolveLevel(l), nil
}

// availableLevel parses name and checks that this CPU runs the level.
func availableLevel(name string) (Level, error) {
	l, err := ParseLevel(name)
	if err != nil {
		return Generic, err
	}
	if !l.Available() {
		return Generic, fmt.Errorf("kernel level %s is not supported by this CPU (it runs %s)", l, levelList(Levels()))
	}
	return l, nil
}

// levelFromEnv is the one reader of WAGGLE_KERNELS: empty or "auto" is the
// best level this CPU runs; anything else must name a level this build has
// and this CPU runs.
func levelFromEnv(v string) (Level, error) {
	if s := strings.ToLower(strings.TrimSpace(v)); s == "" || s == "auto" {
		return bestLevel(), nil
	}
	return availableLevel(v)
}

// active is the kernel table the exported functions call through, and
// activeLevel its level. Both change only in SelectLevel, which must not
// run concurrently with kernel calls.
var activeLevel, active = initialSelection()

// initialSelection applies WAGGLE_KERNELS. A value that names no level
// this build has, or one this CPU does not run, ends the process with the
// reason on stderr: running other kernels than the ones asked for would
// make a forced test or benchmark run measure the wrong thing unnoticed.
func initialSelection() (Level, kernelTable) {
	l, err := levelFromEnv(os.Getenv("WAGGLE_KERNELS"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "waggle: WAGGLE_KERNELS=%s: %v\n", os.Getenv("WAGGLE_KERNELS"), err)
		os.Exit(2)
	}
	return l, resolveLevel(l)
}

// ActiveLevel returns the level the kernels currently run.
func ActiveLevel() Level { return activeLevel }

// SelectLevel switches every kernel family, this package's and the
// registered ones (Register), to level l and returns a func that restores
// the previous selection. It is meant for start-up flags and tests and
// must not run while kernels run.
func SelectLevel(l Level) (restore func(), err error) {
	if !l.Available() {
		return func() {}, fmt.Errorf("kernel level %s is not supported by this CPU (it runs %s)", l, levelList(Levels()))
	}
	prev := activeLevel
	setLevel(l)
	return func() { setLevel(prev) }, nil
}

// setLevel installs level l everywhere.
func setLevel(l Level) {
	activeLevel, active = l, resolveLevel(l)
	familiesMu.Lock()
	defer familiesMu.Unlock()
	for _, f := range families {
		f.Use(f.levelAt(l))
	}
}

// Impl returns the name of the level the kernels currently run.
func Impl() string { return activeLevel.String() }

// Impls lists the names of the levels this build has and this CPU runs,
// lowest first.
func Impls() []string {
	var names []string
	for _, l := range Levels() {
		names = append(names, l.String())
	}
	return names
}

// SelectImpl is SelectLevel by name (one of Impls()).
func SelectImpl(name string) (restore func(), err error) {
	l, err := availableLevel(name)
	if err != nil {
		return func() {}, err
	}
	return SelectLevel(l)
}

// DisableAsm routes every kernel family to its pure-Go generic version and
// returns a func that restores the previous selection. Like SelectLevel it
// must not run while kernels run.
func DisableAsm() (restore func()) {
	restore, err := SelectLevel(Generic)
	if err != nil {
		panic(err)
	}
	return restore
}

// A Family is a kernel family that lives outside this package (the KV
// cache codecs of kvcache/turbo) and registers with the registry so that
// it follows the selected level like this package's own families.
type Family struct {
	// Name identifies the family in reports ("turbo/expand").
	Name string
	// Levels are the levels the family implements itself; Generic is
	// implied.
	Levels []Level
	// Use switches the family to its implementation of the given level,
	// which is Generic or one of Levels.
	Use func(Level)
}

// levelAt returns the level of f's implementation that runs at level l:
// the nearest of l and its ancestors that f implements.
func (f Family) levelAt(l Level) Level {
	for ; l != Generic; l = l.Parent() {
		for _, m := range f.Levels {
			if m == l {
				return l
			}
		}
	}
	return Generic
}

var (
	familiesMu sync.Mutex
	families   []Family
)

// Register adds f to the registry and switches it to the selected level at
// once. Packages call it from their initialization; a level of f that this
// build does not have is a programmer error and panics.
func Register(f Family) {
	for _, l := range f.Levels {
		if l == Generic || !l.compiled() {
			panic(fmt.Sprintf("kernels: Register(%s): level %s is not one of this build's (%s)", f.Name, l, levelList(archLevels)))
		}
	}
	familiesMu.Lock()
	defer familiesMu.Unlock()
	families = append(families, f)
	f.Use(f.levelAt(activeLevel))
}
