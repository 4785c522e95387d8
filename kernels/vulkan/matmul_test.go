//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/quantize"
)

// weightTypes are the types with product and get_rows shaders.
var weightTypes = []kernels.DType{kernels.F32, kernels.F16, kernels.BF16, kernels.Q4_0, kernels.Q4_1, kernels.Q5_0,
	kernels.Q5_1, kernels.Q8_0, kernels.Q2_K, kernels.Q3_K, kernels.Q4_K, kernels.Q5_K, kernels.Q6_K}

// quantMatrix returns rows random rows of cols values in type t, and the
// same rows dequantized by the Go kernels.
func quantMatrix(rng *rand.Rand, t kernels.DType, rows, cols int) ([]byte, []float32) {
	rb := t.RowBytes(cols)
	data := make([]byte, rows*rb)
	deq := make([]float32, rows*cols)
	for i := range rows {
		quantize.Row(t, data[i*rb:(i+1)*rb], randFloats(rng, cols, 1))
		kernels.DequantizeRow(t, deq[i*cols:(i+1)*cols], data[i*rb:(i+1)*rb])
	}
	return data, deq
}

// colsFor is a row length valid for t: a multiple of its block, and a
// ragged one for the float types.
func colsFor(t kernels.DType) int {
	switch t.BlockSize() {
	case 1:
		return 172
	case 32:
		return 320
	}
	return 512
}

func upload(t *testing.T, d *Device, r *Recorder, typ kernels.DType, rows, cols int, data []byte, block uint64) *Matrix {
	t.Helper()
	a := d.NewArena()
	if block > 0 {
		a.SetBlockSize(block)
	}
	m, err := a.Matrix(typ, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Upload(r); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Free)
	return m
}

// TestMatMul checks every weight type's product against the Go kernels:
// against the float64 product of kernels.DequantizeRow's values (within
// float32 rounding) and against kernels.VecDot on activations quantized to
// the type's vec-dot format, the CPU path (within the product tolerance).
// The matrix is split into several parts (a small arena block) so row
// offsets across parts are exercised, and results must not depend on the
// number of columns in the dispatch (batch invariance).
func TestMatMul(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(11, 12))
	const rows = 37
	for _, typ := range weightTypes {
		cols := colsFor(typ)
		data, deq := quantMatrix(rng, typ, rows, cols)
		m := upload(t, d, r, typ, rows, cols, data, uint64(11*typ.RowBytes(cols)))
		if len(m.Parts) < 3 {
			t.Fatalf("%s: %d parts, want a split matrix", typ, len(m.Parts))
		}
		const ncols, dStride = 9, rows + 3
		xs := cols + 5
		x := randFloats(rng, ncols*xs, 1)
		xb, db := buffer(t, d, r, x, 0), buffer(t, d, r, nil, ncols*dStride)
		run(t, r, func() {
			r.Fill(db.All(), 0) // the rows between columns stay 0
			r.Barrier()
			r.MatMul(db.All(), dStride, m, xb.All(), xs, ncols)
		})
		got := download(t, r, db, ncols*dStride)
		want, cpu := make([]float32, len(got)), make([]float32, len(got))
		vt := typ.VecDotType()
		xq := make([]byte, vt.RowBytes(cols))
		for c := range ncols {
			xc := x[c*xs : c*xs+cols]
			kernels.QuantizeRow(vt, xq, xc)
			for i := range rows {
				var s float64
				for k, w := range deq[i*cols : (i+1)*cols] {
					s += float64(w) * float64(xc[k])
				}
				want[c*dStride+i] = float32(s)
				cpu[c*dStride+i] = kernels.VecDot(typ, cols, data[i*typ.RowBytes(cols):(i+1)*typ.RowBytes(cols)], xq)
			}
		}
		checkNMSE(t, typ.String()+" vs dequantized", got, want, 1e-10)
		checkNMSE(t, typ.String()+" vs VecDot", got, cpu, tolProduct)
		// One column at a time gives the same bits (batch invariance).
		one := buffer(t, d, r, nil, dStride)
		for c := range ncols {
			xc := buffer(t, d, r, x[c*xs:c*xs+cols], 0)
			run(t, r, func() { r.MatMul(one.All(), dStride, m, xc.All(), cols, 1) })
			for i, v := range download(t, r, one, rows) {
				if math.Float32bits(v) != math.Float32bits(got[c*dStride+i]) {
					t.Fatalf("%s: column %d row %d: %v alone, %v in a batch of %d", typ, c, i, v, got[c*dStride+i], ncols)
				}
			}
		}
	}
}

// TestGetRows checks the row gather of every weight type against
// kernels.DequantizeRow (exact up to float32 rounding of the scales).
func TestGetRows(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(13, 14))
	const rows = 20
	for _, typ := range weightTypes {
		cols := colsFor(typ)
		data, deq := quantMatrix(rng, typ, rows, cols)
		m := upload(t, d, r, typ, rows, cols, data, 0)
		idx := []uint32{3, 0, 19, 3, 7}
		ib, db := uintBuffer(t, d, r, idx), buffer(t, d, r, nil, len(idx)*cols)
		run(t, r, func() { r.GetRows(db.All(), cols, m, ib.All(), len(idx)) })
		want := make([]float32, len(idx)*cols)
		for i, j := range idx {
			copy(want[i*cols:], deq[int(j)*cols:int(j+1)*cols])
		}
		checkNMSE(t, typ.String()+" get_rows", download(t, r, db, len(want)), want, 1e-12)
	}
}
