// Package demomodel writes Waggle's embedded demo network: a tiny llama-shaped
// model with random weights from a fixed seed and a small SentencePiece-style
// vocabulary, produced with Waggle's own GGUF writer. It exists so that the
// Quick start runs on a fresh machine without downloads. Its output is
// gibberish by design; it is a demo network, not a language model.
//
// The bytes depend only on this file: the random numbers come from a PCG
// generator and a Box-Muller transform written here, not from math/rand,
// whose distributions may change between Go releases. A test checks that
// cmd/waggle/demo.gguf equals Build's output.
package demomodel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/gguf"
)

// Shape of the demo network.
const (
	nEmbd   = 64
	nLayer  = 2
	nHead   = 4
	nHeadKV = 2
	nFF     = 128
	nCtx    = 512
	seed    = 20261122
)

// words are whole-word tokens (with every prefix, so SentencePiece merges
// can reach them) that make the demo tokenizer produce word pieces.
var words = []string{"once", "upon", "a", "time", "there", "was", "the", "quick", "brown", "fox", "and", "little", "girl", "boy", "dog", "cat", "happy", "said", "to", "in", "of", "is", "it", "he", "she", "they", "day", "sun", "play"}

// Build returns the demo model as GGUF bytes.
func Build() ([]byte, error) {
	tokens, scores, types := vocab()
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue("llama"))
	w.AddKV("general.name", gguf.StringValue("waggle-demo (random weights, not a language model)"))
	for _, kv := range []struct {
		k string
		v uint32
	}{{"context_length", nCtx}, {"embedding_length", nEmbd}, {"block_count", nLayer}, {"feed_forward_length", nFF}, {"attention.head_count", nHead}, {"attention.head_count_kv", nHeadKV}} {
		w.AddKV("llama."+kv.k, gguf.Uint32Value(kv.v))
	}
	w.AddKV("llama.attention.layer_norm_rms_epsilon", gguf.Float32Value(1e-5))
	w.AddKV("llama.rope.freq_base", gguf.Float32Value(10000))
	w.AddKV("tokenizer.ggml.model", gguf.StringValue("llama"))
	w.AddKV("tokenizer.ggml.tokens", gguf.StringsValue(tokens))
	w.AddKV("tokenizer.ggml.scores", gguf.Float32sValue(scores))
	w.AddKV("tokenizer.ggml.token_type", gguf.Int32sValue(types))
	w.AddKV("tokenizer.ggml.bos_token_id", gguf.Uint32Value(1))
	w.AddKV("tokenizer.ggml.eos_token_id", gguf.Uint32Value(2))
	w.AddKV("tokenizer.ggml.unknown_token_id", gguf.Uint32Value(0))
	w.AddKV("tokenizer.ggml.add_bos_token", gguf.BoolValue(true))
	if err := addTensors(w, len(tokens)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Token types of llama.cpp's vocabulary.
const (
	typeNormal  = 1
	typeUnknown = 2
	typeControl = 3
	typeByte    = 6
)

// vocab returns an SPM vocabulary: <unk>, <s>, </s>, 256 byte-fallback
// tokens, single characters, then words with all their prefixes. Scores
// favour longer pieces so merges prefer whole words.
func vocab() (tokens []string, scores []float32, types []int32) {
	add := func(s string, score float32, typ int32) {
		tokens, scores, types = append(tokens, s), append(scores, score), append(types, typ)
	}
	add("<unk>", 0, typeUnknown)
	add("<s>", 0, typeControl)
	add("</s>", 0, typeControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0, typeByte)
	}
	seen := map[string]bool{}
	piece := func(s string) {
		if !seen[s] {
			seen[s] = true
			add(s, -float32(len(tokens))/1000, typeNormal)
		}
	}
	piece("▁")
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,!?'" {
		piece(string(r))
	}
	for _, w := range words {
		full := "▁" + w
		for i := len("▁") + 1; i <= len(full); i++ {
			piece(full[:i])
		}
	}
	// Longer pieces first: raise their scores above the characters'.
	for i, t := range tokens {
		if types[i] == typeNormal {
			scores[i] += float32(len(t))
		}
	}
	return tokens, scores, types
}

// addTensors writes F32 weights with llama.cpp's tensor names.
func addTensors(w *gguf.Writer, nVocab int) error {
	r := newRNG(seed)
	headDim := nEmbd / nHead
	kvDim := nHeadKV * headDim
	add := func(name string, data []float32, dims ...int64) error {
		return w.AddTensor(name, gguf.TypeF32, dims, f32Bytes(data))
	}
	if err := add("token_embd.weight", r.normals(nVocab*nEmbd, 4/math.Sqrt(nEmbd)), nEmbd, int64(nVocab)); err != nil {
		return err
	}
	for l := range nLayer {
		p := fmt.Sprintf("blk.%d.", l)
		for _, t := range []struct {
			name       string
			cols, rows int
		}{
			{"attn_q.weight", nEmbd, nEmbd}, {"attn_k.weight", nEmbd, kvDim}, {"attn_v.weight", nEmbd, kvDim},
			{"attn_output.weight", nEmbd, nEmbd}, {"ffn_gate.weight", nEmbd, nFF}, {"ffn_up.weight", nEmbd, nFF},
			{"ffn_down.weight", nFF, nEmbd},
		} {
			if err := add(p+t.name, r.normals(t.cols*t.rows, 1/math.Sqrt(float64(t.cols))), int64(t.cols), int64(t.rows)); err != nil {
				return err
			}
		}
		for _, n := range []string{"attn_norm.weight", "ffn_norm.weight"} {
			if err := add(p+n, r.norms(nEmbd), nEmbd); err != nil {
				return err
			}
		}
	}
	if err := add("output_norm.weight", r.norms(nEmbd), nEmbd); err != nil {
		return err
	}
	return add("output.weight", r.normals(nVocab*nEmbd, 1/math.Sqrt(nEmbd)), nEmbd, int64(nVocab))
}

func f32Bytes(x []float32) []byte {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// rng is PCG-XSH-RR 64/32, fixed here so the demo bytes never change.
type rng struct{ state uint64 }

func newRNG(s uint64) *rng { return &rng{state: s*6364136223846793005 + 1442695040888963407} }

func (r *rng) uint32() uint32 {
	old := r.state
	r.state = old*6364136223846793005 + 1442695040888963407
	x := uint32(((old >> 18) ^ old) >> 27)
	rot := uint32(old >> 59)
	return x>>rot | x<<((-rot)&31)
}

// uniform returns a value in (0, 1).
func (r *rng) uniform() float64 { return (float64(r.uint32()) + 0.5) / (1 << 32) }

// normals returns n samples of N(0, sd²) by Box-Muller.
func (r *rng) normals(n int, sd float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		u, v := r.uniform(), r.uniform()
		out[i] = float32(sd * math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v))
	}
	return out
}

// norms returns norm weights 1 + N(0, 0.1²).
func (r *rng) norms(n int) []float32 {
	out := r.normals(n, 0.1)
	for i := range out {
		out[i]++
	}
	return out
}
