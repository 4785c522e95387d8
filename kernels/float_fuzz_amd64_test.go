package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzFloatOps runs one float kernel, chosen by op, on every
// implementation with operands made from raw (any float32 bit pattern,
// NaN and Inf included, for the conversions and element-wise ops; finite
// and bounded for the reductions) and compares it with the generic kernel:
// conversions, Add, Mul and Scale bit for bit, the rest within their
// tolerances.
func FuzzFloatOps(f *testing.F) {
	seed := make([]byte, 0, 4*40)
	for _, v := range fltSpecials {
		seed = binary.LittleEndian.AppendUint32(seed, math.Float32bits(v))
	}
	for op := range uint8(fltFuzzOps) {
		f.Add(op, seed)
		f.Add(op, seed[:4*9])
	}
	f.Fuzz(func(t *testing.T, op uint8, raw []byte) {
		n := len(raw) / 4
		a := make([]float32, n)
		for i := range a {
			a[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		b := make([]float32, n)
		for i := range b {
			b[i] = a[(i*7+3)%n]
		}
		forEachImpl(t, func(t *testing.T, name string, kt, ref *kernelTable) {
			fltFuzzOne(t, op%fltFuzzOps, kt, ref, a, b)
		})
	})
}

const fltFuzzOps = 9

// fltFuzzOne runs kernel op of kt and of ref on copies of a and b.
func fltFuzzOne(t *testing.T, op uint8, kt, ref *kernelTable, a, b []float32) {
	n := len(a)
	got, want := make([]float32, n), make([]float32, n)
	switch op {
	case 0, 1, 2: // Add, Mul, SwiGLU
		bin := fltBinOps[op]
		bin.get(kt)(got, a, b)
		bin.get(ref)(want, a, b)
		tol := 0.0
		if op == 2 {
			tol = tolElementwise
		}
		fltCompare(t, bin.name, got, want, tol)
	case 3: // Scale
		copy(got, a)
		copy(want, a)
		s := float32(0.1)
		if n > 0 {
			s = b[0]
		}
		kt.scale(got, s)
		ref.scale(want, s)
		fltCompare(t, "Scale", got, want, 0)
	case 4, 5: // QuantizeRow then DequantizeRow, F16 or BF16
		typ := []DType{F16, BF16}[op-4]
		q, qr := make([]byte, 2*n), make([]byte, 2*n)
		kt.quantize[typ](q, a)
		ref.quantize[typ](qr, a)
		if string(q) != string(qr) {
			t.Fatalf("%v quantize differs from generic", typ)
		}
		kt.dequantize[typ](got, q)
		ref.dequantize[typ](want, q)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v dequantize %d: %#x, generic %#x", typ, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	default: // reductions on finite, bounded operands
		fltFuzzReduce(t, op, kt, ref, fltTame(a), fltTame(b))
	}
}

// fltTame maps every value to a finite one of magnitude below 2^16 (the
// fuzzed mantissa and sign are kept), so that dot products and sums stay
// far from overflow.
func fltTame(x []float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		bits := math.Float32bits(v)
		e := (bits >> 23) & 0xff % 143 // exponent 0..142: below 2^16
		y[i] = math.Float32frombits(bits&0x807fffff | e<<23)
	}
	return y
}

func fltFuzzReduce(t *testing.T, op uint8, kt, ref *kernelTable, a, b []float32) {
	n := len(a)
	switch op {
	case 6: // Dot
		var mag float64
		for i := range a {
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		got, want := kt.dot(a, b), ref.dot(a, b)
		if math.Abs(float64(got-want)) > tolDotImpl*mag+float64(n+1)*0x1p-149 {
			t.Fatalf("Dot n=%d: %g, generic %g", n, got, want)
		}
	case 7: // RMSNorm
		if n == 0 {
			return
		}
		got, want := make([]float32, n), make([]float32, n)
		kt.rmsNorm(got, a, 1e-6)
		ref.rmsNorm(want, a, 1e-6)
		fltCompare(t, "RMSNorm", got, want, tolRMSNorm)
	case 8: // SoftMax
		got, want := append([]float32(nil), a...), append([]float32(nil), a...)
		kt.softMax(got)
		ref.softMax(want)
		fltCompare(t, "SoftMax", got, want, tolSoftMax)
	}
}
