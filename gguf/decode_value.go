package gguf

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// MaxArrayDepth bounds how deeply arrays may nest (an array of arrays is
// depth 2). llama.cpp reads no nested arrays at all; gguf-py writes depth 2
// at most; the limit keeps recursion on hostile input shallow.
const MaxArrayDepth = 8

// value reads the body of a value of type t (the type tag already read).
func (d *decoder) value(t ValueType, depth int) Value {
	if t == ValueArray {
		return d.array(depth + 1)
	}
	if t == ValueString {
		return Value{ValueString, string(d.strBytes("string"))}
	}
	at := d.off
	if !t.valid() {
		d.fail(at-4, ErrUnknownType, "unknown value type %d", uint32(t))
		return Value{}
	}
	p := d.take(valueSizes[t], t.String())
	if p == nil {
		return Value{}
	}
	return Value{t, scalarFrom(t, p)}
}

// scalarFrom decodes a fixed-size scalar from exactly valueSizes[t] bytes.
func scalarFrom(t ValueType, p []byte) any {
	le := binary.LittleEndian
	switch t {
	case ValueUint8:
		return p[0]
	case ValueInt8:
		return int8(p[0])
	case ValueUint16:
		return le.Uint16(p)
	case ValueInt16:
		return int16(le.Uint16(p))
	case ValueUint32:
		return le.Uint32(p)
	case ValueInt32:
		return int32(le.Uint32(p))
	case ValueFloat32:
		return math.Float32frombits(le.Uint32(p))
	case ValueBool:
		return p[0] != 0
	case ValueUint64:
		return le.Uint64(p)
	case ValueInt64:
		return int64(le.Uint64(p))
	default: // ValueFloat64
		return math.Float64frombits(le.Uint64(p))
	}
}

// array reads an array body: element type, count, elements.
func (d *decoder) array(depth int) Value {
	at := d.off
	elem := ValueType(d.u32("array element type"))
	cat := d.off
	n := d.count("array count")
	if d.err != nil {
		return Value{}
	}
	if !elem.valid() {
		d.fail(at, ErrUnknownType, "unknown array element type %d", uint32(elem))
		return Value{}
	}
	if depth > MaxArrayDepth {
		d.fail(at, ErrInvalid, "arrays nested deeper than %d", MaxArrayDepth)
		return Value{}
	}
	min := valueSizes[elem]
	if elem == ValueString {
		min = d.countWidth()
	} else if elem == ValueArray {
		min = 4 + d.countWidth()
	}
	if !d.fits(cat, n, min, "array count") {
		return Value{}
	}
	var data any
	switch elem {
	case ValueString:
		data = d.stringArray(int(n))
	case ValueArray:
		data = d.arrayArray(int(n), depth)
	default:
		data = fixedArray(elem, d.take(int(n)*min, "array elements"))
	}
	if d.err != nil {
		return Value{}
	}
	return arrayOf(elem, data)
}

func (d *decoder) arrayArray(n, depth int) []Value {
	out := make([]Value, n)
	for i := range out {
		out[i] = d.array(depth + 1)
		if d.err != nil {
			return nil
		}
	}
	return out
}

// stringArray reads n length-prefixed strings with two allocations: one
// string holding all their bytes back to back and one slice of headers
// pointing into it. The first pass validates every length before anything
// is allocated.
func (d *decoder) stringArray(n int) []string {
	start, total := d.off, 0
	for i := 0; i < n; i++ {
		at := d.off
		l := d.count("string length")
		if d.err != nil {
			return nil
		}
		if l > uint64(d.remaining()) {
			d.fail(at, ErrTruncated, "string element %d: length %d exceeds the %d bytes left", i, l, d.remaining())
			return nil
		}
		d.off += int(l)
		total += int(l)
	}
	raw := d.b[start:d.off]
	w := d.countWidth()
	buf := make([]byte, 0, total)
	out := make([]string, n)
	for i, p := 0, 0; i < n; i++ {
		l := stringLen(raw[p:], w)
		p += w
		buf = append(buf, raw[p:p+l]...)
		p += l
	}
	// buf is never written again, so viewing it as a string is safe.
	all := unsafe.String(unsafe.SliceData(buf), len(buf))
	for i, p, q := 0, 0, 0; i < n; i++ {
		l := stringLen(raw[p:], w)
		p += w + l
		out[i] = all[q : q+l]
		q += l
	}
	return out
}

// stringLen decodes a length prefix of width w (4 or 8) already validated.
func stringLen(p []byte, w int) int {
	if w == 8 {
		return int(binary.LittleEndian.Uint64(p))
	}
	return int(binary.LittleEndian.Uint32(p))
}

// fixedArray decodes the elements of a fixed-size type into a typed slice.
// p is nil when the read failed.
func fixedArray(elem ValueType, p []byte) any {
	if p == nil {
		return nil
	}
	le := binary.LittleEndian
	switch elem {
	case ValueUint8:
		return append([]uint8(nil), p...)
	case ValueInt8:
		return decodeEach(p, 1, func(b []byte) int8 { return int8(b[0]) })
	case ValueUint16:
		return decodeEach(p, 2, le.Uint16)
	case ValueInt16:
		return decodeEach(p, 2, func(b []byte) int16 { return int16(le.Uint16(b)) })
	case ValueUint32:
		return decodeEach(p, 4, le.Uint32)
	case ValueInt32:
		return decodeEach(p, 4, func(b []byte) int32 { return int32(le.Uint32(b)) })
	case ValueFloat32:
		return decodeEach(p, 4, func(b []byte) float32 { return math.Float32frombits(le.Uint32(b)) })
	case ValueBool:
		return decodeEach(p, 1, func(b []byte) bool { return b[0] != 0 })
	case ValueUint64:
		return decodeEach(p, 8, le.Uint64)
	case ValueInt64:
		return decodeEach(p, 8, func(b []byte) int64 { return int64(le.Uint64(b)) })
	default: // ValueFloat64
		return decodeEach(p, 8, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) })
	}
}

func decodeEach[T any](p []byte, size int, dec func([]byte) T) []T {
	out := make([]T, len(p)/size)
	for i := range out {
		out[i] = dec(p[i*size : i*size+size])
	}
	return out
}
