package engine

import (
	"fmt"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// Matrix is a weight matrix used in place from the mmapped file: Rows rows of
// Cols values each, stored row after row in Type's encoding.
type Matrix struct {
	Name     string
	Type     kernels.DType
	Rows     int
	Cols     int
	Data     []byte
	rowBytes int
}

// RowBytes returns the bytes of one stored row.
func (m *Matrix) RowBytes() int { return m.rowBytes }

// Row returns the raw bytes of row r.
func (m *Matrix) Row(r int) []byte { return m.Data[r*m.rowBytes : (r+1)*m.rowBytes] }

// DequantizeRow writes row r as float32 values into dst (len Cols); used to
// look up token embeddings.
func (m *Matrix) DequantizeRow(dst []float32, r int) {
	kernels.DequantizeRow(m.Type, dst[:m.Cols], m.Row(r))
}

// ActivationBytes returns the scratch bytes MulVec needs to hold one
// activation vector in the weight's vec-dot format.
func (m *Matrix) ActivationBytes() int { return m.Type.VecDotType().RowBytes(m.Cols) }

// MulVec computes dst = M·x the way ggml does: x (len Cols) is first
// converted to the weight's vec-dot format (q8_0, q8_1, q8_K, f16, bf16 or
// f32) in scratch, then each row is dotted with integer accumulation per
// block. dst has len Rows; scratch at least ActivationBytes().
func (m *Matrix) MulVec(dst, x []float32, scratch []byte) {
	xq := scratch[:m.ActivationBytes()]
	kernels.QuantizeRow(m.Type.VecDotType(), xq, x[:m.Cols])
	kernels.MatVec(m.Type, dst[:m.Rows], m.Data, xq, m.Cols)
}

// QuantizeActs converts cols activation rows of x (Cols values each, xStride
// apart) to the weight's vec-dot format in xq, ActivationBytes() apart, on
// the pool: the first half of ggml's mul_mat, done once per batch.
func (m *Matrix) QuantizeActs(p *kernels.Pool, xq []byte, x []float32, xStride, cols int) {
	kernels.QuantizeRows(p, m.Type.VecDotType(), xq, m.ActivationBytes(), x, xStride, m.Cols, cols)
}

// MulMat computes dst[c*dstStride+r] = row r · column c for every row and
// the cols activation columns QuantizeActs left in xq, split across the
// pool (see kernels.MatMul).
//
// Up to kernels.DecodeMaxCols columns (a decode step, a speculative verify
// batch, a few slots decoding together) go through kernels.DecodeMatMul,
// which gives the same bits as MatMul and streams the weights once, four
// rows at a time, where the CPU has four-row kernels for the type.
func (m *Matrix) MulMat(p *kernels.Pool, dst []float32, dstStride int, xq []byte, cols int) {
	if cols <= kernels.DecodeMaxCols {
		kernels.DecodeMatMul(p, m.Type, dst, dstStride, m.Data, m.Rows, m.Cols, xq, m.ActivationBytes(), cols)
		return
	}
	kernels.MatMul(p, m.Type, dst, dstStride, m.Data, m.Rows, m.Cols, xq, m.ActivationBytes(), cols)
}

// Weights looks tensors up in a GGUF file by name and checks their shapes.
type Weights struct {
	F *gguf.File
}

// Matrix returns the 2-D tensor name with the given row length and row count.
func (w Weights) Matrix(name string, cols, rows int) (*Matrix, error) {
	ti, ok := w.F.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("missing tensor %q", name)
	}
	if len(ti.Dims) != 2 || ti.Dims[0] != int64(cols) || ti.Dims[1] != int64(rows) {
		return nil, fmt.Errorf("tensor %q has shape %v, want [%d %d]", name, ti.Dims, cols, rows)
	}
	t := kernels.DType(ti.Type)
	if !t.Supported() {
		return nil, fmt.Errorf("tensor %q: type %s is not supported for compute yet", name, ti.Type)
	}
	if cols%t.BlockSize() != 0 {
		return nil, fmt.Errorf("tensor %q: row length %d is not a multiple of the %s block size %d", name, cols, t, t.BlockSize())
	}
	return &Matrix{Name: name, Type: t, Rows: rows, Cols: cols, Data: w.F.TensorData(ti), rowBytes: t.RowBytes(cols)}, nil
}

// OptionalMatrix is Matrix for tensors that may be absent (returns nil, nil).
func (w Weights) OptionalMatrix(name string, cols, rows int) (*Matrix, error) {
	if _, ok := w.F.Tensor(name); !ok {
		return nil, nil
	}
	return w.Matrix(name, cols, rows)
}

// Vector returns the 1-D tensor name of length n as float32 values. Norm
// weights and biases are F32 in every GGUF llama.cpp writes; F16/BF16 ones
// are converted once at load (they are tiny).
func (w Weights) Vector(name string, n int) ([]float32, error) {
	ti, ok := w.F.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("missing tensor %q", name)
	}
	if ti.NumElements() != int64(n) || (len(ti.Dims) != 1 && !(len(ti.Dims) == 2 && ti.Dims[1] == 1)) {
		return nil, fmt.Errorf("tensor %q has shape %v, want [%d]", name, ti.Dims, n)
	}
	t := kernels.DType(ti.Type)
	if !t.Supported() || n%t.BlockSize() != 0 {
		return nil, fmt.Errorf("tensor %q: type %s unsupported for a vector of %d", name, ti.Type, n)
	}
	out := make([]float32, n)
	kernels.DequantizeRow(t, out, w.F.TensorData(ti))
	return out, nil
}

// OptionalVector is Vector for tensors that may be absent (returns nil, nil).
func (w Weights) OptionalVector(name string, n int) ([]float32, error) {
	if _, ok := w.F.Tensor(name); !ok {
		return nil, nil
	}
	return w.Vector(name, n)
}
