//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// checkRotateNEON runs rotateNEON and rotateGo on copies of x, in both
// directions, and fails unless every element has the same bits. x sits
// inside a guard band that must stay untouched.
//
// One exception: when x holds a NaN, a NaN result matches any NaN. Where
// two different NaNs meet in a butterfly (two input payloads, or an input
// NaN and the default NaN of Inf-Inf), ARM returns the first operand's,
// and which operand of a+b is first in the reference is the compiler's
// choice (it is not even the same in every stage of fwht128).
func checkRotateNEON(t *testing.T, label string, x *[BlockSize]float32) {
	t.Helper()
	inNaN := false
	for _, v := range x {
		inNaN = inNaN || v != v
	}
	const guard = 8
	sentinel := math.Float32frombits(0x7fa5a5a5)
	for _, dir := range []struct {
		name      string
		pre, post *[BlockSize]float32
	}{{"forward", &signs1, &signs2}, {"inverse", &signs2, &signs1}} {
		want := *x
		rotateGo(&want, dir.pre, dir.post)
		var buf [guard + BlockSize + guard]float32
		for i := range buf {
			buf[i] = sentinel
		}
		got := (*[BlockSize]float32)(buf[guard:])
		*got = *x
		rotateNEON(got, dir.pre, dir.post, invSqrt128)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(inNaN && got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("%s %s: element %d = %#x (%g), Go %#x (%g)", label, dir.name, i,
					math.Float32bits(got[i]), got[i], math.Float32bits(want[i]), want[i])
			}
		}
		for i, v := range buf {
			if (i < guard || i >= guard+BlockSize) && math.Float32bits(v) != math.Float32bits(sentinel) {
				t.Fatalf("%s %s: guard element %d overwritten", label, dir.name, i)
			}
		}
	}
}

// TestRotateNEONMatchesGo: the NEON rotation gives rotateGo's bits on
// Gaussian groups of several scales, unit vectors, subnormals, huge values
// that overflow to Inf, and groups holding Inf or a NaN.
func TestRotateNEONMatchesGo(t *testing.T) {
	forRotateInputs(rand.New(rand.NewPCG(71, 72)), func(label string, x *[BlockSize]float32) {
		checkRotateNEON(t, label, x)
	})
}

// TestRotateDispatch: Rotate runs the NEON kernel when it is selected and
// gives the reference's bits.
func TestRotateDispatch(t *testing.T) {
	setLevels(t, levelNEON, &rotateImpl)
	r := rand.New(rand.NewPCG(73, 74))
	x := gaussianRow(r, 3*BlockSize)
	want := append([]float32(nil), x...)
	for g := 0; g < len(want); g += BlockSize {
		rotateGo((*[BlockSize]float32)(want[g:]), &signs1, &signs2)
	}
	Rotate(x)
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(want[i]) {
			t.Fatalf("Rotate: element %d = %g, rotateGo %g", i, x[i], want[i])
		}
	}
}

// FuzzRotateNEON: arbitrary float32 bit patterns rotate to rotateGo's bits.
func FuzzRotateNEON(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f})
	f.Add([]byte{1, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x7f, 0xff, 0xff, 0x7f, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		var x [BlockSize]float32
		for i := range x {
			j := 4 * i % (len(data) / 4 * 4)
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[j:]) ^ uint32(i/(len(data)/4)))
		}
		checkRotateNEON(t, "fuzz", &x)
	})
}
