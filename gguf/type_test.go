package gguf

import (
	"strings"
	"testing"
)

// ggmlTraits is ggml.c's type_traits table (blck_size, sizeof(block_*)) as
// plain numbers, taken from BeeLlama's ggml.c / ggml-common.h. gguf-py's
// GGML_QUANT_SIZES agrees except for Q8_1, where it says 40 bytes; ggml's
// struct is 36 (two halves + 32 quants), and ggml is the oracle.
var ggmlTraits = []struct {
	id          uint32
	name        string
	block, size int
}{
	{0, "F32", 1, 4}, {1, "F16", 1, 2}, {2, "Q4_0", 32, 18}, {3, "Q4_1", 32, 20},
	{6, "Q5_0", 32, 22}, {7, "Q5_1", 32, 24}, {8, "Q8_0", 32, 34}, {9, "Q8_1", 32, 36},
	{10, "Q2_K", 256, 84}, {11, "Q3_K", 256, 110}, {12, "Q4_K", 256, 144}, {13, "Q5_K", 256, 176},
	{14, "Q6_K", 256, 210}, {15, "Q8_K", 256, 292}, {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
	{18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50}, {20, "IQ4_NL", 32, 18}, {21, "IQ3_S", 256, 110},
	{22, "IQ2_S", 256, 82}, {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1}, {25, "I16", 1, 2},
	{26, "I32", 1, 4}, {27, "I64", 1, 8}, {28, "F64", 1, 8}, {29, "IQ1_M", 256, 56},
	{30, "BF16", 1, 2}, {34, "TQ1_0", 256, 54}, {35, "TQ2_0", 256, 66}, {39, "MXFP4", 32, 17},
	{40, "NVFP4", 64, 36}, {41, "Q1_0", 128, 18}, {42, "TURBO3_0", 128, 50}, {43, "TURBO4_0", 128, 66},
	{44, "TURBO2_0", 128, 34}, {45, "TURBO3_TCQ", 128, 52}, {46, "TURBO2_TCQ", 128, 36},
}

func TestTypeTable(t *testing.T) {
	known := map[uint32]bool{}
	for _, want := range ggmlTraits {
		typ := Type(want.id)
		known[want.id] = true
		if !typ.Known() || typ.String() != want.name || typ.BlockSize() != want.block || typ.BlockBytes() != want.size {
			t.Errorf("type %d: %v %q block %d bytes %d, want %q %d %d", want.id, typ.Known(), typ, typ.BlockSize(), typ.BlockBytes(), want.name, want.block, want.size)
		}
		for _, name := range []string{want.name, strings.ToLower(want.name)} {
			if got, err := ParseType(name); err != nil || got != typ {
				t.Errorf("ParseType(%q) = %v, %v", name, got, err)
			}
		}
		if got := typ.IsQuantized(); got != (want.block > 1) {
			t.Errorf("%s: IsQuantized %v", typ, got)
		}
	}
	for id := uint32(0); id < 64; id++ {
		if !known[id] && (Type(id).Known() || Type(id).BlockSize() != 0) {
			t.Errorf("type %d should be unknown", id)
		}
	}
	if s := Type(4).String(); s != "type(4)" {
		t.Errorf("Type(4).String() = %q", s)
	}
	if s := Type(1 << 31).String(); s != "type(2147483648)" {
		t.Errorf("String of a huge id = %q", s)
	}
	if got, err := ParseType("turbo3"); err != nil || got != TypeTurbo3_0 {
		t.Errorf("ParseType(turbo3) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "q4", "Q4_0_4_4", "type(4)"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) succeeded", bad)
		}
	}
}

func TestRowBytes(t *testing.T) {
	cases := []struct {
		t    Type
		n    int64
		want int64
		ok   bool
	}{
		{TypeF32, 64, 256, true},
		{TypeQ4_K, 512, 288, true},
		{TypeQ8_0, 0, 0, true},
		{TypeQ8_0, 33, 0, false},
		{TypeQ4_0, -32, 0, false},
		{Type(4), 32, 0, false},
		{TypeF64, 1 << 61, 0, false}, // 2^64 bytes
		{TypeI8, 1 << 62, 1 << 62, true},
	}
	for _, c := range cases {
		got, err := c.t.RowBytes(c.n)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s.RowBytes(%d) = %d, %v; want %d, ok=%v", c.t, c.n, got, err, c.want, c.ok)
		}
	}
}

func TestValueTypeString(t *testing.T) {
	if ValueArray.String() != "array" || ValueFloat64.String() != "float64" || ValueType(13).String() != "valuetype(13)" {
		t.Error("ValueType names")
	}
}
