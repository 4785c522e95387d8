package dream

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
)

// loadWeights binds every tensor, checking shapes; matrices stay in the mmap.
func (m *Model) loadWeights(w engine.Weights) error {
	hp := &m.hp
	embd, ok := w.F.Tensor("token_embd.weight")
	if !ok || len(embd.Dims) != 2 || embd.Dims[1] < 1 || embd.Dims[1] > 1<<24 {
		return fmt.Errorf("missing or malformed tensor %q", "token_embd.weight")
	}
	hp.nVocab = int(embd.Dims[1])
	var err error
	if m.tokEmbd, err = w.Matrix("token_embd.weight", hp.nEmbd, hp.nVocab); err != nil {
		return err
	}
	if m.outputNorm, err = w.Vector("output_norm.weight", hp.nEmbd); err != nil {
		return err
	}
	// llada-moe requires its own head; the others tie it to the embedding
	// when absent. Dream's optional output.bias is not used by the graph.
	if m.v.moe {
		m.output, err = w.Matrix("output.weight", hp.nEmbd, hp.nVocab)
	} else {
		m.output, err = w.OptionalMatrix("output.weight", hp.nEmbd, hp.nVocab)
	}
	if err != nil {
		return err
	}
	if m.output == nil {
		m.output = m.tokEmbd
	}
	m.layers = make([]layer, hp.nLayer)
	for i := range m.layers {
		if err := m.loadLayer(w, i); err != nil {
			return err
		}
	}
	return nil
}

func (m *Model) loadLayer(w engine.Weights, i int) error {
	hp := &m.hp
	l := &m.layers[i]
	name := func(s string) string { return fmt.Sprintf("blk.%d.%s", i, s) }
	qDim, kvDim := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	var err error
	vec := func(dst *[]float32, s string, n int, optional bool) {
		if err != nil {
			return
		}
		if optional {
			*dst, err = w.OptionalVector(name(s), n)
		} else {
			*dst, err = w.Vector(name(s), n)
		}
	}
	mat := func(dst **engine.Matrix, s string, cols, rows int) {
		if err == nil {
			*dst, err = w.Matrix(name(s), cols, rows)
		}
	}
	vec(&l.attnNorm, "attn_norm.weight", hp.nEmbd, false)
	vec(&l.ffnNorm, "ffn_norm.weight", hp.nEmbd, false)
	if err == nil {
		err = m.loadQKV(w, l, name, qDim, kvDim)
	}
	mat(&l.wo, "attn_output.weight", qDim, hp.nEmbd)
	if m.v.moe {
		if err == nil {
			l.experts, err = moe.Load(w, i, hp.moe)
		}
	} else {
		mat(&l.gate, "ffn_gate.weight", hp.nEmbd, hp.nFF)
		mat(&l.up, "ffn_up.weight", hp.nEmbd, hp.nFF)
		mat(&l.down, "ffn_down.weight", hp.nFF, hp.nEmbd)
	}
	vec(&l.qNorm, "attn_q_norm.weight", hp.headDim, !m.v.qkNorm)
	vec(&l.kNorm, "attn_k_norm.weight", hp.headDim, !m.v.qkNorm)
	return err
}

// loadQKV binds the q, k and v projections and their optional biases,
// from separate tensors or from a fused attn_qkv (rows q, then k, then v),
// whose parts become row-slice views of the one mmapped tensor.
func (m *Model) loadQKV(w engine.Weights, l *layer, name func(string) string, qDim, kvDim int) error {
	nEmbd := m.hp.nEmbd
	fused, err := w.OptionalMatrix(name("attn_qkv.weight"), nEmbd, qDim+2*kvDim)
	if err != nil {
		return err
	}
	if fused == nil {
		if l.wq, err = w.Matrix(name("attn_q.weight"), nEmbd, qDim); err != nil {
			return err
		}
		if l.wk, err = w.Matrix(name("attn_k.weight"), nEmbd, kvDim); err != nil {
			return err
		}
		if l.wv, err = w.Matrix(name("attn_v.weight"), nEmbd, kvDim); err != nil {
			return err
		}
		for _, b := range []struct {
			dst  *[]float32
			name string
			n    int
		}{{&l.bq, "attn_q.bias", qDim}, {&l.bk, "attn_k.bias", kvDim}, {&l.bv, "attn_v.bias", kvDim}} {
			if *b.dst, err = w.OptionalVector(name(b.name), b.n); err != nil {
				return err
			}
		}
		return nil
	}
	l.wq, l.wk, l.wv = rowSlice(fused, 0, qDim), rowSlice(fused, qDim, kvDim), rowSlice(fused, qDim+kvDim, kvDim)
	bias, err := w.OptionalVector(name("attn_qkv.bias"), qDim+2*kvDim)
	if err != nil || bias == nil {
		return err
	}
	l.bq, l.bk, l.bv = bias[:qDim], bias[qDim:qDim+kvDim], bias[qDim+kvDim:]
	return nil
}

// rowSlice is a view of rows [r0, r0+n) of m, sharing its bytes.
func rowSlice(m *engine.Matrix, r0, n int) *engine.Matrix {
	rb := m.RowBytes()
	return &engine.Matrix{Name: m.Name, Type: m.Type, Rows: n, Cols: m.Cols, Data: m.Data[r0*rb : (r0+n)*rb : (r0+n)*rb]}
}
