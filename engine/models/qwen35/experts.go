package qwen35

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

func (m *Model) loadMoE(b *binder) *moeWeights {
	hp := &m.hp
	e := &moeWeights{
		router: b.mat("ffn_gate_inp.weight", hp.nEmbd, hp.nExpert),
		shGate: b.mat("ffn_gate_shexp.weight", hp.nEmbd, hp.nFFShared),
		shUp:   b.mat("ffn_up_shexp.weight", hp.nEmbd, hp.nFFShared),
		shDown: b.mat("ffn_down_shexp.weight", hp.nFFShared, hp.nEmbd),
		shInp:  b.vec("ffn_gate_inp_shexp.weight", hp.nEmbd),
	}
	if b.err == nil && b.has("ffn_gate_up_exps.weight") {
		b.err = fmt.Errorf("%s: fused gate_up experts are not supported yet", b.name("ffn_gate_up_exps.weight"))
	}
	e.gate = b.experts("ffn_gate_exps.weight", hp.nEmbd, hp.nFFExp, hp.nExpert)
	e.up = b.experts("ffn_up_exps.weight", hp.nEmbd, hp.nFFExp, hp.nExpert)
	e.down = b.experts("ffn_down_exps.weight", hp.nFFExp, hp.nEmbd, hp.nExpert)
	if b.err != nil {
		return nil
	}
	return e
}

// experts splits the 3-D tensor {cols, rows, n} into n matrices of rows ×
// cols that point into the mmap (no copy). engine.Weights only binds 2-D
// tensors, so the views are built here from the exported Matrix fields;
// they serve QuantizeActs/MulMat, which use Type, Rows, Cols and Data
// (RowBytes and Row are not meaningful on them). An engine helper that
// binds expert slices would replace this.
func (b *binder) experts(s string, cols, rows, n int) []*engine.Matrix {
	if b.err != nil {
		return nil
	}
	name := b.name(s)
	ti, ok := b.w.F.Tensor(name)
	if !ok {
		b.err = fmt.Errorf("missing tensor %q", name)
		return nil
	}
	if len(ti.Dims) != 3 || ti.Dims[0] != int64(cols) || ti.Dims[1] != int64(rows) || ti.Dims[2] != int64(n) {
		b.err = fmt.Errorf("tensor %q has shape %v, want [%d %d %d]", name, ti.Dims, cols, rows, n)
		return nil
	}
	t := kernels.DType(ti.Type)
	if !t.Supported() || cols%t.BlockSize() != 0 {
		b.err = fmt.Errorf("tensor %q: type %s with rows of %d is not supported", name, ti.Type, cols)
		return nil
	}
	data := b.w.F.TensorData(ti)
	per := rows * t.RowBytes(cols)
	if len(data) != per*n {
		b.err = fmt.Errorf("tensor %q holds %d bytes, want %d", name, len(data), per*n)
		return nil
	}
	out := make([]*engine.Matrix, n)
	for e := range out {
		out[e] = &engine.Matrix{Name: fmt.Sprintf("%s[%d]", name, e), Type: t, Rows: rows, Cols: cols, Data: data[e*per : (e+1)*per : (e+1)*per]}
	}
	return out
}
