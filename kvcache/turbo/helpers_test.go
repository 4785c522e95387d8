package turbo

import (
	"math"
	"math/bits"
	"math/rand/v2"
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
