// Package dflashgen writes dflash-draft GGUF files with random weights for
// any target, so that tests can run DFlash drafting on every target
// fixture (the shipped drafters fit only two of them): speculative
// exactness does not depend on the drafter's weights, only on the engine.
// The tokenizer metadata is copied from the target, as the converter
// copies the drafter repository's tokenizer, which is the target's.
package dflashgen

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// Options shape a drafter. Zero fields take the defaults noted.
type Options struct {
	Taps      []int  // target layers tapped (required)
	NLayer    int    // 2
	NHead     int    // 4
	NHeadKV   int    // 2
	HeadDim   int    // 16
	NFF       int    // 2·n_embd
	BlockSize int    // 16
	MaskToken int32  // 0
	Seed      uint64 // 1
	// VocabSize overrides the vocabulary size written (0: the target's).
	VocabSize int
}

// Build returns a drafter for target (n_embd and vocabulary read from it).
func Build(target *gguf.File, o Options) ([]byte, error) {
	arch := target.Architecture()
	ne, _ := target.Uint(arch + ".embedding_length")
	nEmbd := int(ne)
	toks, _ := target.Strings("tokenizer.ggml.tokens")
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.NLayer, 2)
	def(&o.NHead, 4)
	def(&o.NHeadKV, 2)
	def(&o.HeadDim, 16)
	def(&o.NFF, 2*nEmbd)
	def(&o.BlockSize, 16)
	def(&o.VocabSize, len(toks))
	if o.Seed == 0 {
		o.Seed = 1
	}
	const a = "dflash-draft."
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue("dflash-draft"))
	w.AddKV("general.name", gguf.StringValue("dflashgen random drafter"))
	for _, kv := range []struct {
		k string
		v int
	}{{"context_length", 4096}, {"embedding_length", nEmbd}, {"block_count", o.NLayer}, {"feed_forward_length", o.NFF},
		{"attention.head_count", o.NHead}, {"attention.head_count_kv", o.NHeadKV}, {"attention.key_length", o.HeadDim},
		{"attention.value_length", o.HeadDim}, {"rope.dimension_count", o.HeadDim}, {"dflash.block_size", o.BlockSize},
		{"dflash.mask_token_id", int(o.MaskToken)}, {"dflash.n_target_features", nEmbd * len(o.Taps)}, {"vocab_size", o.VocabSize}} {
		w.AddKV(a+kv.k, gguf.Uint32Value(uint32(kv.v)))
	}
	w.AddKV(a+"rope.freq_base", gguf.Float32Value(1e6))
	w.AddKV(a+"attention.layer_norm_rms_epsilon", gguf.Float32Value(1e-6))
	w.AddKV(a+"attention.causal", gguf.BoolValue(false))
	ids := make([]int32, len(o.Taps))
	for i, t := range o.Taps {
		ids[i] = int32(t)
	}
	w.AddKV(a+"dflash.target_layer_ids", gguf.Int32sValue(ids))
	for _, kv := range target.KVs {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			w.AddKV(kv.Key, kv.Value)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	add := func(name string, cols, rows int, norm bool) error {
		v := make([]float32, cols*rows)
		for i := range v {
			if norm {
				v[i] = 1 + 0.1*float32(rng.NormFloat64())
			} else {
				v[i] = float32(rng.NormFloat64() / math.Sqrt(float64(cols)))
			}
		}
		var buf bytes.Buffer
		_ = binary.Write(&buf, binary.LittleEndian, v)
		dims := []int64{int64(cols)}
		if rows > 1 || !norm {
			dims = append(dims, int64(rows))
		}
		return w.AddTensor(name, gguf.TypeF32, dims, buf.Bytes())
	}
	qd, kvd := o.NHead*o.HeadDim, o.NHeadKV*o.HeadDim
	specs := []struct {
		name       string
		cols, rows int
		norm       bool
	}{{"dflash_fc.weight", nEmbd * len(o.Taps), nEmbd, false}, {"dflash_hidden_norm.weight", nEmbd, 1, true}, {"output_norm.weight", nEmbd, 1, true}}
	for i := range o.NLayer {
		p := "blk." + itoa(i) + "."
		specs = append(specs, []struct {
			name       string
			cols, rows int
			norm       bool
		}{
			{p + "attn_norm.weight", nEmbd, 1, true}, {p + "post_attention_norm.weight", nEmbd, 1, true},
			{p + "attn_q.weight", nEmbd, qd, false}, {p + "attn_k.weight", nEmbd, kvd, false}, {p + "attn_v.weight", nEmbd, kvd, false},
			{p + "attn_output.weight", qd, nEmbd, false}, {p + "attn_q_norm.weight", o.HeadDim, 1, true}, {p + "attn_k_norm.weight", o.HeadDim, 1, true},
			{p + "ffn_gate.weight", nEmbd, o.NFF, false}, {p + "ffn_up.weight", nEmbd, o.NFF, false}, {p + "ffn_down.weight", o.NFF, nEmbd, false},
		}...)
	}
	for _, s := range specs {
		if err := add(s.name, s.cols, s.rows, s.norm); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if _, err := w.WriteTo(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
