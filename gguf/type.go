package gguf

import (
	"fmt"
	"strings"
)

// Type is a tensor element type, ggml_type in ggml.h; the numbers are the ones
// stored in GGUF tensor descriptors. Ids 4, 5, 31-33 and 36-38 were removed
// from ggml and are not Known.
type Type uint32

// Tensor types, numbered as in ggml.h.
const (
	TypeF32       Type = 0
	TypeF16       Type = 1
	TypeQ4_0      Type = 2
	TypeQ4_1      Type = 3
	TypeQ5_0      Type = 6
	TypeQ5_1      Type = 7
	TypeQ8_0      Type = 8
	TypeQ8_1      Type = 9
	TypeQ2_K      Type = 10
	TypeQ3_K      Type = 11
	TypeQ4_K      Type = 12
	TypeQ5_K      Type = 13
	TypeQ6_K      Type = 14
	TypeQ8_K      Type = 15
	TypeIQ2_XXS   Type = 16
	TypeIQ2_XS    Type = 17
	TypeIQ3_XXS   Type = 18
	TypeIQ1_S     Type = 19
	TypeIQ4_NL    Type = 20
	TypeIQ3_S     Type = 21
	TypeIQ2_S     Type = 22
	TypeIQ4_XS    Type = 23
	TypeI8        Type = 24
	TypeI16       Type = 25
	TypeI32       Type = 26
	TypeI64       Type = 27
	TypeF64       Type = 28
	TypeIQ1_M     Type = 29
	TypeBF16      Type = 30
	TypeTQ1_0     Type = 34
	TypeTQ2_0     Type = 35
	TypeMXFP4     Type = 39
	TypeNVFP4     Type = 40
	TypeQ1_0      Type = 41
	TypeTurbo3_0  Type = 42 // BeeLlama KV-cache type, not in upstream ggml
	TypeTurbo4_0  Type = 43 // BeeLlama KV-cache type, not in upstream ggml
	TypeTurbo2_0  Type = 44 // BeeLlama KV-cache type, not in upstream ggml
	TypeTurbo3TCQ Type = 45 // BeeLlama KV-cache type, not in upstream ggml
	TypeTurbo2TCQ Type = 46 // BeeLlama KV-cache type, not in upstream ggml
)

// typeInfo is one row of ggml's type_traits: how many values a block holds
// and how many bytes it takes.
type typeInfo struct {
	name  string // upper-case enum name, as gguf-py and llama.cpp's logs print it
	alias string // ggml's type_name where it differs from the lower-cased name
	block int
	bytes int
	quant bool
}

// qk is QK_K, the super-block size of the K-quants and i-quants.
const qk = 256

// typeTable is indexed by Type. Byte counts are the sizes of ggml's block_*
// structs (ggml-common.h); a zero block marks an id that is not a type.
var typeTable = [...]typeInfo{
	TypeF32:       {name: "F32", block: 1, bytes: 4},
	TypeF16:       {name: "F16", block: 1, bytes: 2},
	TypeQ4_0:      {name: "Q4_0", block: 32, bytes: 2 + 16, quant: true},
	TypeQ4_1:      {name: "Q4_1", block: 32, bytes: 2 + 2 + 16, quant: true},
	TypeQ5_0:      {name: "Q5_0", block: 32, bytes: 2 + 4 + 16, quant: true},
	TypeQ5_1:      {name: "Q5_1", block: 32, bytes: 2 + 2 + 4 + 16, quant: true},
	TypeQ8_0:      {name: "Q8_0", block: 32, bytes: 2 + 32, quant: true},
	TypeQ8_1:      {name: "Q8_1", block: 32, bytes: 2 + 2 + 32, quant: true},
	TypeQ2_K:      {name: "Q2_K", block: qk, bytes: 2 + 2 + qk/16 + qk/4, quant: true},
	TypeQ3_K:      {name: "Q3_K", block: qk, bytes: 2 + qk/4 + qk/8 + 12, quant: true},
	TypeQ4_K:      {name: "Q4_K", block: qk, bytes: 2 + 2 + 12 + qk/2, quant: true},
	TypeQ5_K:      {name: "Q5_K", block: qk, bytes: 2 + 2 + 12 + qk/2 + qk/8, quant: true},
	TypeQ6_K:      {name: "Q6_K", block: qk, bytes: 2 + qk/16 + 3*qk/4, quant: true},
	TypeQ8_K:      {name: "Q8_K", block: qk, bytes: 4 + qk + qk/16*2, quant: true},
	TypeIQ2_XXS:   {name: "IQ2_XXS", block: qk, bytes: 2 + qk/8*2, quant: true},
	TypeIQ2_XS:    {name: "IQ2_XS", block: qk, bytes: 2 + qk/8*2 + qk/32, quant: true},
	TypeIQ3_XXS:   {name: "IQ3_XXS", block: qk, bytes: 2 + 3*qk/8, quant: true},
	TypeIQ1_S:     {name: "IQ1_S", block: qk, bytes: 2 + qk/8 + qk/16, quant: true},
	TypeIQ4_NL:    {name: "IQ4_NL", block: 32, bytes: 2 + 16, quant: true},
	TypeIQ3_S:     {name: "IQ3_S", block: qk, bytes: 2 + 13*qk/32 + qk/64, quant: true},
	TypeIQ2_S:     {name: "IQ2_S", block: qk, bytes: 2 + qk/4 + qk/16, quant: true},
	TypeIQ4_XS:    {name: "IQ4_XS", block: qk, bytes: 2 + 2 + qk/64 + qk/2, quant: true},
	TypeI8:        {name: "I8", block: 1, bytes: 1},
	TypeI16:       {name: "I16", block: 1, bytes: 2},
	TypeI32:       {name: "I32", block: 1, bytes: 4},
	TypeI64:       {name: "I64", block: 1, bytes: 8},
	TypeF64:       {name: "F64", block: 1, bytes: 8},
	TypeIQ1_M:     {name: "IQ1_M", block: qk, bytes: qk/8 + qk/16 + qk/32, quant: true},
	TypeBF16:      {name: "BF16", block: 1, bytes: 2},
	TypeTQ1_0:     {name: "TQ1_0", block: qk, bytes: 2 + qk/64 + (qk-4*qk/64)/5, quant: true},
	TypeTQ2_0:     {name: "TQ2_0", block: qk, bytes: 2 + qk/4, quant: true},
	TypeMXFP4:     {name: "MXFP4", block: 32, bytes: 1 + 16, quant: true},
	TypeNVFP4:     {name: "NVFP4", block: 64, bytes: 4 + 32, quant: true},
	TypeQ1_0:      {name: "Q1_0", block: 128, bytes: 2 + 16, quant: true},
	TypeTurbo3_0:  {name: "TURBO3_0", alias: "turbo3", block: 128, bytes: 2 + 32 + 16, quant: true},
	TypeTurbo4_0:  {name: "TURBO4_0", alias: "turbo4", block: 128, bytes: 2 + 64, quant: true},
	TypeTurbo2_0:  {name: "TURBO2_0", alias: "turbo2", block: 128, bytes: 2 + 32, quant: true},
	TypeTurbo3TCQ: {name: "TURBO3_TCQ", block: 128, bytes: 2 + 50, quant: true},
	TypeTurbo2TCQ: {name: "TURBO2_TCQ", block: 128, bytes: 2 + 34, quant: true},
}

func (t Type) info() (typeInfo, bool) {
	if int64(t) >= int64(len(typeTable)) || typeTable[t].block == 0 {
		return typeInfo{}, false
	}
	return typeTable[t], true
}

// Known reports whether t is a type this package can size.
func (t Type) Known() bool { _, ok := t.info(); return ok }

// String returns ggml's name in upper case ("Q4_K", "IQ2_XXS"), or "type(N)"
// for an unknown id.
func (t Type) String() string {
	if in, ok := t.info(); ok {
		return in.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockSize returns the number of values in one block: 1 for plain types
// (F32, F16, BF16, I8..I64, F64), 32 for Q4_0 and friends, 256 for K-quants.
// It returns 0 for an unknown type.
func (t Type) BlockSize() int { in, _ := t.info(); return in.block }

// BlockBytes returns the bytes of one block, 0 for an unknown type.
func (t Type) BlockBytes() int { in, _ := t.info(); return in.bytes }

// IsQuantized reports whether t packs values in blocks with shared scales.
func (t Type) IsQuantized() bool { in, _ := t.info(); return in.quant }

// RowBytes returns the bytes taken by n consecutive values of type t. n must
// be a non-negative multiple of the block size; the result must fit in int64.
func (t Type) RowBytes(n int64) (int64, error) {
	in, ok := t.info()
	if !ok {
		return 0, fmt.Errorf("gguf: unknown tensor type %d", uint32(t))
	}
	if n < 0 || n%int64(in.block) != 0 {
		return 0, fmt.Errorf("gguf: %d values of type %s: not a non-negative multiple of the block size %d", n, in.name, in.block)
	}
	blocks := n / int64(in.block)
	if blocks > maxInt64/int64(in.bytes) {
		return 0, fmt.Errorf("gguf: %d values of type %s: byte size overflows int64", n, in.name)
	}
	return blocks * int64(in.bytes), nil
}

// ParseType maps a type name to its Type, ignoring case: "q4_k", "Q4_K",
// "bf16"; ggml's short names of the TurboQuant types ("turbo3") are accepted
// too.
func ParseType(name string) (Type, error) {
	for i, in := range typeTable {
		if in.block == 0 {
			continue
		}
		if strings.EqualFold(name, in.name) || (in.alias != "" && strings.EqualFold(name, in.alias)) {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("gguf: unknown tensor type name %q", name)
}

const maxInt64 = 1<<63 - 1
