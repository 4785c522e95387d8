// Package moe is the mixture-of-experts feed-forward shared by the model
// packages (qwen3moe in llama, qwen35moe and qwen3next in qwen35): softmax
// routing over all experts, the top k renormalised to sum 1 unless the
// architecture keeps them raw (times expert_weights_scale when the file
// has one), SwiGLU experts whose
// matrices are slices of the 3-D expert tensors used in place in the mmap,
// each evaluated only on the tokens routed to it. Shared experts are the
// caller's (they differ per architecture).
package moe

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// Shape is the MoE hyper-parameters of a model.
type Shape struct {
	NEmbd, NExpert, NUsed, NFFExp int
	WeightsScale                  float32 // 0: absent (no scaling)
	// Unnormalised keeps the top-k softmax weights as they are instead of
	// renormalising them to sum 1 (llada-moe).
	Unnormalised bool
}

// ReadShape reads {arch}.expert_count, expert_used_count,
// expert_feed_forward_length and the optional expert_weights_scale.
func ReadShape(md engine.Meta, nEmbd int) (Shape, error) {
	sh := Shape{NEmbd: nEmbd}
	var err error
	for _, p := range []struct {
		dst *int
		key string
	}{
		{&sh.NExpert, "expert_count"}, {&sh.NUsed, "expert_used_count"},
		{&sh.NFFExp, "expert_feed_forward_length"},
	} {
		if *p.dst, err = md.RequiredInt(p.key); err != nil {
			return sh, err
		}
	}
	if sh.WeightsScale, err = md.Float("expert_weights_scale", 0); err != nil {
		return sh, err
	}
	if sh.NUsed < 1 || sh.NUsed > sh.NExpert || sh.NExpert > 4096 || sh.NFFExp < 1 {
		return sh, fmt.Errorf("%d experts used of %d (n_ff_exp %d)", sh.NUsed, sh.NExpert, sh.NFFExp)
	}
	return sh, nil
}

// Weights are one layer's router and experts. Each expert's matrices are
// row slices of the 3-D tensors, used in place in the mmap.
type Weights struct {
	Router         *engine.Matrix // n_embd → n_expert logits
	Gate, Up, Down []*engine.Matrix
}

// Matrices lists every matrix (for sizing activation buffers).
func (e *Weights) Matrices() []*engine.Matrix {
	out := append([]*engine.Matrix{e.Router}, e.Gate...)
	return append(append(out, e.Up...), e.Down...)
}

// Load binds blk.<il>.ffn_gate_inp, ffn_{gate,up,down}_exps. The fused
// ffn_gate_up_exps form is rejected with a clear error.
func Load(w engine.Weights, il int, sh Shape) (*Weights, error) {
	name := func(s string) string { return fmt.Sprintf("blk.%d.%s", il, s) }
	if _, ok := w.F.Tensor(name("ffn_gate_up_exps.weight")); ok {
		return nil, fmt.Errorf("%s: fused gate_up experts are not supported yet", name("ffn_gate_up_exps.weight"))
	}
	e := &Weights{}
	var err error
	if e.Router, err = w.Matrix(name("ffn_gate_inp.weight"), sh.NEmbd, sh.NExpert); err != nil {
		return nil, err
	}
	if e.Gate, err = Experts(w, name("ffn_gate_exps.weight"), sh.NEmbd, sh.NFFExp, sh.NExpert); err != nil {
		return nil, err
	}
	if e.Up, err = Experts(w, name("ffn_up_exps.weight"), sh.NEmbd, sh.NFFExp, sh.NExpert); err != nil {
		return nil, err
	}
	if e.Down, err = Experts(w, name("ffn_down_exps.weight"), sh.NFFExp, sh.NEmbd, sh.NExpert); err != nil {
		return nil, err
	}
	return e, nil
}

// Experts splits the 3-D tensor {cols, rows, n} into n matrices of rows ×
// cols that point into the mmap (no copy). engine.Weights only binds 2-D
// tensors, so the views are built here from the exported Matrix fields;
// they serve QuantizeActs/MulMat, which use Type, Rows, Cols and Data
// (RowBytes and Row are not meaningful on them).
func Experts(w engine.Weights, name string, cols, rows, n int) ([]*engine.Matrix, error) {
	ti, ok := w.F.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("missing tensor %q", name)
	}
	if len(ti.Dims) != 3 || ti.Dims[0] != int64(cols) || ti.Dims[1] != int64(rows) || ti.Dims[2] != int64(n) {
		return nil, fmt.Errorf("tensor %q has shape %v, want [%d %d %d]", name, ti.Dims, cols, rows, n)
	}
	t := kernels.DType(ti.Type)
	if !t.Supported() || cols%t.BlockSize() != 0 {
		return nil, fmt.Errorf("tensor %q: type %s with rows of %d is not supported", name, ti.Type, cols)
	}
	data := w.F.TensorData(ti)
	per := rows * t.RowBytes(cols)
	if len(data) != per*n {
		return nil, fmt.Errorf("tensor %q holds %d bytes, want %d", name, len(data), per*n)
	}
	out := make([]*engine.Matrix, n)
	for e := range out {
		out[e] = &engine.Matrix{Name: fmt.Sprintf("%s[%d]", name, e), Type: t, Rows: rows, Cols: cols, Data: data[e*per : (e+1)*per : (e+1)*per]}
	}
	return out, nil
}
