package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// weightTypes are the types VecDot supports, in enum order.
var weightTypes = []DType{F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, BF16}

// newRand returns a deterministic generator; every test seeds its own so
// failures reproduce.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// forEachImpl runs body once per implementation this binary has and this
// CPU runs, as a sub-test named after it, with the full kernel table of that
// implementation. The generic table is passed as ref for comparisons.
func forEachImpl(t *testing.T, body func(t *testing.T, name string, kt, ref *kernelTable)) {
	t.Helper()
	ref, err := resolve("generic")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Impls() {
		kt, err := resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { body(t, name, &kt, &ref) })
	}
}

// forEachLevelOf runs body once per level this CPU runs that registers
// kernels of the named family itself, each as a sub-test named after the
// level with that level selected (SelectLevel), so the exported functions
// run that level's kernels of the family. Where no such level runs here it
// runs body once at the selected level (the family's fallback path).
func forEachLevelOf(t *testing.T, family string, body func(t *testing.T)) {
	t.Helper()
	f, ok := familyNamed(family)
	if !ok {
		t.Fatalf("no kernel family %q", family)
	}
	var levels []Level
	for _, l := range f.ownLevels() {
		if l.Available() {
			levels = append(levels, l)
		}
	}
	if len(levels) == 0 {
		t.Logf("no level this CPU runs has its own %s kernels; running at %v", family, ActiveLevel())
		levels = []Level{ActiveLevel()}
	}
	for _, l := range levels {
		t.Run(l.String(), func(t *testing.T) {
			restore, err := SelectLevel(l)
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			body(t)
		})
	}
}

// familyNamed looks a table family up by name.
func familyNamed(name string) (tableFamily, bool) {
	for _, f := range tableFamilies {
		if f.name == name {
			return f, true
		}
	}
	return tableFamily{}, false
}

// nonGenericImpls returns the implementations other than generic, logging
// when there are none so a green run says what it did not test.
func nonGenericImpls(t *testing.T) []string {
	names := Impls()[1:]
	if len(names) == 0 {
		t.Logf("only the generic implementation is compiled in or supported here; nothing to cross-check")
	}
	return names
}

// randHalfScale returns an fp16 scale of random sign with magnitude in
// [2^-12, 2^-3), the range real weight blocks use.
func randHalfScale(r *rand.Rand) uint16 {
	v := float32(math.Ldexp(1+r.Float64(), -12+r.IntN(9)))
	if r.IntN(2) == 0 {
		v = -v
	}
	return F32ToF16(v)
}

// halfFields lists the byte offsets of the fp16 scale fields of each block
// type; randomBlocks overwrites them with sane values.
var halfFields = map[DType][]int{
	Q4_0: {0}, Q4_1: {0, 2}, Q5_0: {0}, Q5_1: {0, 2}, Q8_0: {0}, Q8_1: {0, 2},
	Q2_K: {q2KD, q2KDmin}, Q3_K: {q3KD}, Q4_K: {q4KD, q4KDmin}, Q5_K: {q5KD, q5KDmin}, Q6_K: {q6KD},
}

// randomWeights returns n values of weight type t: random bytes with sane
// fp16 scales for the quant types, random normal values for the float types.
func randomWeights(r *rand.Rand, t DType, n int) []byte {
	b := make([]byte, t.RowBytes(n))
	switch t {
	case F32, F16, BF16:
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		QuantizeRow(t, b, x)
		return b
	}
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	sanitizeScales(t, b, func() uint16 { return randHalfScale(r) })
	return b
}

// sanitizeScales rewrites every fp16 scale field of the blocks in b with
// next().
func sanitizeScales(t DType, b []byte, next func() uint16) {
	bb := t.BlockBytes()
	for off := 0; off+bb <= len(b); off += bb {
		for _, f := range halfFields[t] {
			binary.LittleEndian.PutUint16(b[off+f:], next())
		}
	}
}

// randomActs returns n normal activations with a few outliers.
func randomActs(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
		if r.IntN(50) == 0 {
			x[i] *= 8
		}
	}
	return x
}

// quantizeActs quantizes x to t.VecDotType() and also returns the values
// that quantization represents.
func quantizeActs(t DType, x []float32) ([]byte, []float32) {
	vt := t.VecDotType()
	q := make([]byte, vt.RowBytes(len(x)))
	QuantizeRow(vt, q, x)
	xd := make([]float32, len(x))
	DequantizeRow(vt, xd, q)
	return q, xd
}

// minOffsets returns, per value, the additive offset of the weight's block
// (the value dequantization gives for a zero quant: m for q4_1/q5_1,
// -dmin*min for q2_K/q4_K/q5_K), or nil for types without one. VecDot
// applies the offsets separately, so its rounding error scales with
// |scaled part| + |offset| rather than with their (possibly cancelling) sum.
func minOffsets(t DType, w []byte, n int) []float32 {
	z := append([]byte(nil), w...)
	bb := t.BlockBytes()
	var clearRange [][2]int
	switch t {
	case Q4_1:
		clearRange = [][2]int{{4, 20}}
	case Q5_1:
		clearRange = [][2]int{{4, 24}}
	case Q2_K:
		clearRange = [][2]int{{q2KQs, q2KQs + 64}}
	case Q4_K:
		clearRange = [][2]int{{q4KQs, q4KQs + 128}}
	case Q5_K:
		clearRange = [][2]int{{q5KQh, q5KQs + 128}}
	default:
		return nil
	}
	for off := 0; off < len(z); off += bb {
		for _, cr := range clearRange {
			clear(z[off+cr[0] : off+cr[1]])
		}
	}
	out := make([]float32, n)
	DequantizeRow(t, out, z)
	return out
}

// dotBound returns the float64 dot of the dequantized weights and
// activations and the error allowed for VecDot against it.
func dotBound(t DType, w []byte, xq []byte, xd []float32) (want, allowed float64) {
	n := len(xd)
	wd := make([]float32, n)
	DequantizeRow(t, wd, w)
	off := minOffsets(t, w, n)
	var scale float64
	for i := range wd {
		want += float64(wd[i]) * float64(xd[i])
		mag := math.Abs(float64(wd[i]))
		if off != nil {
			mag += 2 * math.Abs(float64(off[i]))
		}
		scale += mag * math.Abs(float64(xd[i]))
	}
	// Products that land in float32's subnormal range lose up to half a
	// subnormal ulp each, however small the relative bound is.
	allowed = tolVecDotDequant*scale + float64(n+1)*math.Ldexp(1, -149)
	if t == Q4_1 || t == Q5_1 {
		// ggml carries the activation block sum as s = fp16(d32*sum(q)),
		// made from the float32 scale d32 while the quants dequantize with
		// fp16(d32): two fp16 roundings (each <= 2^-11 relative, or 2^-25
		// absolute in the subnormal range) that multiply m.
		bb, xb := t.BlockBytes(), Q8_1.BlockBytes()
		for b := 0; b < n/32; b++ {
			m := float64(f16At(w[b*bb+2:]))
			s := float64(f16At(xq[b*xb+2:]))
			allowed += math.Abs(m) * (math.Abs(s)*math.Ldexp(1, -10) + math.Ldexp(1, -24))
		}
	}
	return want, allowed
}

// sweepSizes returns the value counts a length sweep over t uses: 1..8
// blocks, plus odd lengths for the float types.
func sweepSizes(t DType) []int {
	bs := t.BlockSize()
	var ns []int
	for nb := 1; nb <= 8; nb++ {
		ns = append(ns, nb*bs)
	}
	if bs == 1 {
		ns = append(ns, 0, 15, 16, 17, 31, 33, 63, 64, 65, 255, 257, 1000)
	}
	return ns
}
