package gguf

import (
	"fmt"
	"unicode/utf8"
)

// preallocCap bounds capacity reserved from a declared count: a count that
// passed the fits check may still describe more structs than the file
// really holds, so larger tables grow by append as entries are read.
const preallocCap = 4096

// DefaultAlignment is the data alignment when general.alignment is absent.
const DefaultAlignment = 32

// maxAlignment bounds general.alignment (the largest power of two a uint32
// holds), so padding computed from it cannot overflow.
const maxAlignment = 1 << 31

// Parse reads a GGUF file held in memory. data is retained, not copied:
// TensorData returns slices of it, so it must not change while the File is
// in use.
func Parse(data []byte) (*File, error) {
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func parse(data []byte) (*File, error) {
	d := &decoder{b: data, kind: "header"}
	f := &File{data: data}
	nTensors, nKV := d.header(f)
	if d.err == nil {
		d.kvs(f, nKV)
	}
	if d.err == nil {
		d.alignment(f)
	}
	if d.err == nil {
		d.tensorInfos(f, nTensors)
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := f.layout(d.off); err != nil {
		return nil, err
	}
	return f, nil
}

// header reads magic, version and the two counts.
func (d *decoder) header(f *File) (nTensors, nKV uint64) {
	magic := d.take(4, "magic")
	if magic == nil {
		return
	}
	if string(magic) != "GGUF" {
		d.fail(0, ErrBadMagic, "bad magic %q, want \"GGUF\"", magic)
		return
	}
	f.Version = d.u32("version")
	if d.err != nil {
		return
	}
	if f.Version < 1 || f.Version > 3 {
		hint := ""
		if f.Version&0xFFFF == 0 && f.Version != 0 {
			hint = " (a big-endian file?)"
		}
		d.fail(4, ErrVersion, "unsupported version %d%s; versions 1, 2 and 3 are read", f.Version, hint)
		return
	}
	d.wide = f.Version >= 2
	nTensors = d.count("tensor count")
	nKV = d.count("key/value count")
	return
}

// countOffsets returns the file offsets of the tensor and key/value counts.
func (d *decoder) countOffsets() (tensors, kvs int) { return 8, 8 + d.countWidth() }

// minKVBytes is the smallest encoded key/value pair: key length, type tag,
// one value byte. It is a lower bound for rejecting absurd counts, so it
// assumes an (invalid) empty key to let that case reach its own error.
func (d *decoder) minKVBytes() int { return d.countWidth() + 4 + 1 }

func (d *decoder) kvs(f *File, n uint64) {
	_, at := d.countOffsets()
	if !d.fits(at, n, d.minKVBytes(), "key/value count") {
		return
	}
	f.KVs = make([]KV, 0, min(n, preallocCap))
	f.kvIndex = make(map[string]int, min(n, preallocCap))
	for i := 0; i < int(n); i++ {
		d.kind, d.name, d.index = "key", "", i
		at := d.off
		key := d.key(at, f.kvIndex)
		if d.err != nil {
			return
		}
		d.name = key
		if key == KeyAlignment {
			d.alignAt = at
		}
		tat := d.off
		t := ValueType(d.u32("value type"))
		if d.err == nil && !t.valid() {
			d.fail(tat, ErrUnknownType, "unknown value type %d", uint32(t))
		}
		v := d.value(t, 0)
		if d.err != nil {
			return
		}
		f.kvIndex[key] = len(f.KVs)
		f.KVs = append(f.KVs, KV{Key: key, Value: v})
	}
}

// key reads a key and checks that it is non-empty, UTF-8 and new.
func (d *decoder) key(at int, seen map[string]int) string {
	b := d.strBytes("key")
	if d.err != nil {
		return ""
	}
	switch {
	case len(b) == 0:
		d.fail(at, ErrInvalid, "empty key")
	case !utf8.Valid(b):
		d.fail(at, ErrInvalid, "key %q is not valid UTF-8", b)
	}
	if _, dup := seen[string(b)]; dup && d.err == nil {
		d.fail(at, ErrInvalid, "duplicate key %q", b)
	}
	return string(b)
}

// alignment applies general.alignment: any integer type holding a power of
// two up to 2^31 (llama.cpp requires uint32; gguf-py writes uint32).
func (d *decoder) alignment(f *File) {
	f.Alignment = DefaultAlignment
	v, ok := f.Get(KeyAlignment)
	if !ok {
		return
	}
	d.kind, d.name = "key", KeyAlignment
	a, ok := v.AsUint()
	if !ok || a == 0 || a > maxAlignment || a&(a-1) != 0 {
		d.fail(d.alignAt, ErrInvalid, "general.alignment %s is not a power of two in [1, 2^31]", v.Summary(0))
		return
	}
	f.Alignment = int64(a)
}

// KeyAlignment is the metadata key that sets the data alignment.
const KeyAlignment = "general.alignment"

// layout places the data section after the metadata ending at metaEnd and
// checks that every tensor lies inside the file and overlaps no other.
func (f *File) layout(metaEnd int) error {
	f.metaEnd = int64(metaEnd)
	f.DataOffset = alignUp(f.metaEnd, f.Alignment)
	size := int64(len(f.data))
	f.padMeta = size >= f.DataOffset
	f.dataLen = max(0, size-f.DataOffset)
	if len(f.Tensors) > 0 && f.DataOffset > size {
		// Only zero-size tensors could pass the checks below; refusing them
		// keeps WriteFile's output within the size of its input.
		return &FormatError{Field: "data section", Offset: f.metaEnd, Err: ErrTruncated,
			Msg: fmt.Sprintf("starts at %d (alignment %d), past end of file (size %d)", f.DataOffset, f.Alignment, size)}
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if ti.Offset > f.dataLen || ti.Size > f.dataLen-ti.Offset {
			start := uadd(f.DataOffset, ti.Offset)
			return &FormatError{Field: fmt.Sprintf("tensor %q", ti.Name), Offset: ti.infoOff,
				Msg: fmt.Sprintf("data [%d, %d) past end of file (size %d)", start, uadd(start, ti.Size), size), Err: ErrTruncated}
		}
	}
	return checkOverlap(f.Tensors)
}

// uadd adds two non-negative int64s, saturating instead of wrapping, for
// error messages about out-of-range data.
func uadd(a, b int64) int64 {
	if a > maxInt64-b {
		return maxInt64
	}
	return a + b
}

func alignUp(x, a int64) int64 { return (x + a - 1) &^ (a - 1) }
