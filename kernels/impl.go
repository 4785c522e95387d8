package kernels

import (
	"fmt"
	"sort"
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

// kernelTable is one complete or partial set of kernels. In a registered
// implementation a nil entry means "inherit from the parent implementation".
type kernelTable struct {
	vecDot     [dtypeLimit]vecDotFunc
	vecDotN    [dtypeLimit]vecDotNFunc
	dequantize [dtypeLimit]dequantizeFunc
	quantize   [dtypeLimit]quantizeFunc
	attnValues [dtypeLimit]attnValuesFunc
	attnScores [dtypeLimit]attnScoresFunc // nil: a vecDot per key
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

// implementation is a named kernel set for one instruction-set level, such as
// "avx2" on top of "generic". Tagged files register theirs in
// archImplementations (impl_amd64.go, impl_arm64.go).
type implementation struct {
	name      string
	parent    string // "" only for generic
	priority  int    // the highest available one is the default
	available bool   // this CPU can run it
	kernels   kernelTable
}

// overlay copies the non-nil entries of src over dst.
func (dst *kernelTable) overlay(src *kernelTable) {
	for i := range src.vecDot {
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

// genericImplementation is the pure-Go reference, always available.
func genericImplementation() *implementation {
	return &implementation{
		name:      "generic",
		available: true,
		kernels: kernelTable{
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
		},
	}
}

// implementations holds every implementation compiled into this binary,
// generic first. It is built during package variable initialization, before
// active depends on it. registerAttn (attn.go) adds the attention kernels,
// which live in their own per-build files.
var implementations = registerAttn(append([]*implementation{genericImplementation()}, archImplementations()...))

// active is the kernel table the exported functions call through, and
// activeName its implementation's name. Both change only in SelectImpl and
// DisableAsm, which must not run concurrently with kernel calls.
var (
	activeName, active = initialSelection()
)

func lookupImpl(name string) *implementation {
	for _, im := range implementations {
		if im.name == name {
			return im
		}
	}
	return nil
}

// resolve returns the full kernel table of the named implementation: generic
// overlaid with every ancestor, then with the implementation itself.
func resolve(name string) (kernelTable, error) {
	var chain []*implementation
	for n := name; n != ""; {
		im := lookupImpl(n)
		if im == nil {
			return kernelTable{}, fmt.Errorf("kernels: no implementation %q in this build (have %v)", n, Impls())
		}
		if !im.available {
			return kernelTable{}, fmt.Errorf("kernels: implementation %q is not supported by this CPU", n)
		}
		chain = append(chain, im)
		n = im.parent
	}
	var kt kernelTable
	for i := len(chain) - 1; i >= 0; i-- {
		kt.overlay(&chain[i].kernels)
	}
	return kt, nil
}

// bestImpl returns the available implementation with the highest priority.
func bestImpl() string {
	best := implementations[0]
	for _, im := range implementations[1:] {
		if im.available && im.priority > best.priority {
			best = im
		}
	}
	return best.name
}

// initialSelection picks the start-up implementation: WAGGLE_KERNELS when it
// names an implementation this build has and this CPU runs, otherwise the
// best available one. WAGGLE_KERNELS=generic always works; an unknown or
// unavailable name falls back to generic, so a forced choice never silently
// runs a faster path than asked for.
func initialSelection() (string, kernelTable) {
	name := bestImpl()
	if req := envKernels(); req != "" && req != "auto" {
		name = "generic"
		if _, err := resolve(req); err == nil {
			name = req
		}
	}
	kt, err := resolve(name)
	if err != nil {
		panic(err) // generic always resolves
	}
	return name, kt
}

// Impl returns the name of the implementation the kernels currently run:
// "generic" today; "avx2", "avx512" or "neon" once those exist.
func Impl() string { return activeName }

// Impls lists the implementations compiled into this binary that this CPU can
// run, generic first, then by name.
func Impls() []string {
	var names []string
	for _, im := range implementations[1:] {
		if im.available {
			names = append(names, im.name)
		}
	}
	sort.Strings(names)
	return append([]string{"generic"}, names...)
}

// SelectImpl switches every kernel to the named implementation (one of
// Impls()) and returns a func that restores the previous selection. It is
// meant for start-up flags and tests and must not run while kernels run.
func SelectImpl(name string) (restore func(), err error) {
	kt, err := resolve(name)
	if err != nil {
		return func() {}, err
	}
	prevName, prev := activeName, active
	activeName, active = name, kt
	return func() { activeName, active = prevName, prev }, nil
}

// DisableAsm routes every kernel to its pure-Go generic version and returns a
// func that restores the previous selection. Like SelectImpl it must not run
// while kernels run.
func DisableAsm() (restore func()) {
	restore, err := SelectImpl("generic")
	if err != nil {
		panic(err)
	}
	return restore
}
