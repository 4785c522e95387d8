package gguf

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

// rawFile assembles GGUF bytes field by field, valid or not.
type rawFile struct {
	b    []byte
	wide bool
}

func newRaw(version uint32, nTensors, nKV uint64) *rawFile {
	r := &rawFile{b: []byte("GGUF"), wide: version >= 2}
	r.u32(version).count(nTensors).count(nKV)
	return r
}

func (r *rawFile) u32(x uint32) *rawFile  { r.b = binary.LittleEndian.AppendUint32(r.b, x); return r }
func (r *rawFile) u64(x uint64) *rawFile  { r.b = binary.LittleEndian.AppendUint64(r.b, x); return r }
func (r *rawFile) raw(p ...byte) *rawFile { r.b = append(r.b, p...); return r }

func (r *rawFile) count(x uint64) *rawFile {
	if r.wide {
		return r.u64(x)
	}
	return r.u32(uint32(x))
}

func (r *rawFile) str(s string) *rawFile { r.count(uint64(len(s))); r.b = append(r.b, s...); return r }

// kvU32 appends a uint32 key/value pair.
func (r *rawFile) kvU32(key string, v uint32) *rawFile {
	return r.str(key).u32(uint32(ValueUint32)).u32(v)
}

// tensor appends a descriptor.
func (r *rawFile) tensor(name string, typ Type, off uint64, dims ...uint64) *rawFile {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.count(d)
	}
	return r.u32(uint32(typ)).u64(off)
}

// pad zero-fills to a multiple of a, then appends n data bytes.
func (r *rawFile) data(a, n int) []byte {
	for len(r.b)%a != 0 {
		r.b = append(r.b, 0)
	}
	return append(r.b, make([]byte, n)...)
}

type hostileCase struct {
	name  string
	in    []byte
	cause error
	want  []string // substrings of the message
}

func hostileCases() []hostileCase {
	v3 := func(nt, nkv uint64) *rawFile { return newRaw(3, nt, nkv) }
	nested := func(depth int) []byte {
		r := v3(0, 1).str("deep").u32(uint32(ValueArray))
		for i := 1; i < depth; i++ {
			r.u32(uint32(ValueArray)).u64(1)
		}
		return r.u32(uint32(ValueUint8)).u64(0).b
	}
	return []hostileCase{
		{"empty", nil, ErrTruncated, []string{"header at offset 0", "magic"}},
		{"bad magic", []byte("GGML\x03\x00\x00\x00"), ErrBadMagic, []string{`"GGML"`}},
		{"version 0", newRaw(0, 0, 0).b, ErrVersion, []string{"version 0", "at offset 4"}},
		{"version 4", newRaw(4, 0, 0).b, ErrVersion, []string{"version 4"}},
		{"big endian", []byte("GGUF\x00\x00\x00\x03"), ErrVersion, []string{"big-endian"}},
		{"huge kv count", v3(0, 1<<62).b, ErrTruncated, []string{"header at offset 16", "key/value count 4611686018427387904"}},
		{"huge tensor count", v3(1<<62, 1).kvU32("k", 1).b, ErrTruncated, []string{"header at offset 8", "tensor count"}},
		{"huge v1 kv count", newRaw(1, 0, math.MaxUint32).b, ErrTruncated, []string{"key/value count"}},
		{"key length", v3(0, 1).u64(1 << 60).raw(make([]byte, 16)...).b, ErrTruncated, []string{"key #0 at offset 24", "key length 1152921504606846976"}},
		{"empty key", v3(0, 1).str("").u32(0).raw(1).b, ErrInvalid, []string{"empty key"}},
		{"non-UTF-8 key", v3(0, 1).str("a\xffb").u32(0).raw(1).b, ErrInvalid, []string{"UTF-8"}},
		{"duplicate key", v3(0, 2).kvU32("k", 1).kvU32("k", 2).b, ErrInvalid, []string{`key #1 at offset 41`, `duplicate key "k"`}},
		{"unknown value type", v3(0, 1).str("k").u32(13).u64(0).b, ErrUnknownType, []string{`key "k" at offset 33`, "value type 13"}},
		{"unknown elem type", v3(0, 1).str("k").u32(9).u32(99).u64(0).b, ErrUnknownType, []string{"element type 99"}},
		{"string too long", v3(0, 1).str("k").u32(8).u64(100).raw('x').b, ErrTruncated, []string{"string length 100"}},
		{"huge string array", v3(0, 1).str("k").u32(9).u32(8).u64(1 << 61).b, ErrTruncated, []string{"array count 2305843009213693952"}},
		{"huge u32 array", v3(0, 1).str("k").u32(9).u32(4).u64(1 << 40).raw(make([]byte, 64)...).b, ErrTruncated, []string{"array count"}},
		{"string element", v3(0, 1).str("k").u32(9).u32(8).u64(2).str("ok").u64(1 << 40).b, ErrTruncated, []string{"string element 1"}},
		{"too deep", nested(MaxArrayDepth + 1), ErrInvalid, []string{"nested deeper"}},
		{"alignment 0", v3(0, 1).kvU32(KeyAlignment, 0).b, ErrInvalid, []string{`key "general.alignment" at offset 24`}},
		{"alignment 48", v3(0, 1).kvU32(KeyAlignment, 48).b, ErrInvalid, []string{"power of two"}},
		{"alignment string", v3(0, 1).str(KeyAlignment).u32(8).str("32").b, ErrInvalid, []string{"alignment"}},
		{"n_dims 0", v3(1, 0).tensor("t", TypeF32, 0).b, ErrInvalid, []string{`tensor "t"`, "n_dims 0"}},
		{"n_dims 5", v3(1, 0).tensor("t", TypeF32, 0, 1, 1, 1, 1, 1).b, ErrInvalid, []string{"n_dims 5"}},
		{"dims overflow", v3(1, 0).tensor("t", TypeF32, 0, 1<<32, 1<<32).b, ErrInvalid, []string{"overflows"}},
		{"negative dim", v3(1, 0).tensor("t", TypeF32, 0, 1<<63).b, ErrInvalid, []string{"beyond int64"}},
		{"bytes overflow", v3(1, 0).tensor("t", TypeF64, 0, 1<<61).b, ErrInvalid, []string{"overflow"}},
		{"removed type", v3(1, 0).tensor("blk.0.w", Type(4), 0, 32).b, ErrUnknownType, []string{`tensor "blk.0.w" at offset 51`, "type id 4"}},
		{"unknown type", v3(1, 0).tensor("t", Type(1000), 0, 32).b, ErrUnknownType, []string{"type id 1000"}},
		{"partial block", v3(1, 0).tensor("t", TypeQ4_K, 0, 255).b, ErrInvalid, []string{"block size 256"}},
		{"unaligned offset", v3(1, 0).tensor("t", TypeF32, 4, 1).data(32, 8), ErrInvalid, []string{"offset 4 is not a multiple of the alignment 32"}},
		{"past EOF", v3(1, 0).tensor("blk.0.attn_q.weight", TypeF32, 0, 64).data(32, 100), ErrTruncated, []string{`tensor "blk.0.attn_q.weight" at offset 24`, "data [96, 352) past end of file (size 196)"}},
		{"offset past EOF", v3(1, 0).tensor("t", TypeF32, 1<<62, 1).data(32, 4), ErrTruncated, []string{"past end of file"}},
		{"no data section", v3(1, 1).kvU32(KeyAlignment, 1<<31).tensor("t", TypeF32, 0, 0).b, ErrTruncated, []string{"data section at offset 90", "past end of file"}},
		{"overlap", v3(2, 0).tensor("a", TypeF32, 0, 16).tensor("b", TypeF32, 32, 16).data(32, 128), ErrInvalid, []string{`tensor "b"`, `overlaps tensor "a" [0, 64)`}},
		{"duplicate tensor", v3(2, 0).tensor("a", TypeF32, 0, 8).tensor("a", TypeF32, 32, 8).data(32, 64), ErrInvalid, []string{"duplicate tensor name"}},
		{"empty name", v3(1, 0).tensor("", TypeF32, 0, 8).data(32, 32), ErrInvalid, []string{"empty tensor name"}},
		{"non-UTF-8 name", v3(1, 0).tensor("\xc3(", TypeF32, 0, 8).data(32, 32), ErrInvalid, []string{"UTF-8"}},
		{"truncated dims", v3(1, 0).str("t").u32(4).u64(4).u64(4).b, ErrTruncated, []string{`tensor "t"`, "dimension"}},
		{"v1 string length", newRaw(1, 0, 1).u32(math.MaxUint32).raw(make([]byte, 16)...).b, ErrTruncated, []string{"key length 4294967295"}},
	}
}

func TestHostile(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.in)
			if err == nil {
				t.Fatalf("Parse accepted it: %d KVs, %d tensors", len(f.KVs), len(f.Tensors))
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, c.cause) {
				t.Errorf("error %v (%T), want cause %v", err, err, c.cause)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestNestingLimit: MaxArrayDepth levels are fine, one more is not (above).
func TestNestingLimit(t *testing.T) {
	r := newRaw(3, 0, 1).str("deep").u32(uint32(ValueArray))
	for i := 1; i < MaxArrayDepth; i++ {
		r.u32(uint32(ValueArray)).u64(1)
	}
	r.u32(uint32(ValueUint8)).u64(0)
	if _, err := Parse(r.b); err != nil {
		t.Fatal(err)
	}
}

// TestNoBigAllocation: a header claiming 2^31 KVs, each a 2^31-element
// array, must fail without allocating anything near its claims.
func TestNoBigAllocation(t *testing.T) {
	in := newRaw(3, 0, 1<<31).str("k").u32(9).u32(4).u64(1 << 31).b
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Parse(in); err == nil {
		t.Fatal("accepted")
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<16 {
		t.Errorf("allocated %d bytes for a %d-byte input", d, len(in))
	}
}

// TestEveryTruncation parses every strict prefix of a valid file (whose
// last tensor ends the file) and expects an error each time, never a panic.
func TestEveryTruncation(t *testing.T) {
	for _, version := range []string{"v3", "v1"} {
		data := buildFile(t, 32)
		if version == "v1" {
			data = v1Stories(t)
		}
		if _, err := Parse(data); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(data); n++ {
			if _, err := Parse(data[:n:n]); err == nil {
				t.Fatalf("%s: prefix of %d/%d bytes accepted", version, n, len(data))
			}
		}
	}
}
