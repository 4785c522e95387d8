package turbo

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

// gaussianRow returns n N(0,1) values from a seeded generator.
func gaussianRow(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// denseRotate applies the rotation from its definition, in float64 and
// independently of rotate.go: forward y = diag(s2)·H·diag(s1)·x/sqrt(128),
// inverse x = diag(s1)·H·diag(s2)·y/sqrt(128), with H[i][j] =
// (-1)^popcount(i&j).
func denseRotate(x []float64, inverse bool) []float64 {
	a, b := signs1[:], signs2[:]
	if inverse {
		a, b = b, a
	}
	y := make([]float64, BlockSize)
	for i := range y {
		var s float64
		for j := range BlockSize {
			h := 1.0
			if bits.OnesCount(uint(i&j))%2 == 1 {
				h = -1
			}
			s += h * float64(a[j]) * x[j]
		}
		y[i] = float64(b[i]) * s / math.Sqrt(128)
	}
	return y
}

// inputFromRotated returns the float32 input whose forward rotation is
// scale·levels[idx[j]] (j < 128): the way to build an input whose encoding
// can be worked out by hand in the rotated domain.
func inputFromRotated(levels []float32, idx []int, scale float64) []float32 {
	y := make([]float64, BlockSize)
	for j := range y {
		y[j] = scale * float64(levels[idx[j]])
	}
	x64 := denseRotate(y, true)
	x := make([]float32, BlockSize)
	for i, v := range x64 {
		x[i] = float32(v)
	}
	return x
}

// relErr returns ||a-b||² / ||b||² in float64.
func relErr(a, b []float32) float64 {
	var num, den float64
	for i := range b {
		d := float64(a[i]) - float64(b[i])
		num += d * d
		den += float64(b[i]) * float64(b[i])
	}
	return num / den
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm64(a []float32) float64 { return math.Sqrt(dot64(a, a)) }

// encodeRow encodes src with t into a fresh row, failing the test on error.
func mustEncode(t interface{ Fatalf(string, ...any) }, typ Type, src []float32) []byte {
	row := make([]byte, typ.RowBytes(len(src)))
	if err := typ.Encode(row, src); err != nil {
		t.Fatalf("%s.Encode: %v", typ, err)
	}
	return row
}

func mustDecode(t interface{ Fatalf(string, ...any) }, typ Type, row []byte, n int) []float32 {
	x := make([]float32, n)
	if err := typ.Decode(x, row); err != nil {
		t.Fatalf("%s.Decode: %v", typ, err)
	}
	return x
}

// familyLevels returns the levels, lowest first, that the family whose
// level *impl holds takes as the kernels registry selects each level this
// CPU runs (kernels.SelectLevel): the implementations of the family a test
// must cover here. *impl is left as it was.
func familyLevels(t testing.TB, impl *int) []int {
	t.Helper()
	var out []int
	for _, l := range kernels.Levels() {
		restore, err := kernels.SelectLevel(l)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(out, *impl) {
			out = append(out, *impl)
		}
		restore()
	}
	return out
}

// forFamilyLevels runs f once per level of familyLevels with *impl set to
// it, naming the level, and restores *impl.
func forFamilyLevels(t testing.TB, impl *int, f func(name string)) {
	t.Helper()
	old := *impl
	defer func() { *impl = old }()
	for _, l := range familyLevels(t, impl) {
		*impl = l
		f(levelName(l))
	}
}

// levelName names one of this package's levels for test output.
func levelName(impl int) string {
	switch {
	case impl == levelGo:
		return "go"
	case runtime.GOARCH == "arm64":
		return "neon"
	case impl == levelAVX2:
		return "avx2"
	}
	return "avx512"
}

// setLevels sets each *impl to level for the rest of the test.
func setLevels(t testing.TB, level int, impls ...*int) {
	for _, impl := range impls {
		old := *impl
		t.Cleanup(func() { *impl = old })
		*impl = level
	}
}
