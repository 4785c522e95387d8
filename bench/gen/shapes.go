package main

import (
	"fmt"
	"strings"

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
	headDim   int    // attention.key_length when it is not nEmbd/nHead (0: nEmbd/nHead)
	untied    bool   // a separate output.weight instead of the tied token_embd
	// maskToken, when not 0, is a diffusion model's mask token: that id of
	// the vocabulary becomes the control token <|mask|> and
	// tokenizer.ggml.mask_token_id points at it.
	maskToken int

	hybrid *hybridShape // qwen35 only: the Gated DeltaNet layout
	moe    *moeShape    // qwen3moe only: routed experts in every layer
}

// moeShape is what a qwen3moe shape adds: per-head q/k norms and, in
// place of the dense feed-forward, a router over nExpert SwiGLU experts
// of width nFFExp of which nUsed run per token (no shared expert).
type moeShape struct {
	nExpert, nUsed, nFFExp int
}

// hybridShape is what a qwen35 (Qwen3.5 hybrid) shape adds: gated full
// attention every interval-th layer with its own head size and partial
// rotary, Gated DeltaNet layers between (architectures.md §1.2, §1.3),
// and the vocabulary size to pad the tokenizer to.
type hybridShape struct {
	headDim   int    // full-attention head size (key_length = value_length)
	interval  int    // full_attention_interval
	nRot      int    // rope.dimension_count
	sections  [4]int // rope.dimension_sections
	convK     int    // ssm.conv_kernel
	dk        int    // ssm.state_size (= head_v_dim)
	hk, hv    int    // ssm.group_count (K heads), ssm.time_step_rank (V heads)
	vocabSize int    // tokens after padding the vocabulary file's list
}

// shapes are the models the benchmarks compare against llama.cpp.
var shapes = []shape{
	{name: "llama3.2-1b", arch: "llama", nEmbd: 2048, nLayer: 16, nHead: 32, nHeadKV: 8, nFF: 8192,
		ropeBase: 500000, eps: 1e-5, ctx: 131072, vocabFile: "ggml-vocab-llama-bpe.gguf"},
	{name: "qwen2.5-0.5b", arch: "qwen2", nEmbd: 896, nLayer: 24, nHead: 14, nHeadKV: 2, nFF: 4864,
		ropeBase: 1e6, eps: 1e-6, ctx: 32768, qkvBias: true, vocabFile: "ggml-vocab-qwen2.gguf"},
	// qwen3.5-0.8b: Qwen3.5-0.8B's published config (HF Qwen/Qwen3.5-0.8B
	// config.json, text part, as recalled: the reference notes give no
	// small-model numbers): hidden 1024, 24 layers (every 4th gated full
	// attention: 8 heads, 2 KV heads of 256, partial rotary 0.25 → 64
	// dims, mrope sections [11,11,10], theta 1e7), 18 Gated DeltaNet
	// layers (16 K and 16 V heads of 128, conv 4), SwiGLU 3584, tied
	// output, vocabulary 248320. The Qwen3.5 tokenizer is not in the
	// shared testdata, so the Qwen2 BPE vocabulary (151936) is padded with
	// unused tokens to 248320: the embedding and output head then cost
	// what the real model's do.
	{name: "qwen3.5-0.8b", arch: "qwen35", nEmbd: 1024, nLayer: 24, nHead: 8, nHeadKV: 2, nFF: 3584,
		ropeBase: 1e7, eps: 1e-6, ctx: 262144, vocabFile: "ggml-vocab-qwen2.gguf",
		hybrid: &hybridShape{headDim: 256, interval: 4, nRot: 64, sections: [4]int{11, 11, 10, 0},
			convK: 4, dk: 128, hk: 16, hv: 16, vocabSize: 248320}},
	// qwen3-30b-a3b: Qwen3-30B-A3B's published config (HF
	// Qwen/Qwen3-30B-A3B config.json, as recalled): hidden 2048, 48
	// layers, 32 heads and 4 KV heads of 128 (head_dim is not
	// hidden/heads), q/k RMS norms, 128 experts of width 768 with 8 used
	// per token and no shared expert, rope theta 1e6, untied output,
	// vocabulary 151936 (the Qwen2 BPE file has exactly that many
	// tokens). Its Q4_K_M file is about 17 GiB; gen's -layers cuts it to
	// fit in memory with every expert kept.
	{name: "qwen3-30b-a3b", arch: "qwen3moe", nEmbd: 2048, nLayer: 48, nHead: 32, nHeadKV: 4, nFF: 6144,
		ropeBase: 1e6, eps: 1e-6, ctx: 40960, vocabFile: "ggml-vocab-qwen2.gguf", headDim: 128, untied: true,
		moe: &moeShape{nExpert: 128, nUsed: 8, nFFExp: 768}},
	// dream-0.5b: llama.cpp's dream architecture (the Qwen2 tensors, NEOX
	// rotary, bidirectional attention, predictions shifted by one) at
	// Qwen2.5-0.5B's size (Dream itself is published at 7B only), with
	// Dream's mask token <|mask|> at its id 151666, an unused slot of the
	// Qwen2 vocabulary. For the diffusion benchmarks (docs/diffusion.md).
	{name: "dream-0.5b", arch: "dream", nEmbd: 896, nLayer: 24, nHead: 14, nHeadKV: 2, nFF: 4864,
		ropeBase: 1e6, eps: 1e-6, ctx: 32768, qkvBias: true, vocabFile: "ggml-vocab-qwen2.gguf", maskToken: 151666},
	// dream-tiny is for tests of this program: the dream-0.5b layout, small.
	{name: "dream-tiny", arch: "dream", nEmbd: 64, nLayer: 2, nHead: 4, nHeadKV: 2, nFF: 128,
		ropeBase: 1e6, eps: 1e-6, ctx: 2048, qkvBias: true, vocabFile: "ggml-vocab-qwen2.gguf", maskToken: 151666},
	// tiny is for tests of this program: the llama3.2-1b layout, small.
	{name: "tiny", arch: "llama", nEmbd: 256, nLayer: 2, nHead: 4, nHeadKV: 1, nFF: 768,
		ropeBase: 500000, eps: 1e-5, ctx: 2048, vocabFile: "ggml-vocab-llama-bpe.gguf"},
	// tiny-moe is for tests of this program: the qwen3-30b-a3b layout, small.
	{name: "tiny-moe", arch: "qwen3moe", nEmbd: 256, nLayer: 2, nHead: 4, nHeadKV: 2, nFF: 768,
		ropeBase: 1e6, eps: 1e-6, ctx: 2048, vocabFile: "ggml-vocab-qwen2.gguf", headDim: 128, untied: true,
		moe: &moeShape{nExpert: 16, nUsed: 4, nFFExp: 128}},
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

// negExp reports whether a tensor stores -exp(x) of each draw: ssm_a,
// which converted files hold as -exp(A_log).
func (t *genTensor) negExp() bool { return strings.HasSuffix(t.name, ".ssm_a") }

// tensors lists the model's tensors with the recipe of the shared synthetic
// models (../shared/models/README.md): token_embd ~ N(0, (4/sqrt(n_embd))²),
// matrices ~ N(0, 1/fan_in), norms ~ 1 + N(0, 0.1²), qwen2 biases q, v ~
// N(0, 0.2²) and k ~ N(0, 0.5²). The output head is tied to token_embd.
func (s *shape) tensors(nVocab int) []genTensor {
	if s.hybrid != nil {
		return s.hybridTensors()
	}
	e, hd := int64(s.nEmbd), int64(s.headSize())
	q, kv, ff := hd*int64(s.nHead), hd*int64(s.nHeadKV), int64(s.nFF)
	norm := dist{1, 0.1}
	mat := func(name string, in, out int64) genTensor {
		return genTensor{name, []int64{in, out}, dist{0, 1 / sqrt(float64(in))}}
	}
	ts := []genTensor{
		{"token_embd.weight", []int64{e, int64(nVocab)}, dist{0, 4 / sqrt(float64(e))}},
		{"output_norm.weight", []int64{e}, norm},
	}
	if s.untied {
		ts = append(ts, mat("output.weight", e, int64(nVocab)))
	}
	for l := 0; l < s.nLayer; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			genTensor{p + "attn_norm.weight", []int64{e}, norm},
			mat(p+"attn_q.weight", e, q), mat(p+"attn_k.weight", e, kv), mat(p+"attn_v.weight", e, kv),
			mat(p+"attn_output.weight", q, e),
			genTensor{p + "ffn_norm.weight", []int64{e}, norm})
		if s.moe != nil {
			ts = append(ts, s.moeTensors(p)...)
		} else {
			ts = append(ts, mat(p+"ffn_gate.weight", e, ff), mat(p+"ffn_up.weight", e, ff), mat(p+"ffn_down.weight", ff, e))
		}
		if s.qkvBias {
			ts = append(ts, genTensor{p + "attn_q.bias", []int64{e}, dist{0, 0.2}},
				genTensor{p + "attn_k.bias", []int64{kv}, dist{0, 0.5}},
				genTensor{p + "attn_v.bias", []int64{kv}, dist{0, 0.2}})
		}
	}
	return ts
}

// headSize is the attention head size: headDim, or nEmbd/nHead.
func (s *shape) headSize() int {
	if s.headDim > 0 {
		return s.headDim
	}
	return s.nEmbd / s.nHead
}

// moeTensors are one qwen3moe layer's q/k norms, router and experts
// (llama.cpp's names and layouts: ffn_{gate,up}_exps [n_embd, n_ff_exp,
// n_expert], ffn_down_exps [n_ff_exp, n_embd, n_expert]); matrices ~
// N(0, 1/fan_in), the router too.
func (s *shape) moeTensors(p string) []genTensor {
	e, hd := int64(s.nEmbd), int64(s.headSize())
	x, ff := int64(s.moe.nExpert), int64(s.moe.nFFExp)
	w := func(in int64) dist { return dist{0, 1 / sqrt(float64(in))} }
	return []genTensor{
		{p + "attn_q_norm.weight", []int64{hd}, dist{1, 0.1}},
		{p + "attn_k_norm.weight", []int64{hd}, dist{1, 0.1}},
		{p + "ffn_gate_inp.weight", []int64{e, x}, w(e)},
		{p + "ffn_gate_exps.weight", []int64{e, ff, x}, w(e)},
		{p + "ffn_up_exps.weight", []int64{e, ff, x}, w(e)},
		{p + "ffn_down_exps.weight", []int64{ff, e, x}, w(ff)},
	}
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
	if s.headDim > 0 && s.hybrid == nil {
		kvs = append(kvs, gguf.KV{Key: a("attention.key_length"), Value: gguf.Uint32Value(uint32(s.headDim))},
			gguf.KV{Key: a("attention.value_length"), Value: gguf.Uint32Value(uint32(s.headDim))})
	}
	if m := s.moe; m != nil {
		kvs = append(kvs, gguf.KV{Key: a("expert_count"), Value: gguf.Uint32Value(uint32(m.nExpert))},
			gguf.KV{Key: a("expert_used_count"), Value: gguf.Uint32Value(uint32(m.nUsed))},
			gguf.KV{Key: a("expert_feed_forward_length"), Value: gguf.Uint32Value(uint32(m.nFFExp))})
	}
	if s.hybrid != nil {
		kvs = append(kvs, s.hybridMetadata()...)
	}
	if s.maskToken != 0 {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.mask_token_id", Value: gguf.Uint32Value(uint32(s.maskToken))})
	}
	for _, kv := range vocab.KVs {
		if len(kv.Key) > 10 && kv.Key[:10] == "tokenizer." {
			kvs = append(kvs, s.padVocab(kv))
		}
	}
	return kvs
}

// hybridTensors lists a qwen35 model's tensors (architectures.md §1.3)
// with the recipe of the shared synth-qwen35 fixtures
// (../shared/models/README.md): matrices ~ N(0, 1/fan_in), every norm
// including q/k norms and ssm_norm ~ 1 + N(0, 0.1²), ssm_conv1d ~
// N(0, 1/4), ssm_dt.bias ~ N(-1, 0.5²), ssm_a = -exp(N(-0.5, 0.5²)).
func (s *shape) hybridTensors() []genTensor {
	h := s.hybrid
	e, hd, ff := int64(s.nEmbd), int64(h.headDim), int64(s.nFF)
	qDim, kvDim := int64(s.nHead)*hd, int64(s.nHeadKV)*hd
	inner := int64(h.hv * h.dk)
	convDim := int64(2*h.hk*h.dk) + inner
	norm := dist{1, 0.1}
	mat := func(name string, in, out int64) genTensor {
		return genTensor{name: name, dims: []int64{in, out}, init: dist{0, 1 / sqrt(float64(in))}}
	}
	vec := func(name string, n int64, d dist) genTensor { return genTensor{name: name, dims: []int64{n}, init: d} }
	ts := []genTensor{
		{name: "token_embd.weight", dims: []int64{e, int64(h.vocabSize)}, init: dist{0, 4 / sqrt(float64(e))}},
		vec("output_norm.weight", e, norm),
	}
	for l := 0; l < s.nLayer; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts, vec(p+"attn_norm.weight", e, norm), vec(p+"post_attention_norm.weight", e, norm))
		if (l+1)%h.interval == 0 {
			ts = append(ts, mat(p+"attn_q.weight", e, 2*qDim), mat(p+"attn_k.weight", e, kvDim),
				mat(p+"attn_v.weight", e, kvDim), mat(p+"attn_output.weight", qDim, e),
				vec(p+"attn_q_norm.weight", hd, norm), vec(p+"attn_k_norm.weight", hd, norm))
		} else {
			hv := int64(h.hv)
			ts = append(ts, mat(p+"attn_qkv.weight", e, convDim), mat(p+"attn_gate.weight", e, inner),
				genTensor{name: p + "ssm_conv1d.weight", dims: []int64{int64(h.convK), convDim}, init: dist{0, 0.5}},
				vec(p+"ssm_dt.bias", hv, dist{-1, 0.5}),
				vec(p+"ssm_a", hv, dist{-0.5, 0.5}),
				mat(p+"ssm_beta.weight", e, hv), mat(p+"ssm_alpha.weight", e, hv),
				vec(p+"ssm_norm.weight", int64(h.dk), norm), mat(p+"ssm_out.weight", inner, e))
		}
		ts = append(ts, mat(p+"ffn_gate.weight", e, ff), mat(p+"ffn_up.weight", e, ff), mat(p+"ffn_down.weight", ff, e))
	}
	return ts
}

// hybridMetadata is the qwen35 keys beyond the common ones.
func (s *shape) hybridMetadata() []gguf.KV {
	h := s.hybrid
	a := func(k string) string { return s.arch + "." + k }
	u := func(k string, v int) gguf.KV { return gguf.KV{Key: a(k), Value: gguf.Uint32Value(uint32(v))} }
	sec := make([]int32, len(h.sections))
	for i, v := range h.sections {
		sec[i] = int32(v)
	}
	return []gguf.KV{
		u("attention.key_length", h.headDim), u("attention.value_length", h.headDim),
		u("rope.dimension_count", h.nRot),
		{Key: a("rope.dimension_sections"), Value: gguf.Int32sValue(sec)},
		u("full_attention_interval", h.interval),
		u("ssm.conv_kernel", h.convK), u("ssm.state_size", h.dk), u("ssm.group_count", h.hk),
		u("ssm.time_step_rank", h.hv), u("ssm.inner_size", h.hv*h.dk),
	}
}

// padVocab returns kv, with the token list and its types padded to the
// hybrid shape's vocabulary size by unused tokens (type 5) when it has
// one; other keys and shapes pass through unchanged.
func (s *shape) padVocab(kv gguf.KV) gguf.KV {
	if s.maskToken != 0 {
		return s.maskVocab(kv)
	}
	if s.hybrid == nil {
		return kv
	}
	switch kv.Key {
	case "tokenizer.ggml.tokens":
		toks, _ := kv.Value.AsStrings()
		out := append([]string(nil), toks...)
		for i := len(toks); i < s.hybrid.vocabSize; i++ {
			out = append(out, fmt.Sprintf("<|pad_%d|>", i))
		}
		return gguf.KV{Key: kv.Key, Value: gguf.StringsValue(out)}
	case "tokenizer.ggml.token_type":
		types, _ := kv.Value.AsInt32s()
		out := append([]int32(nil), types...)
		for len(out) < s.hybrid.vocabSize {
			out = append(out, 5)
		}
		return gguf.KV{Key: kv.Key, Value: gguf.Int32sValue(out)}
	}
	return kv
}

// maskVocab returns kv with the mask token's slot renamed <|mask|> and
// typed control (3); other keys pass through unchanged.
func (s *shape) maskVocab(kv gguf.KV) gguf.KV {
	switch kv.Key {
	case "tokenizer.ggml.tokens":
		toks, _ := kv.Value.AsStrings()
		out := append([]string(nil), toks...)
		out[s.maskToken] = "<|mask|>"
		return gguf.KV{Key: kv.Key, Value: gguf.StringsValue(out)}
	case "tokenizer.ggml.token_type":
		types, _ := kv.Value.AsInt32s()
		out := append([]int32(nil), types...)
		out[s.maskToken] = 3
		return gguf.KV{Key: kv.Key, Value: gguf.Int32sValue(out)}
	}
	return kv
}
