package llama

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
)

// loadWeights binds every tensor, checking shapes; matrices stay in the mmap.
func (m *Model) loadWeights(w engine.Weights) error {
	hp := &m.hp
	embd, ok := w.F.Tensor("token_embd.weight")
	if !ok || len(embd.Dims) != 2 {
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
	if m.output, err = w.OptionalMatrix("output.weight", hp.nEmbd, hp.nVocab); err != nil {
		return err
	}
	if m.output == nil { // tied embeddings
		m.output = m.tokEmbd
	}
	if hp.rope.FreqFactors, err = w.OptionalVector("rope_freqs.weight", hp.rope.NRot/2); err != nil {
		return err
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
	mat(&l.wq, "attn_q.weight", hp.nEmbd, qDim)
	mat(&l.wk, "attn_k.weight", hp.nEmbd, kvDim)
	mat(&l.wv, "attn_v.weight", hp.nEmbd, kvDim)
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
	// Biases are optional in every variant (some llama conversions have them).
	vec(&l.bq, "attn_q.bias", qDim, true)
	vec(&l.bk, "attn_k.bias", kvDim, true)
	vec(&l.bv, "attn_v.bias", kvDim, true)
	vec(&l.qNorm, "attn_q_norm.weight", hp.headDim, !m.v.qkNorm)
	vec(&l.kNorm, "attn_k_norm.weight", hp.headDim, !m.v.qkNorm)
	return err
}
