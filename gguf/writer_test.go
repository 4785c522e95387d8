package gguf

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// allValues has one pair per value type, arrays of each element type, and
// nested arrays with mixed inner types.
func allValues() []KV {
	return []KV{
		{"general.architecture", StringValue("llama")},
		{"u8", Uint8Value(200)}, {"i8", Int8Value(-100)},
		{"u16", Uint16Value(60000)}, {"i16", Int16Value(-30000)},
		{"u32", Uint32Value(4000000000)}, {"i32", Int32Value(-2000000000)},
		{"f32", Float32Value(float32(math.Inf(-1)))}, {"bool", BoolValue(true)},
		{"str", StringValue("héllo\x00world")}, {"u64", Uint64Value(math.MaxUint64)},
		{"i64", Int64Value(math.MinInt64)}, {"f64", Float64Value(math.Pi)},
		{"a.u8", Uint8sValue([]uint8{1, 2, 255})}, {"a.i8", Int8sValue([]int8{-1, 2})},
		{"a.u16", Uint16sValue([]uint16{1, 65535})}, {"a.i16", Int16sValue([]int16{-5})},
		{"a.u32", Uint32sValue([]uint32{7, 8})}, {"a.i32", Int32sValue([]int32{-1, 0, 1})},
		{"a.f32", Float32sValue([]float32{0.5, -2})}, {"a.bool", BoolsValue([]bool{true, false})},
		{"a.str", StringsValue([]string{"a", "", "ccc"})}, {"a.u64", Uint64sValue([]uint64{1 << 63})},
		{"a.i64", Int64sValue([]int64{-3})}, {"a.f64", Float64sValue([]float64{1e300})},
		{"a.empty", StringsValue([]string{})},
		{"a.nested", ArraysValue(Int32sValue([]int32{1}), StringsValue([]string{"x"}), ArraysValue(BoolsValue([]bool{true})))},
	}
}

// buildFile writes a small valid file: all value types and three tensors,
// the last one ending exactly at the end of the file (no trailing padding).
func buildFile(t testing.TB, alignment int64) []byte {
	t.Helper()
	w := NewWriter(alignment)
	for _, kv := range allValues() {
		w.AddKV(kv.Key, kv.Value)
	}
	add := func(name string, typ Type, dims []int64, n int) {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + len(name))
		}
		if err := w.AddTensor(name, typ, dims, data); err != nil {
			t.Fatal(err)
		}
	}
	add("tok.weight", TypeF32, []int64{3, 2}, 24)
	add("blk.0.q", TypeQ8_0, []int64{64, 1, 1, 1}, 68)
	add("out.weight", TypeF16, []int64{32, 2}, 128)
	var buf bytes.Buffer
	n, err := w.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func TestWriterRoundTrip(t *testing.T) {
	for _, align := range []int64{32, 64, 1} {
		data := buildFile(t, align)
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("align %d: %v", align, err)
		}
		kvs := f.KVs
		if align != 32 {
			if kvs[0].Key != KeyAlignment || f.Alignment != align {
				t.Fatalf("align %d: first key %q, alignment %d", align, kvs[0].Key, f.Alignment)
			}
			kvs = kvs[1:]
		}
		if !reflect.DeepEqual(kvs, allValues()) {
			t.Errorf("align %d: metadata differs:\n%v\n%v", align, kvs, allValues())
		}
		if len(f.Tensors) != 3 || f.Tensors[1].Name != "blk.0.q" || f.Tensors[1].Size != 68 || f.Tensors[2].Offset%align != 0 {
			t.Errorf("align %d: tensors %+v", align, f.Tensors)
		}
		if got := f.TensorData(&f.Tensors[2]); len(got) != 128 || got[1] != byte(7+len("out.weight")) {
			t.Errorf("align %d: tensor data %v", align, got[:2])
		}
		var out bytes.Buffer
		if err := WriteFile(&out, f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("align %d: WriteFile(Parse(x)) != x", align)
		}
	}
}

func TestAccessors(t *testing.T) {
	f, err := Parse(buildFile(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Uint("u64"); !ok || v != math.MaxUint64 {
		t.Errorf("Uint(u64) = %d, %v", v, ok)
	}
	if _, ok := f.Int("u64"); ok {
		t.Error("Int(u64 max) should not fit")
	}
	if _, ok := f.Uint("i8"); ok {
		t.Error("Uint of a negative value should fail")
	}
	if v, ok := f.Int("i8"); !ok || v != -100 {
		t.Errorf("Int(i8) = %d, %v", v, ok)
	}
	if v, ok := f.Float("u16"); !ok || v != 60000 {
		t.Errorf("Float(u16) = %v, %v", v, ok)
	}
	if v, ok := f.Float("f32"); !ok || !math.IsInf(v, -1) {
		t.Errorf("Float(f32) = %v, %v", v, ok)
	}
	if v, ok := f.Bool("bool"); !ok || !v {
		t.Errorf("Bool = %v, %v", v, ok)
	}
	if _, ok := f.String("u8"); ok {
		t.Error("String of a uint8 succeeded")
	}
	if v, ok := f.Int32s("a.u16"); !ok || !reflect.DeepEqual(v, []int32{1, 65535}) {
		t.Errorf("Int32s(a.u16) = %v, %v", v, ok)
	}
	if _, ok := f.Int32s("a.u64"); ok {
		t.Error("Int32s of 1<<63 should not fit")
	}
	if v, ok := f.Float32s("a.f64"); !ok || len(v) != 1 || !math.IsInf(float64(v[0]), 1) {
		t.Errorf("Float32s(a.f64) = %v, %v", v, ok)
	}
	a, _ := f.Strings("a.str")
	b, _ := f.Strings("a.str")
	if &a[0] != &b[0] {
		t.Error("Strings copies on every call")
	}
	if f.Architecture() != "llama" || f.ArchKey("block_count") != "llama.block_count" {
		t.Error("Architecture")
	}
	v, _ := f.Get("a.nested")
	if v.Type() != ValueArray || v.ElemType() != ValueArray || v.Len() != 3 {
		t.Errorf("nested: %v %v %d", v.Type(), v.ElemType(), v.Len())
	}
	if s := v.Summary(2); !strings.Contains(s, "[array×3]") {
		t.Errorf("Summary = %q", s)
	}
	// Edits to the exported slices are seen by the lookups.
	f.KVs = f.KVs[1:]
	if _, ok := f.Get("general.architecture"); ok {
		t.Error("Get found a removed key")
	}
}

func TestWriterErrors(t *testing.T) {
	w := NewWriter(32)
	cases := []struct {
		name string
		typ  Type
		dims []int64
		n    int
		want string
	}{
		{"", TypeF32, []int64{1}, 4, "empty"},
		{"x", TypeF32, nil, 0, "dimensions"},
		{"x", TypeF32, []int64{1, 1, 1, 1, 1}, 4, "dimensions"},
		{"x", Type(4), []int64{32}, 18, "unknown tensor type id 4"},
		{"x", TypeQ4_0, []int64{31}, 18, "block size"},
		{"x", TypeF32, []int64{4}, 15, "bytes of data"},
		{"x", TypeF32, []int64{-1}, 0, "negative"},
		{"x", TypeF32, []int64{1 << 40, 1 << 40}, 0, "overflows"},
		{"\xff", TypeF32, []int64{1}, 4, "UTF-8"},
	}
	for _, c := range cases {
		err := w.AddTensor(c.name, c.typ, c.dims, make([]byte, c.n))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddTensor(%q, %v, %v): %v, want %q", c.name, c.typ, c.dims, err, c.want)
		}
	}
	if err := w.AddTensor("x", TypeF32, []int64{1}, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("x", TypeF32, []int64{1}, make([]byte, 4)); err == nil {
		t.Error("duplicate tensor accepted")
	}
	kvCases := []struct {
		kvs  []KV
		want string
	}{
		{[]KV{{"a", Uint8Value(1)}, {"a", Uint8Value(2)}}, "duplicate key"},
		{[]KV{{"", Uint8Value(1)}}, "empty"},
		{[]KV{{"z", Value{}}}, "zero Value"},
		{[]KV{{"n", ArraysValue(Uint8Value(1))}}, "element 0"},
		{[]KV{{KeyAlignment, Uint32Value(64)}}, "disagrees"},
	}
	for _, c := range kvCases {
		w := NewWriter(32)
		for _, kv := range c.kvs {
			w.AddKV(kv.Key, kv.Value)
		}
		if _, err := w.WriteTo(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteTo with %v: %v, want %q", c.kvs, err, c.want)
		}
	}
	if _, err := NewWriter(48).WriteTo(&bytes.Buffer{}); err == nil {
		t.Error("alignment 48 accepted")
	}
	deep := Uint8sValue(nil)
	for i := 0; i < MaxArrayDepth; i++ {
		deep = ArraysValue(deep)
	}
	w = NewWriter(32)
	w.AddKV("deep", deep)
	if _, err := w.WriteTo(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("depth %d accepted: %v", MaxArrayDepth+1, err)
	}
}

// TestWriteFileChecks edits a parsed file into inconsistent states.
func TestWriteFileChecks(t *testing.T) {
	edits := map[string]func(f *File){
		"size":      func(f *File) { f.Tensors[0].Size++ },
		"unaligned": func(f *File) { f.Tensors[2].Offset += 4 },
		"overlap":   func(f *File) { f.Tensors[1].Offset = f.Tensors[0].Offset },
		"closed":    func(f *File) { f.Close() },
		"alignment": func(f *File) { f.Alignment = 64 },
		"dup":       func(f *File) { f.Tensors[1].Name = f.Tensors[0].Name },
	}
	for name, edit := range edits {
		f, err := Parse(buildFile(t, 32))
		if err != nil {
			t.Fatal(err)
		}
		edit(f)
		if err := WriteFile(&bytes.Buffer{}, f); err == nil {
			t.Errorf("%s: WriteFile accepted an inconsistent file", name)
		}
	}
}

// TestMetadataOnly: a file without tensors round-trips with and without the
// padding after its metadata (llama.cpp pads, some writers do not).
func TestMetadataOnly(t *testing.T) {
	w := NewWriter(32)
	w.AddKV("k", StringValue("abc"))
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	padded := buf.Bytes()
	if len(padded)%32 != 0 {
		t.Fatalf("Writer did not pad: %d bytes", len(padded))
	}
	unpadded := padded[:24+8+1+4+8+3]
	for _, in := range [][]byte{padded, unpadded} {
		f, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteFile(&out, f); err != nil || !bytes.Equal(out.Bytes(), in) {
			t.Errorf("%d-byte input: WriteFile gave %d bytes, %v", len(in), out.Len(), err)
		}
	}
}

// TestTrailingPadding: the Writer pads the last tensor to the alignment, as
// llama.cpp does, and WriteFile keeps whatever tail the input had.
func TestTrailingPadding(t *testing.T) {
	w := NewWriter(32)
	if err := w.AddTensor("t", TypeF32, []int64{3}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	if len(full)%32 != 0 {
		t.Fatalf("file of %d bytes is not padded to 32", len(full))
	}
	for _, in := range [][]byte{full, full[:len(full)-1], full[:len(full)-20]} {
		f, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteFile(&out, f); err != nil || !bytes.Equal(out.Bytes(), in) {
			t.Errorf("%d-byte input: WriteFile gave %d bytes, %v", len(in), out.Len(), err)
		}
	}
	if _, err := Parse(full[:len(full)-21]); err == nil {
		t.Error("a file cut into the tensor data parsed")
	}
}
