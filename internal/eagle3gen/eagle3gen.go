// Package eagle3gen writes eagle3 drafter GGUF files (mainline llama.cpp's
// layout) with random weights for any target, so that tests can run EAGLE-3
// drafting on every target fixture and benchmarks can price a drafter of a
// real target's shape: speculative exactness does not depend on the
// drafter's weights, only on the engine. The tokenizer metadata is copied
// from the target, as mainline's converter does.
package eagle3gen

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// Options shape a drafter. Zero fields take the defaults noted; the
// attention and feed-forward shapes default to the target's, as the
// published drafters have them.
type Options struct {
	// Layers are the target layers whose inputs are fused (default: the
	// converter's [2, N/2, N-3], clamped to [0, N]).
	Layers []int
	// NHead, NHeadKV, HeadDim, NFF: the target's.
	NHead, NHeadKV, HeadDim, NFF int
	// DraftVocab > 0 gives the drafter its own head over the first
	// DraftVocab target ids, mapped by d2t; 0 borrows the target's head.
	DraftVocab int
	// DraftIDs, when set, are the target ids of the drafter's own head
	// instead (a drafter over one id always drafts it: tests that want
	// accepted drafts on a random target give it the target's favourite
	// token).
	DraftIDs []int32
	// Type is the matrices' type: F32 (default), F16, Q8_0 or Q4_0.
	Type gguf.Type
	Seed uint64 // 1
}

// Build returns a drafter for target (its width, layer count, heads and
// vocabulary are read from its metadata). The drafter borrows the target's
// token embeddings.
func Build(target *gguf.File, o Options) ([]byte, error) {
	arch := target.Architecture()
	get := func(k string, def int) int {
		if v, ok := target.Uint(arch + "." + k); ok {
			return int(v)
		}
		return def
	}
	d, nLayer := get("embedding_length", 0), get("block_count", 0)
	toks, _ := target.Strings("tokenizer.ggml.tokens")
	if d == 0 || nLayer == 0 || len(toks) == 0 {
		return nil, fmt.Errorf("eagle3gen: the target has no width, layers or vocabulary")
	}
	def := func(v *int, x int) {
		if *v == 0 {
			*v = x
		}
	}
	def(&o.NHead, get("attention.head_count", 4))
	def(&o.NHeadKV, get("attention.head_count_kv", o.NHead))
	def(&o.HeadDim, get("attention.key_length", d/o.NHead))
	def(&o.NFF, get("feed_forward_length", 2*d))
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Layers == nil {
		for _, l := range []int{2, nLayer / 2, nLayer - 3} {
			o.Layers = append(o.Layers, min(max(l, 0), nLayer))
		}
	}
	if o.DraftIDs != nil {
		o.DraftVocab = len(o.DraftIDs)
	} else {
		for i := range o.DraftVocab {
			o.DraftIDs = append(o.DraftIDs, int32(i))
		}
	}
	if len(o.Layers) != 3 || o.DraftVocab > len(toks) {
		return nil, fmt.Errorf("eagle3gen: %d layers (want 3), draft vocabulary %d of %d", len(o.Layers), o.DraftVocab, len(toks))
	}
	w := gguf.NewWriter(32)
	writeMeta(w, target, o, d, len(toks))
	g := &gen{w: w, rng: rand.New(rand.NewPCG(o.Seed, 0xea613)), typ: o.Type}
	if err := g.tensors(o, d); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeMeta writes mainline's eagle3 keys and the target's tokenizer.
func writeMeta(w *gguf.Writer, target *gguf.File, o Options, d, nVocab int) {
	const a = "eagle3."
	w.AddKV("general.architecture", gguf.StringValue("eagle3"))
	w.AddKV("general.name", gguf.StringValue("eagle3gen random drafter"))
	for _, kv := range []struct {
		k string
		v int
	}{{"context_length", 4096}, {"embedding_length", d}, {"block_count", 1}, {"feed_forward_length", o.NFF},
		{"attention.head_count", o.NHead}, {"attention.head_count_kv", o.NHeadKV}, {"attention.key_length", o.HeadDim},
		{"attention.value_length", o.HeadDim}, {"rope.dimension_count", o.HeadDim}, {"vocab_size", nVocab}, {"target_hidden_size", d}} {
		w.AddKV(a+kv.k, gguf.Uint32Value(uint32(kv.v)))
	}
	w.AddKV(a+"attention.layer_norm_rms_epsilon", gguf.Float32Value(1e-5))
	w.AddKV(a+"rope.freq_base", gguf.Float32Value(10000))
	ids := make([]int32, 3)
	for i, l := range o.Layers {
		ids[i] = int32(l)
	}
	w.AddKV(a+"target_layers", gguf.Int32sValue(ids))
	w.AddKV(a+"norm_before_residual", gguf.BoolValue(false))
	w.AddKV(a+"norm_before_fc", gguf.BoolValue(false))
	for _, kv := range target.KVs {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			w.AddKV(kv.Key, kv.Value)
		}
	}
}

// gen writes random tensors.
type gen struct {
	w   *gguf.Writer
	rng *rand.Rand
	typ gguf.Type
	err error
}

func (g *gen) tensors(o Options, d int) error {
	qd, kvd := o.NHead*o.HeadDim, o.NHeadKV*o.HeadDim
	g.matrix("fc.weight", 3*d, d)
	g.norm("blk.0.attn_norm.weight", d)
	g.norm("blk.0.attn_norm_2.weight", d)
	g.matrix("blk.0.attn_q.weight", 2*d, qd)
	g.matrix("blk.0.attn_k.weight", 2*d, kvd)
	g.matrix("blk.0.attn_v.weight", 2*d, kvd)
	g.matrix("blk.0.attn_output.weight", qd, d)
	g.norm("blk.0.ffn_norm.weight", d)
	g.matrix("blk.0.ffn_gate.weight", d, o.NFF)
	g.matrix("blk.0.ffn_up.weight", d, o.NFF)
	g.matrix("blk.0.ffn_down.weight", o.NFF, d)
	g.norm("output_norm.weight", d)
	if o.DraftVocab > 0 {
		g.matrix("output.weight", d, o.DraftVocab)
		ids := make([]byte, 8*o.DraftVocab)
		for i, id := range o.DraftIDs {
			putU64(ids[8*i:], uint64(id))
		}
		g.add("d2t", gguf.TypeI64, []int64{int64(o.DraftVocab)}, ids)
	}
	return g.err
}

func (g *gen) add(name string, typ gguf.Type, dims []int64, data []byte) {
	if g.err == nil {
		g.err = g.w.AddTensor(name, typ, dims, data)
	}
}

// matrix writes a {cols, rows} matrix of uniform values of variance
// 1/cols in the chosen type.
func (g *gen) matrix(name string, cols, rows int) {
	t := kernels.F32
	switch g.typ {
	case gguf.TypeF16:
		t = kernels.F16
	case gguf.TypeQ8_0:
		t = kernels.Q8_0
	case gguf.TypeQ4_0:
		t = kernels.Q4_0
	}
	if cols%t.BlockSize() != 0 {
		t = kernels.F16
	}
	a := math.Sqrt(3 / float64(cols))
	src := make([]float32, cols)
	rb := t.RowBytes(cols)
	data := make([]byte, rows*rb)
	for r := range rows {
		for i := range src {
			src[i] = float32((g.rng.Float64()*2 - 1) * a)
		}
		kernels.QuantizeRow(t, data[r*rb:(r+1)*rb], src)
	}
	g.add(name, gguf.Type(t), []int64{int64(cols), int64(rows)}, data)
}

// norm writes a norm weight near 1.
func (g *gen) norm(name string, n int) {
	data := make([]byte, 4*n)
	for i := range n {
		putU32(data[4*i:], math.Float32bits(float32(1+0.1*(g.rng.Float64()-0.5))))
	}
	g.add(name, gguf.TypeF32, []int64{int64(n)}, data)
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func putU64(b []byte, v uint64) {
	putU32(b, uint32(v))
	putU32(b[4:], uint32(v>>32))
}
