package quantize

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// ModelShape is what the type choice needs to know about a model.
type ModelShape struct {
	Arch    string // general.architecture
	NLayer  int    // <arch>.block_count
	NHead   int
	NHeadKV int
	NExpert int      // <arch>.expert_count, 0 for dense models
	Names   []string // every tensor name of the model
}

// Policy chooses each tensor's type like llama.cpp's llama_tensor_get_type
// (src/llama-quant.cpp) for the non-IQ file types without an importance
// matrix. Like llama.cpp it counts attn_v and ffn_* tensors as it goes, so
// Type must be called once per tensor in SortTensors order. Not ported: the
// LLM_TYPE_70B attn_v bump (it needs the model size class) and the IQ,
// MXFP4 and imatrix-only branches, which no supported file type reaches.
type Policy struct {
	ft     FileType
	pure   bool
	shape  ModelShape
	tied   bool // no output.weight: token_embd doubles as the output
	nAttnV int

	iAttnV, iFFNDown int
}

// NewPolicy prepares the choice for one model. pure is llama-quantize's
// --pure: every quantizable tensor gets the default type.
func NewPolicy(ft FileType, pure bool, shape ModelShape) *Policy {
	p := &Policy{ft: ft, pure: pure, shape: shape, tied: true}
	for _, n := range shape.Names {
		if isAttnV(category(n)) {
			p.nAttnV++
		}
		if n == "output.weight" {
			p.tied = false
		}
	}
	return p
}

type tensorCategory int

const (
	catOther tensorCategory = iota
	catOutput
	catTokenEmbd
	catAttnQKV
	catAttnKVB
	catAttnV
	catAttnK
	catAttnQ
	catAttnOutput
	catFFNUp
	catFFNGate
	catFFNDown
)

// category is tensor_get_category: exact names first, then substrings.
func category(name string) tensorCategory {
	switch name {
	case "output.weight":
		return catOutput
	case "token_embd.weight", "per_layer_token_embd.weight":
		return catTokenEmbd
	}
	for _, c := range []struct {
		sub string
		cat tensorCategory
	}{{"attn_qkv.weight", catAttnQKV}, {"attn_kv_b.weight", catAttnKVB}, {"attn_v.weight", catAttnV},
		{"attn_k.weight", catAttnK}, {"attn_q.weight", catAttnQ}, {"attn_output.weight", catAttnOutput},
		{"ffn_up", catFFNUp}, {"ffn_gate", catFFNGate}, {"ffn_down", catFFNDown}} {
		if strings.Contains(name, c.sub) {
			return c.cat
		}
	}
	return catOther
}

func isAttnV(c tensorCategory) bool { return c == catAttnV || c == catAttnQKV || c == catAttnKVB }

// noQuantize lists the name fragments tensor_allows_quantization excludes.
var noQuantize = []string{"_norm.weight", "ffn_gate_inp.weight", "altup", "laurel", "per_layer_model_proj",
	"ssm_conv1d", "shortconv.conv.weight", "time_mix_", "attn_rel_b.weight", ".position_embd", "sam.pos_embd",
	"sam.neck.", "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger"}

// allowsQuantization is tensor_allows_quantization: 2-D or more, the name
// ends in "weight", and it is none of the small or sensitive tensors.
func allowsQuantization(name string, dims []int64) bool {
	if nDims(dims) < 2 || !strings.HasSuffix(name, "weight") {
		return false
	}
	if name == "position_embd.weight" || name == "token_types.weight" {
		return false
	}
	for _, s := range noQuantize {
		if strings.Contains(name, s) {
			return false
		}
	}
	return true
}

// nDims is ggml_n_dims: trailing dimensions of size 1 do not count.
func nDims(dims []int64) int {
	n := len(dims)
	for n > 1 && dims[n-1] == 1 {
		n--
	}
	return n
}

// Type returns the type to store tensor name (shape dims, now of type cur)
// in, or an error when no type of the mix fits its row length.
func (p *Policy) Type(name string, dims []int64, cur gguf.Type) (gguf.Type, error) {
	if !allowsQuantization(name, dims) {
		return cur, nil
	}
	def := p.ft.DefaultType()
	if p.pure || !def.IsQuantized() {
		return def, nil
	}
	return fallback(name, dims[0], p.mixType(name, dims[0], category(name), def))
}

// useMoreBits is llama.cpp's use_more_bits: the first and last eighth of
// the layers and every third one in between get more bits.
func useMoreBits(i, n int) bool { return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2 }

// mixType is llama_tensor_get_type_impl for the supported file types.
func (p *Policy) mixType(name string, ne0 int64, cat tensorCategory, t gguf.Type) gguf.Type {
	falcon := p.shape.Arch == "falcon"
	switch {
	case cat == catOutput || (p.tied && cat == catTokenEmbd):
		if falcon || ne0%int64(t.BlockSize()) != 0 {
			return gguf.TypeQ8_0
		}
		if t != gguf.TypeQ8_0 {
			return gguf.TypeQ6_K
		}
	case cat == catTokenEmbd:
	case isAttnV(cat):
		t = p.attnVType(t)
		p.iAttnV++
	case cat == catAttnK && p.shape.NExpert == 8:
		t = gguf.TypeQ8_0
	case cat == catFFNDown:
		t = p.ffnDownType(name, t)
		p.iFFNDown++
	case cat == catAttnOutput:
		t = p.attnOutputType(t)
	}
	return t
}

func (p *Policy) attnVType(t gguf.Type) gguf.Type {
	ft, i := p.ft, p.iAttnV
	gqa := 1
	if p.shape.NHeadKV > 0 {
		gqa = p.shape.NHead / p.shape.NHeadKV
	}
	switch {
	case ft == Q2_K && gqa >= 4:
		t = gguf.TypeQ4_K
	case ft == Q2_K:
		t = gguf.TypeQ3_K
	case ft == Q3_K_M && i < 2:
		t = gguf.TypeQ5_K
	case ft == Q3_K_M:
		t = gguf.TypeQ4_K
	case ft == Q3_K_L:
		t = gguf.TypeQ5_K
	case (ft == Q4_K_M || ft == Q5_K_M) && useMoreBits(i, p.nAttnV):
		t = gguf.TypeQ6_K
	case ft == Q4_K_S && i < 4:
		t = gguf.TypeQ5_K
	}
	if p.shape.NExpert == 8 {
		t = gguf.TypeQ8_0
	}
	return t
}

// ffnDownType picks ffn_down's type by layer: the running count for dense
// models, the layer number in the name for MoE models (as llama.cpp does).
func (p *Policy) ffnDownType(name string, t gguf.Type) gguf.Type {
	i, n := p.iFFNDown, p.shape.NLayer
	if p.shape.NExpert > 1 {
		fmt.Sscanf(name, "blk.%d.", &i)
	}
	falcon := p.shape.Arch == "falcon"
	switch p.ft {
	case Q2_K:
		return gguf.TypeQ3_K
	case Q3_K_M:
		switch {
		case i < n/16:
			return gguf.TypeQ5_K
		case !falcon || useMoreBits(i, n):
			return gguf.TypeQ4_K
		}
		return gguf.TypeQ3_K
	case Q3_K_L:
		if falcon {
			return gguf.TypeQ4_K
		}
		return gguf.TypeQ5_K
	case Q4_K_M:
		switch {
		case falcon && i < n/16:
			return gguf.TypeQ6_K
		case falcon && useMoreBits(i, n):
			return gguf.TypeQ5_K
		case !falcon && useMoreBits(i, n):
			return gguf.TypeQ6_K
		}
	case Q5_K_M:
		if useMoreBits(i, n) {
			return gguf.TypeQ6_K
		}
	case Q4_K_S:
		if !falcon && i < n/8 {
			return gguf.TypeQ5_K
		}
	}
	return t
}

func (p *Policy) attnOutputType(t gguf.Type) gguf.Type {
	ft := p.ft
	if p.shape.Arch == "falcon" {
		if ft == Q3_K_L {
			return gguf.TypeQ4_K
		}
		return t
	}
	if p.shape.NExpert == 8 {
		switch ft {
		case Q2_K, Q3_K_S, Q3_K_M, Q4_K_S, Q4_K_M:
			return gguf.TypeQ5_K
		}
		return t
	}
	switch ft {
	case Q2_K:
		return gguf.TypeQ3_K
	case Q3_K_M:
		return gguf.TypeQ4_K
	case Q3_K_L:
		return gguf.TypeQ5_K
	}
	return t
}

// fallback is tensor_type_fallback: a row length that is not a multiple of
// the chosen type's block size falls back to a 32-block type, then to F16.
func fallback(name string, ne0 int64, t gguf.Type) (gguf.Type, error) {
	if ne0%int64(t.BlockSize()) == 0 {
		return t, nil
	}
	var r gguf.Type
	switch t {
	case gguf.TypeQ2_K, gguf.TypeQ3_K:
		r = gguf.TypeQ4_0
	case gguf.TypeQ4_K:
		r = gguf.TypeQ5_0
	case gguf.TypeQ5_K:
		r = gguf.TypeQ5_1
	case gguf.TypeQ6_K:
		r = gguf.TypeQ8_0
	default:
		return t, fmt.Errorf("tensor %s: row length %d is not a multiple of %v's block size %d", name, ne0, t, t.BlockSize())
	}
	if ne0%int64(r.BlockSize()) != 0 {
		r = gguf.TypeF16
	}
	return r, nil
}

// SortTensors orders tensor names like llama.cpp's model loader
// (weight_name_comparer): tensors outside blocks first, then by block
// number, then by name. llama-quantize writes tensors, and counts layers
// for the mix, in this order.
func SortTensors(names []string) {
	layer := func(s string) int {
		i := -1
		if strings.HasPrefix(s, "blk.") {
			fmt.Sscanf(s, "blk.%d.", &i)
		}
		return i
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if c := cmp.Compare(layer(a), layer(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}
