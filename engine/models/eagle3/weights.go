package eagle3

import (
	"encoding/binary"
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
)

// maxVocab bounds the vocabularies a file may declare.
const maxVocab = 1 << 24

// loadWeights binds every tensor, checking shapes; matrices stay in the
// mmap.
func (m *Model) loadWeights(w engine.Weights) error {
	hp := &m.hp
	d, in := hp.nEmbd, nTaps*hp.targetEmbd
	var err error
	if m.fc, err = w.Matrix("fc.weight", in, d); err != nil {
		return err
	}
	if err := m.loadInputNorms(w); err != nil {
		return err
	}
	if m.outNorm, err = w.Vector("output_norm.weight", d); err != nil {
		return err
	}
	if m.d2t, err = readD2T(w.F); err != nil {
		return err
	}
	if err := m.loadHead(w); err != nil {
		return err
	}
	// llama3-style rope factors: mainline names them "rope_freqs.weight";
	// the per-layer name is read too.
	if hp.rope.FreqFactors, err = w.OptionalVector("rope_freqs.weight", hp.rope.NRot/2); err != nil {
		return err
	}
	if hp.rope.FreqFactors == nil {
		if hp.rope.FreqFactors, err = w.OptionalVector("blk.0.rope_freqs.weight", hp.rope.NRot/2); err != nil {
			return err
		}
	}
	return m.loadBlock(w)
}

// loadInputNorms binds the norms of the fused input: enc.output_norm
// (norm_before_fc) or fc_norm.{0,1,2} (EAGLE 3.1). A file holding one
// of them without the key that selects it is refused rather than run
// without trained weights.
func (m *Model) loadInputNorms(w engine.Weights) error {
	hp := &m.hp
	var err error
	switch {
	case hp.normBeforeFC:
		m.encNorm, err = w.Vector("enc.output_norm.weight", nTaps*hp.targetEmbd)
		return err
	case hp.fcNorm:
		for k := range nTaps {
			if m.fcNorm[k], err = w.Vector(fmt.Sprintf("fc_norm.%d.weight", k), hp.targetEmbd); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range []string{"enc.output_norm.weight", "fc_norm.0.weight"} {
		if _, ok := w.F.Tensor(name); ok {
			return fmt.Errorf("tensor %q is present but neither %s.norm_before_fc nor %s.fc_norm selects it", name, arch, arch)
		}
	}
	return nil
}

// loadHead binds the optional own embeddings and output head.
func (m *Model) loadHead(w engine.Weights) error {
	d := m.hp.nEmbd
	if ti, ok := w.F.Tensor("token_embd.weight"); ok {
		if len(ti.Dims) != 2 || ti.Dims[1] <= 0 || ti.Dims[1] > maxVocab {
			return fmt.Errorf("tensor %q has shape %v", "token_embd.weight", ti.Dims)
		}
		var err error
		if m.tokEmbd, err = w.Matrix("token_embd.weight", d, int(ti.Dims[1])); err != nil {
			return err
		}
	}
	ti, ok := w.F.Tensor("output.weight")
	if !ok {
		if m.d2t != nil {
			return fmt.Errorf("a d2t map without an own output head (output.weight): the map indexes the drafter's head")
		}
		return nil
	}
	if len(ti.Dims) != 2 || ti.Dims[1] <= 0 || ti.Dims[1] > maxVocab {
		return fmt.Errorf("tensor %q has shape %v", "output.weight", ti.Dims)
	}
	rows := int(ti.Dims[1])
	if m.d2t != nil && rows != len(m.d2t) {
		return fmt.Errorf("output.weight has %d rows but d2t maps %d draft ids", rows, len(m.d2t))
	}
	var err error
	m.output, err = w.Matrix("output.weight", d, rows)
	return err
}

// loadBlock binds the decoder block.
func (m *Model) loadBlock(w engine.Weights) error {
	hp := &m.hp
	d, qd, kvd := hp.nEmbd, hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	b := &m.blk
	name := func(s string) string { return "blk.0." + s + ".weight" }
	if _, ok := w.F.Tensor(name("attn_norm_2")); !ok {
		if _, pre := w.F.Tensor(name("hidden_norm")); pre {
			return fmt.Errorf("tensor %q is the name of EAGLE-3 converters that preceded llama.cpp's merged support; this loader reads %q: reconvert the drafter with a current convert_hf_to_gguf.py", name("hidden_norm"), name("attn_norm_2"))
		}
	}
	var err error
	for _, v := range []struct {
		dst *[]float32
		n   string
	}{{&b.attnNorm, "attn_norm"}, {&b.hiddenNorm, "attn_norm_2"}, {&b.ffnNorm, "ffn_norm"}} {
		if *v.dst, err = w.Vector(name(v.n), d); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		dst        **engine.Matrix
		n          string
		cols, rows int
	}{
		{&b.wq, "attn_q", 2 * d, qd}, {&b.wk, "attn_k", 2 * d, kvd}, {&b.wv, "attn_v", 2 * d, kvd},
		{&b.wo, "attn_output", qd, d},
		{&b.gate, "ffn_gate", d, hp.nFF}, {&b.up, "ffn_up", d, hp.nFF}, {&b.down, "ffn_down", hp.nFF, d},
	} {
		if *x.dst, err = w.Matrix(name(x.n), x.cols, x.rows); err != nil {
			return err
		}
	}
	return nil
}

// readD2T reads the draft-to-target map: "d2t" as mainline writes it (I64,
// absolute target ids), or the I32 / "d2t.weight" forms some converters
// wrote. Ids must be non-negative and distinct; whether they fit the
// target vocabulary is checked when binding. nil when absent.
func readD2T(f *gguf.File) ([]int32, error) {
	ti, ok := f.Tensor("d2t")
	if !ok {
		if ti, ok = f.Tensor("d2t.weight"); !ok {
			return nil, nil
		}
	}
	n := ti.NumElements()
	if len(ti.Dims) != 1 || n <= 0 || n > maxVocab {
		return nil, fmt.Errorf("tensor %q has shape %v, want one dimension of draft ids", ti.Name, ti.Dims)
	}
	size := map[gguf.Type]int64{gguf.TypeI64: 8, gguf.TypeI32: 4}[ti.Type]
	if size == 0 {
		return nil, fmt.Errorf("tensor %q has type %s, want I64 (or I32)", ti.Name, ti.Type)
	}
	data := f.TensorData(ti)
	if int64(len(data)) < n*size {
		return nil, fmt.Errorf("tensor %q: data truncated", ti.Name)
	}
	out := make([]int32, n)
	seen := make(map[int32]bool, n)
	for i := range out {
		var v int64
		if size == 8 {
			v = int64(binary.LittleEndian.Uint64(data[i*8:]))
		} else {
			v = int64(int32(binary.LittleEndian.Uint32(data[i*4:])))
		}
		if v < 0 || v >= maxVocab {
			return nil, fmt.Errorf("tensor %q maps draft id %d to target id %d", ti.Name, i, v)
		}
		if seen[int32(v)] {
			return nil, fmt.Errorf("tensor %q maps two draft ids to target id %d (mainline writes absolute, distinct ids)", ti.Name, v)
		}
		seen[int32(v)] = true
		out[i] = int32(v)
	}
	return out, nil
}
