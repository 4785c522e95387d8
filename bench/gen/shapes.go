package main

import (
	"fmt"

	"github.com/waggle-llm/waggle/gguf"
)

// shape is the architecture of a synthetic benchmark model: the dimensions
// of a real model, whose speed it stands in for, and the vocabulary file its
// tokenizer metadata comes from.
type shape struct {
	name      string
	arch      string
	nEmbd     int
	nLayer    int
	nHead     int
	nHeadKV   int
	nFF       int
	ropeBase  float32
	eps       float32
	ctx       int
	qkvBias   bool
	vocabFile string // under the shared testdata/tokenizer folder
}

// shapes are the models the benchmarks compare against llama.cpp.
var shapes = []shape{
	{name: "llama3.2-1b", arch: "llama", nEmbd: 2048, nLayer: 16, nHead: 32, nHeadKV: 8, nFF: 8192,
		ropeBase: 500000, eps: 1e-5, ctx: 131072, vocabFile: "ggml-vocab-llama-bpe.gguf"},
	{name: "qwen2.5-0.5b", arch: "qwen2", nEmbd: 896, nLayer: 24, nHead: 14, nHeadKV: 2, nFF: 4864,
		ropeBase: 1e6, eps: 1e-6, ctx: 32768, qkvBias: true, vocabFile: "ggml-vocab-qwen2.gguf"},
	// tiny is for tests of this program: the llama3.2-1b layout, small.
	{name: "tiny", arch: "llama", nEmbd: 256, nLayer: 2, nHead: 4, nHeadKV: 1, nFF: 768,
		ropeBase: 500000, eps: 1e-5, ctx: 2048, vocabFile: "ggml-vocab-llama-bpe.gguf"},
}

func lookupShape(name string) (*shape, error) {
	var names []string
	for i := range shapes {
		if shapes[i].name == name {
			return &shapes[i], nil
		}
		names = append(names, shapes[i].name)
	}
	return nil, fmt.Errorf("unknown shape %q (have %v)", name, names)
}

// dist draws a tensor's values: N(0, sd²) plus mean.
type dist struct {
	mean, sd float64
}

// genTensor is one tensor to generate, in F32 terms.
type genTensor struct {
	name string
	dims []int64
	init dist
}

// tensors lists the model's tensors with the recipe of the shared synthetic
// models (../shared/models/README.md): token_embd ~ N(0, (4/sqrt(n_embd))²),
// matrices ~ N(0, 1/fan_in), norms ~ 1 + N(0, 0.1²), qwen2 biases q, v ~
// N(0, 0.2²) and k ~ N(0, 0.5²). The output head is tied to token_embd.
func (s *shape) tensors(nVocab int) []genTensor {
	e, hd := int64(s.nEmbd), int64(s.nEmbd/s.nHead)
	kv, ff := hd*int64(s.nHeadKV), int64(s.nFF)
	norm := dist{1, 0.1}
	mat := func(name string, in, out int64) genTensor {
		return genTensor{name, []int64{in, out}, dist{0, 1 / sqrt(float64(in))}}
	}
	ts := []genTensor{
		{"token_embd.weight", []int64{e, int64(nVocab)}, dist{0, 4 / sqrt(float64(e))}},
		{"output_norm.weight", []int64{e}, norm},
	}
	for l := 0; l < s.nLayer; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			genTensor{p + "attn_norm.weight", []int64{e}, norm},
			mat(p+"attn_q.weight", e, e), mat(p+"attn_k.weight", e, kv), mat(p+"attn_v.weight", e, kv),
			mat(p+"attn_output.weight", e, e),
			genTensor{p + "ffn_norm.weight", []int64{e}, norm},
			mat(p+"ffn_gate.weight", e, ff), mat(p+"ffn_up.weight", e, ff), mat(p+"ffn_down.weight", ff, e))
		if s.qkvBias {
			ts = append(ts, genTensor{p + "attn_q.bias", []int64{e}, dist{0, 0.2}},
				genTensor{p + "attn_k.bias", []int64{kv}, dist{0, 0.5}},
				genTensor{p + "attn_v.bias", []int64{kv}, dist{0, 0.2}})
		}
	}
	return ts
}

// metadata returns the model's hyper-parameters followed by every
// tokenizer.* key of the vocabulary file.
func (s *shape) metadata(vocab *gguf.File, name string) []gguf.KV {
	a := func(k string) string { return s.arch + "." + k }
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: gguf.StringValue(s.arch)},
		{Key: "general.name", Value: gguf.StringValue(name)},
		{Key: a("context_length"), Value: gguf.Uint32Value(uint32(s.ctx))},
		{Key: a("embedding_length"), Value: gguf.Uint32Value(uint32(s.nEmbd))},
		{Key: a("block_count"), Value: gguf.Uint32Value(uint32(s.nLayer))},
		{Key: a("feed_forward_length"), Value: gguf.Uint32Value(uint32(s.nFF))},
		{Key: a("attention.head_count"), Value: gguf.Uint32Value(uint32(s.nHead))},
		{Key: a("attention.head_count_kv"), Value: gguf.Uint32Value(uint32(s.nHeadKV))},
		{Key: a("rope.freq_base"), Value: gguf.Float32Value(s.ropeBase)},
		{Key: a("attention.layer_norm_rms_epsilon"), Value: gguf.Float32Value(s.eps)},
	}
	if s.arch == "llama" {
		kvs = append(kvs, gguf.KV{Key: a("rope.dimension_count"), Value: gguf.Uint32Value(uint32(s.nEmbd / s.nHead))})
	}
	for _, kv := range vocab.KVs {
		if len(kv.Key) > 10 && kv.Key[:10] == "tokenizer." {
			kvs = append(kvs, kv)
		}
	}
	return kvs
}
