//go:build !purego

package turbo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
)

// rotateImpls are the assembly rotations this CPU runs, by name.
func rotateImpls() map[string]func(x, pre, post *[BlockSize]float32, scale float32) {
	m := map[string]func(x, pre, post *[BlockSize]float32, scale float32){}
	if kernels.AVX2.Available() {
		m["avx2"] = rotateAVX2
	}
	return m
}

// checkRotate runs every assembly rotation and rotateGo on copies of x, in
// both directions, and fails unless every element has the same bits. x sits
// at a misaligned start (4 bytes past a 32-byte boundary) inside a guard
// band that must stay untouched.
//
// One exception: when x holds a NaN, a NaN result matches any NaN. Where
// two different NaNs meet in a butterfly (two input payloads, or an input
// NaN and the default NaN of Inf-Inf), x86 returns the first operand's,
// and which operand of a+b is first in the reference is the compiler's
// choice.
func checkRotate(t *testing.T, label string, x *[BlockSize]float32) {
	t.Helper()
	inNaN := false
	for _, v := range x {
		inNaN = inNaN || v != v
	}
	const guard = 8
	sentinel := math.Float32frombits(0x7fa5a5a5)
	var buf [2*guard + BlockSize + 8]float32
	start := guard // the first index >= guard 4 bytes past a 32-byte boundary
	for uintptr(unsafe.Pointer(&buf[start]))%32 != 4 {
		start++
	}
	for name, f := range rotateImpls() {
		for _, dir := range []struct {
			name      string
			pre, post *[BlockSize]float32
		}{{"forward", &signs1, &signs2}, {"inverse", &signs2, &signs1}} {
			want := *x
			rotateGo(&want, dir.pre, dir.post)
			for i := range buf {
				buf[i] = sentinel
			}
			got := (*[BlockSize]float32)(buf[start:])
			*got = *x
			f(got, dir.pre, dir.post, invSqrt128)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(inNaN && got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s %s %s: element %d = %#x (%g), Go %#x (%g)", name, label, dir.name, i,
						math.Float32bits(got[i]), got[i], math.Float32bits(want[i]), want[i])
				}
			}
			for i, v := range buf {
				if (i < start || i >= start+BlockSize) && math.Float32bits(v) != math.Float32bits(sentinel) {
					t.Fatalf("%s %s %s: guard element %d overwritten", name, label, dir.name, i)
				}
			}
		}
	}
}

// TestRotateImplsMatchGo: every assembly rotation gives rotateGo's bits on
// Gaussian groups of several scales, unit vectors, subnormals, huge values
// that overflow to Inf, and groups holding Inf or a NaN.
func TestRotateImplsMatchGo(t *testing.T) {
	testenv.NeedKernelLevel(t, "avx2", kernels.AVX2.Available())
	forRotateInputs(rand.New(rand.NewPCG(71, 72)), func(label string, x *[BlockSize]float32) {
		checkRotate(t, label, x)
	})
}

// TestRotateDispatch: Rotate, Unrotate, RotateQuery and UnrotateOutput
// give rotateGo's bits with every level selected.
func TestRotateDispatch(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	x := gaussianRow(r, 3*BlockSize)
	fwd := append([]float32(nil), x...)
	inv := append([]float32(nil), x...)
	for g := 0; g < len(x); g += BlockSize {
		rotateGo((*[BlockSize]float32)(fwd[g:]), &signs1, &signs2)
		rotateGo((*[BlockSize]float32)(inv[g:]), &signs2, &signs1)
	}
	forFamilyLevels(t, &rotateImpl, func(name string) {
		got := append([]float32(nil), x...)
		Rotate(got)
		requireSameBits(t, name+" Rotate", got, fwd)
		got = append(got[:0], x...)
		Unrotate(got)
		requireSameBits(t, name+" Unrotate", got, inv)
		q := make([]float32, len(x))
		RotateQuery(q, x[:len(x)-5])
		copy(got, x[:len(x)-5])
		clear(got[len(x)-5:])
		Rotate(got)
		requireSameBits(t, name+" RotateQuery", q, got)
		acc := append([]float32(nil), x...)
		out := make([]float32, len(x)-5)
		UnrotateOutput(out, acc)
		requireSameBits(t, name+" UnrotateOutput", out, inv[:len(out)])
	})
}

func requireSameBits(t *testing.T, label string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: element %d = %g, rotateGo %g", label, i, got[i], want[i])
		}
	}
}

// FuzzRotateImpls: arbitrary float32 bit patterns rotate to rotateGo's
// bits with every assembly rotation.
func FuzzRotateImpls(f *testing.F) {
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
		checkRotate(t, "fuzz", &x)
	})
}
