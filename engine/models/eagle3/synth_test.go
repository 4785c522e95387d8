package eagle3_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
)

// spec describes a synthetic EAGLE-3 drafter for the target
// synth-llama-tiny-f32 (D 256, 4 layers, vocabulary 512): every layout
// variant of docs/reference/eagle3.md §1 can be written, and the float64
// reference below runs the same weights.
type spec struct {
	d, nFF, nHead, nHeadKV, headDim, draftVocab int
	layers                                      []int32
	normBeforeResidual, normBeforeFC            bool
	fcNorm, normOutput                          bool
	ownEmbd, ownOutput, d2t                     bool
	ropeFreqs                                   bool
	targetD, targetVocab                        int // target hidden size and vocabulary (0: tD, tVocab)
	// Storage variants and hostile edits.
	d2tI32, d2tWeightName, doublePrefix bool
	edit                                func(kvs []gguf.KV, tensors map[string]*tensor) []gguf.KV
}

// tensor is one synthetic tensor: ggml dims and float32 values (or raw
// bytes for d2t).
type tensor struct {
	dims []int64
	f32  []float32
	raw  []byte
	typ  gguf.Type
}

const (
	tD      = 256 // target hidden size
	tVocab  = 512
	tLayers = 4
)

// D is the target hidden size the drafter is written for.
func (s spec) D() int {
	if s.targetD > 0 {
		return s.targetD
	}
	return tD
}

// V is the target vocabulary the drafter is written for.
func (s spec) V() int {
	if s.targetVocab > 0 {
		return s.targetVocab
	}
	return tVocab
}

func baseSpec() spec {
	return spec{d: 256, nFF: 192, nHead: 4, nHeadKV: 2, headDim: 64, draftVocab: 96, layers: []int32{1, 2, 4}, ownOutput: true, d2t: true}
}

// synth holds a written drafter and its weights.
type synth struct {
	spec
	data    []byte
	tensors map[string]*tensor
	d2tIDs  []int32
}

// build writes the drafter of s with the target's tokenizer.
func build(t testing.TB, s spec, tokenizer []gguf.KV) *synth {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(s.d)))
	ts := map[string]*tensor{}
	mat := func(name string, cols, rows int, scale float64) {
		v := make([]float32, cols*rows)
		a := scale * math.Sqrt(3/float64(cols))
		for i := range v {
			v[i] = float32((rng.Float64()*2 - 1) * a)
		}
		ts[name] = &tensor{dims: []int64{int64(cols), int64(rows)}, f32: v}
	}
	vec := func(name string, n int) {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(1 + 0.2*(rng.Float64()-0.5))
		}
		ts[name] = &tensor{dims: []int64{int64(n)}, f32: v}
	}
	d, qd, kvd := s.d, s.nHead*s.headDim, s.nHeadKV*s.headDim
	mat("fc.weight", 3*s.D(), d, 1)
	if s.normBeforeFC {
		vec("enc.output_norm.weight", 3*s.D())
	}
	if s.fcNorm {
		for k := range 3 {
			vec(fmt.Sprintf("fc_norm.%d.weight", k), s.D())
		}
	}
	vec("blk.0.attn_norm.weight", d)
	vec("blk.0.attn_norm_2.weight", d)
	mat("blk.0.attn_q.weight", 2*d, qd, 1)
	mat("blk.0.attn_k.weight", 2*d, kvd, 1)
	mat("blk.0.attn_v.weight", 2*d, kvd, 1)
	mat("blk.0.attn_output.weight", qd, d, 1)
	vec("blk.0.ffn_norm.weight", d)
	mat("blk.0.ffn_gate.weight", d, s.nFF, 1)
	mat("blk.0.ffn_up.weight", d, s.nFF, 1)
	mat("blk.0.ffn_down.weight", s.nFF, d, 1)
	vec("output_norm.weight", d)
	if s.ownEmbd {
		mat("token_embd.weight", d, s.V(), 3)
	}
	if s.ropeFreqs {
		vec("rope_freqs.weight", s.headDim/2)
	}
	out := &synth{spec: s, tensors: ts}
	if s.ownOutput {
		rows := s.V()
		if s.d2t {
			rows = s.draftVocab
			ids := rng.Perm(s.V())[:rows]
			ts[s.d2tName()] = s.d2tTensor(ids)
			for _, id := range ids {
				out.d2tIDs = append(out.d2tIDs, int32(id))
			}
		}
		mat("output.weight", d, rows, 4)
	}
	out.data = s.write(t, ts, tokenizer)
	return out
}

func (s spec) d2tName() string {
	if s.d2tWeightName {
		return "d2t.weight"
	}
	return "d2t"
}

func (s spec) d2tTensor(ids []int) *tensor {
	if s.d2tI32 {
		b := make([]byte, 4*len(ids))
		for i, id := range ids {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
		}
		return &tensor{dims: []int64{int64(len(ids))}, raw: b, typ: gguf.TypeI32}
	}
	b := make([]byte, 8*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(id))
	}
	return &tensor{dims: []int64{int64(len(ids))}, raw: b, typ: gguf.TypeI64}
}

// write serialises the file: mainline's keys (or doubled prefixes), the
// tensors in name order, then the caller's edit.
func (s spec) write(t testing.TB, ts map[string]*tensor, tokenizer []gguf.KV) []byte {
	t.Helper()
	p := "eagle3."
	if s.doublePrefix {
		p = "eagle3.eagle3."
	}
	u := func(x int) gguf.Value { return gguf.Uint32Value(uint32(x)) }
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: gguf.StringValue("eagle3")},
		{Key: p + "context_length", Value: u(2048)},
		{Key: p + "embedding_length", Value: u(s.d)},
		{Key: p + "block_count", Value: u(1)},
		{Key: p + "feed_forward_length", Value: u(s.nFF)},
		{Key: p + "attention.head_count", Value: u(s.nHead)},
		{Key: p + "attention.head_count_kv", Value: u(s.nHeadKV)},
		{Key: p + "attention.key_length", Value: u(s.headDim)},
		{Key: p + "attention.value_length", Value: u(s.headDim)},
		{Key: p + "attention.layer_norm_rms_epsilon", Value: gguf.Float32Value(1e-5)},
		{Key: p + "rope.freq_base", Value: gguf.Float32Value(10000)},
		{Key: p + "vocab_size", Value: u(s.V())},
		{Key: p + "target_layers", Value: gguf.Int32sValue(s.layers)},
		{Key: p + "target_hidden_size", Value: u(s.D())},
		{Key: p + "norm_before_residual", Value: gguf.BoolValue(s.normBeforeResidual)},
		{Key: p + "norm_before_fc", Value: gguf.BoolValue(s.normBeforeFC)},
	}
	if s.fcNorm {
		kvs = append(kvs, gguf.KV{Key: p + "fc_norm", Value: gguf.BoolValue(true)})
	}
	if s.normOutput {
		kvs = append(kvs, gguf.KV{Key: p + "norm_output", Value: gguf.BoolValue(true)})
	}
	kvs = append(kvs, tokenizer...)
	if s.edit != nil {
		kvs = s.edit(kvs, ts)
	}
	return s.writeTensors(t, kvs, ts)
}

// writeTensors writes kvs and the tensors in name order.
func (s spec) writeTensors(t testing.TB, kvs []gguf.KV, ts map[string]*tensor) []byte {
	t.Helper()
	w := gguf.NewWriter(0)
	for _, kv := range kvs {
		w.AddKV(kv.Key, kv.Value)
	}
	for _, name := range sortedKeys(ts) {
		x := ts[name]
		data, typ := x.raw, x.typ
		if x.f32 != nil {
			data, typ = f32Bytes(x.f32), gguf.TypeF32
		}
		if err := w.AddTensor(name, typ, x.dims, data); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]*tensor) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks { // insertion sort: a handful of names
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// tokenizerKVs returns the target's tokenizer metadata (what the
// converter copies into a drafter).
func tokenizerKVs(l *engine.Loaded) []gguf.KV {
	var out []gguf.KV
	for _, kv := range l.File.KVs {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			out = append(out, kv)
		}
	}
	return out
}
