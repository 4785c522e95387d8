package qwen35

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/moe"
	"github.com/waggle-llm/waggle/kernels"
)

// attnWeights are a gated full-attention layer's tensors.
type attnWeights struct {
	wq           *engine.Matrix // n_embd → 2·nh·hd: per head [q(hd) | gate(hd)]
	wk, wv, wo   *engine.Matrix
	qNorm, kNorm []float32 // per-head RMSNorm weights (len hd), +1 already in
	index        int       // layer index in the KV cache
}

// deltaWeights are a Gated DeltaNet layer's tensors.
type deltaWeights struct {
	wqkv  *engine.Matrix // n_embd → conv_dim: [q | k | v]
	wz    *engine.Matrix // n_embd → hv·dv output gate z
	wBeta *engine.Matrix // n_embd → hv (nil with fused ssm_ba)
	wA    *engine.Matrix // n_embd → hv (nil with fused ssm_ba)
	wBA   *engine.Matrix // qwen3next: n_embd → 2·hv, per K group [b(r) | a(r)]
	convW []float32      // tap-major copy of ssm_conv1d: convW[j*conv_dim+c]
	dtB   []float32      // ssm_dt.bias, hv
	ssmA  []float32      // ssm_a = -exp(A_log), hv
	norm  []float32      // ssm_norm (dv), used as stored: no +1
	wOut  *engine.Matrix // hv·dv → n_embd
	index int            // index among the DeltaNet layers (recurrent state slot)
}

// moeWeights are a mixture-of-experts feed-forward's tensors: the routed
// experts (package moe, used in place in the mmap) and the shared expert.
type moeWeights struct {
	routed               *moe.Weights
	shGate, shUp, shDown *engine.Matrix
	shInp                []float32 // ffn_gate_inp_shexp: one scalar gate per token
}

// layer is one block: norms, a mixer (attention or DeltaNet) and an FFN.
type layer struct {
	attnNorm, postNorm []float32
	attn               *attnWeights  // nil in DeltaNet layers
	delta              *deltaWeights // nil in attention layers
	gate, up, down     *engine.Matrix
	moe                *moeWeights // nil for a dense FFN
}

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
	m.layers = make([]layer, hp.nLayer)
	for i := range m.layers {
		if err := m.loadLayer(w, i); err != nil {
			return err
		}
	}
	return nil
}

// binder loads the tensors of one layer, remembering the first error so a
// long list of loads reads straight.
type binder struct {
	w   engine.Weights
	il  int
	err error
}

func (b *binder) name(s string) string { return fmt.Sprintf("blk.%d.%s", b.il, s) }

func (b *binder) vec(s string, n int) []float32 {
	if b.err != nil {
		return nil
	}
	v, err := b.w.Vector(b.name(s), n)
	b.err = err
	return v
}

func (b *binder) mat(s string, cols, rows int) *engine.Matrix {
	if b.err != nil {
		return nil
	}
	m, err := b.w.Matrix(b.name(s), cols, rows)
	b.err = err
	return m
}

func (b *binder) has(s string) bool {
	_, ok := b.w.F.Tensor(b.name(s))
	return ok
}

func (m *Model) loadLayer(w engine.Weights, il int) error {
	hp := &m.hp
	l := &m.layers[il]
	b := &binder{w: w, il: il}
	l.attnNorm = b.vec("attn_norm.weight", hp.nEmbd)
	l.postNorm = b.vec("post_attention_norm.weight", hp.nEmbd)
	if hp.isRecurrent(il) {
		l.delta = m.loadDelta(b)
		if l.delta != nil {
			l.delta.index = m.nDelta
		}
		m.nDelta++
	} else {
		l.attn = m.loadAttn(b)
		if l.attn != nil {
			l.attn.index = m.nAttn
		}
		m.nAttn++
	}
	if m.v.moe {
		l.moe = m.loadMoE(b)
	} else {
		l.gate = b.mat("ffn_gate.weight", hp.nEmbd, hp.nFF)
		l.up = b.mat("ffn_up.weight", hp.nEmbd, hp.nFF)
		l.down = b.mat("ffn_down.weight", hp.nFF, hp.nEmbd)
	}
	return b.err
}

func (m *Model) loadAttn(b *binder) *attnWeights {
	hp := &m.hp
	qDim, kvDim := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	a := &attnWeights{
		wq:    b.mat("attn_q.weight", hp.nEmbd, 2*qDim),
		wk:    b.mat("attn_k.weight", hp.nEmbd, kvDim),
		wv:    b.mat("attn_v.weight", hp.nEmbd, kvDim),
		wo:    b.mat("attn_output.weight", qDim, hp.nEmbd),
		qNorm: b.vec("attn_q_norm.weight", hp.headDim),
		kNorm: b.vec("attn_k_norm.weight", hp.headDim),
	}
	if b.err != nil {
		return nil
	}
	return a
}

func (m *Model) loadDelta(b *binder) *deltaWeights {
	hp := &m.hp
	if b.err == nil && !b.has("attn_qkv.weight") && b.has("ssm_in.weight") {
		b.err = fmt.Errorf("%s: legacy fused ssm_in layout is not supported; reconvert the model", b.name("ssm_in.weight"))
		return nil
	}
	d := &deltaWeights{
		wqkv: b.mat("attn_qkv.weight", hp.nEmbd, hp.convDim),
		wz:   b.mat("attn_gate.weight", hp.nEmbd, hp.innerDim),
		dtB:  b.vec("ssm_dt.bias", hp.hv),
		ssmA: b.vec("ssm_a", hp.hv),
		norm: b.vec("ssm_norm.weight", hp.dv),
		wOut: b.mat("ssm_out.weight", hp.innerDim, hp.nEmbd),
	}
	if m.v.fusedBA {
		d.wBA = b.mat("ssm_ba.weight", hp.nEmbd, 2*hp.hv)
	} else {
		d.wBeta = b.mat("ssm_beta.weight", hp.nEmbd, hp.hv)
		d.wA = b.mat("ssm_alpha.weight", hp.nEmbd, hp.hv)
	}
	d.convW = m.loadConv(b)
	if b.err != nil {
		return nil
	}
	return d
}

// loadConv reads ssm_conv1d {K, conv_dim} (K taps contiguous per channel)
// and transposes it to tap-major for kernels.ConvSiLUStep. It is K·conv_dim
// values, small enough to copy once at load.
func (m *Model) loadConv(b *binder) []float32 {
	hp := &m.hp
	if b.err != nil {
		return nil
	}
	name := b.name("ssm_conv1d.weight")
	ti, ok := b.w.F.Tensor(name)
	if !ok {
		b.err = fmt.Errorf("missing tensor %q", name)
		return nil
	}
	if len(ti.Dims) != 2 || ti.Dims[0] != int64(hp.convK) || ti.Dims[1] != int64(hp.convDim) {
		b.err = fmt.Errorf("tensor %q has shape %v, want [%d %d]", name, ti.Dims, hp.convK, hp.convDim)
		return nil
	}
	t := kernels.DType(ti.Type)
	if !t.Supported() || (hp.convK*hp.convDim)%t.BlockSize() != 0 {
		b.err = fmt.Errorf("tensor %q: type %s unsupported", name, ti.Type)
		return nil
	}
	raw := make([]float32, hp.convK*hp.convDim)
	kernels.DequantizeRow(t, raw, b.w.F.TensorData(ti))
	tapMajor := make([]float32, len(raw))
	for c := range hp.convDim {
		for j := range hp.convK {
			tapMajor[j*hp.convDim+c] = raw[c*hp.convK+j]
		}
	}
	return tapMajor
}
