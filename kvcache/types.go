package kvcache

import (
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache/turbo"
)

// Type is the element type of cached keys or values, named as llama.cpp's
// --cache-type-k/-v values. A row of the cache holds one position's vectors
// of every KV head, head after head; each head is encoded on its own (so
// attention can address head g of a row), which is why a type needs the
// head size:
//
//   - f32, f16, bf16 and the ggml block types q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl
//     encode a head with the kernels package's quantizer (the head size
//     must be a multiple of the 32-value block); keys are scored with the
//     type's integer vec-dot against the query in its vec-dot format, as
//     ggml does.
//   - turbo2/3/4 and turbo2_tcq/turbo3_tcq (BeeLlama's types, package
//     turbo) encode a head zero-padded to whole 128-value groups, rotated;
//     attention rotates the query instead and un-rotates the output once.
type Type int

// The supported types. The order is internal; GGMLType gives the stable
// ggml enum value (used in state files).
const (
	F32 Type = iota
	F16
	BF16
	Q8_0
	Q4_0
	Q4_1
	Q5_0
	Q5_1
	IQ4NL
	Turbo2
	Turbo3
	Turbo4
	Turbo2TCQ
	Turbo3TCQ
	numTypes
)

// typeInfo describes one Type: its llama.cpp name and either its kernels
// block type or its turbo type.
type typeInfo struct {
	name  string
	dtype kernels.DType
	turbo turbo.Type // valid for the turbo types only
}

var types = [numTypes]typeInfo{
	F32:       {"f32", kernels.F32, 0},
	F16:       {"f16", kernels.F16, 0},
	BF16:      {"bf16", kernels.BF16, 0},
	Q8_0:      {"q8_0", kernels.Q8_0, 0},
	Q4_0:      {"q4_0", kernels.Q4_0, 0},
	Q4_1:      {"q4_1", kernels.Q4_1, 0},
	Q5_0:      {"q5_0", kernels.Q5_0, 0},
	Q5_1:      {"q5_1", kernels.Q5_1, 0},
	IQ4NL:     {"iq4_nl", kernels.IQ4_NL, 0},
	Turbo2:    {"turbo2", 0, turbo.Turbo2},
	Turbo3:    {"turbo3", 0, turbo.Turbo3},
	Turbo4:    {"turbo4", 0, turbo.Turbo4},
	Turbo2TCQ: {"turbo2_tcq", 0, turbo.Turbo2TCQ},
	Turbo3TCQ: {"turbo3_tcq", 0, turbo.Turbo3TCQ},
}

func (t Type) valid() bool { return t >= 0 && t < numTypes }

// String returns the llama.cpp spelling of the type.
func (t Type) String() string {
	if t.valid() {
		return types[t].name
	}
	return fmt.Sprintf("kvtype(%d)", int(t))
}

// IsTurbo reports whether t is one of the rotated turbo types.
func (t Type) IsTurbo() bool { return t.valid() && types[t].turbo.Valid() }

// Turbo returns the turbo codec of a turbo type.
func (t Type) Turbo() turbo.Type { return types[t].turbo }

// DType returns the kernels type that encodes and dots rows of a non-turbo
// type (F32 for the turbo types, which the kernels package does not know).
func (t Type) DType() kernels.DType {
	if !t.valid() || t.IsTurbo() {
		return kernels.F32
	}
	return types[t].dtype
}

// GGMLType returns ggml's enum value of the type (BeeLlama's for turbo:
// turbo3 42, turbo4 43, turbo2 44, turbo3_tcq 45, turbo2_tcq 46).
func (t Type) GGMLType() uint32 {
	if t.IsTurbo() {
		return uint32(types[t].turbo)
	}
	return uint32(types[t].dtype)
}

// TypeFromGGML is the inverse of GGMLType.
func TypeFromGGML(id uint32) (Type, bool) {
	for t := range numTypes {
		if t.GGMLType() == id {
			return t, true
		}
	}
	return 0, false
}

// HeadBytes returns the bytes one head of headDim values takes, or an
// error when the type cannot hold such heads.
func (t Type) HeadBytes(headDim int) (int, error) {
	switch {
	case !t.valid():
		return 0, fmt.Errorf("unknown cache type %d", int(t))
	case headDim <= 0:
		return 0, fmt.Errorf("head size %d", headDim)
	case t.IsTurbo():
		return t.Turbo().RowBytes(headDim), nil
	}
	d := t.DType()
	if headDim%d.BlockSize() != 0 {
		return 0, fmt.Errorf("cache type %s needs a head size that is a multiple of %d, the model's is %d", t, d.BlockSize(), headDim)
	}
	return d.RowBytes(headDim), nil
}

// RowBytes returns the bytes one position's row of nHead heads takes.
func (t Type) RowBytes(nHead, headDim int) (int, error) {
	hb, err := t.HeadBytes(headDim)
	return nHead * hb, err
}

// BitsPerValue returns the stored bits per value of a head of headDim
// values (turbo heads are padded to whole 128-value groups).
func (t Type) BitsPerValue(headDim int) float64 {
	hb, err := t.HeadBytes(headDim)
	if err != nil {
		return 0
	}
	return float64(8*hb) / float64(headDim)
}

// EncodeRow encodes the nHead heads of src (nHead·headDim values) into dst
// (RowBytes(nHead, headDim) bytes). The head size must have passed
// HeadBytes.
func (t Type) EncodeRow(dst []byte, src []float32, nHead, headDim int) {
	if !t.IsTurbo() {
		kernels.QuantizeRow(t.DType(), dst, src[:nHead*headDim])
		return
	}
	hb := t.Turbo().RowBytes(headDim)
	for h := range nHead {
		if err := t.Turbo().Encode(dst[h*hb:(h+1)*hb], src[h*headDim:(h+1)*headDim]); err != nil {
			panic(err) // sizes are fixed by the cache's shape
		}
	}
}

// DecodeRow is the inverse of EncodeRow (up to the type's precision).
func (t Type) DecodeRow(dst []float32, src []byte, nHead, headDim int) {
	if !t.IsTurbo() {
		kernels.DequantizeRow(t.DType(), dst[:nHead*headDim], src)
		return
	}
	hb := t.Turbo().RowBytes(headDim)
	for h := range nHead {
		if err := t.Turbo().Decode(dst[h*headDim:(h+1)*headDim], src[h*hb:(h+1)*hb]); err != nil {
			panic(err)
		}
	}
}

// ParseType reads a --cache-type-k/-v value.
func ParseType(s string) (Type, error) {
	for t := range numTypes {
		if strings.EqualFold(strings.TrimSpace(s), types[t].name) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown KV cache type %q (supported: %s)", s, strings.Join(TypeNames(), ", "))
}

// TypeNames lists the supported types' names.
func TypeNames() []string {
	names := make([]string, numTypes)
	for t := range numTypes {
		names[t] = types[t].name
	}
	return names
}
