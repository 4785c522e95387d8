package gguf

import (
	"fmt"
	"math"
)

// ValueType is the type tag of a metadata value (gguf_type in gguf.h).
type ValueType uint32

// Metadata value types, numbered as in the GGUF specification.
const (
	ValueUint8   ValueType = 0
	ValueInt8    ValueType = 1
	ValueUint16  ValueType = 2
	ValueInt16   ValueType = 3
	ValueUint32  ValueType = 4
	ValueInt32   ValueType = 5
	ValueFloat32 ValueType = 6
	ValueBool    ValueType = 7
	ValueString  ValueType = 8
	ValueArray   ValueType = 9
	ValueUint64  ValueType = 10
	ValueInt64   ValueType = 11
	ValueFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
	"float32", "bool", "string", "array", "uint64", "int64", "float64"}

// valueSizes holds the encoded size of fixed-size types; 0 for string and array.
var valueSizes = [...]int{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8}

// String returns the type's name ("uint32", "array"), or "valuetype(N)".
func (t ValueType) String() string {
	if t.valid() {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("valuetype(%d)", uint32(t))
}

func (t ValueType) valid() bool { return t <= ValueFloat64 }

// Value is one metadata value with its exact GGUF type, so a parsed file can
// be written back unchanged. The zero Value is invalid (writing it fails).
// Values are immutable; slices returned by accessors are shared and must not
// be modified.
type Value struct {
	typ ValueType
	// x holds the Go value: uint8, int8, uint16, int16, uint32, int32,
	// float32, bool, string, uint64, int64, float64, or *array.
	x any
}

// array holds the elements of an array value as a typed slice: []uint8 ...
// []float64, []bool, []string, or []Value for an array of arrays.
type array struct {
	elem ValueType
	data any
}

// Type returns the value's type tag.
func (v Value) Type() ValueType { return v.typ }

// IsValid reports whether v holds a value (the zero Value does not).
func (v Value) IsValid() bool { return v.x != nil }

// ElemType returns the element type of an array; for a scalar it returns the
// value's own type.
func (v Value) ElemType() ValueType {
	if a, ok := v.x.(*array); ok {
		return a.elem
	}
	return v.typ
}

// Len returns the number of elements of an array, 0 for a scalar.
func (v Value) Len() int {
	a, ok := v.x.(*array)
	if !ok {
		return 0
	}
	return sliceLen(a.data)
}

// Interface returns the Go value: a scalar (uint8 ... float64, bool, string)
// or, for an array, a typed slice ([]uint32, []string, ...; []Value for an
// array of arrays). Slices are shared, not copied.
func (v Value) Interface() any {
	if a, ok := v.x.(*array); ok {
		return a.data
	}
	return v.x
}

// AsString returns a string value.
func (v Value) AsString() (string, bool) { s, ok := v.x.(string); return s, ok }

// AsBool returns a bool value.
func (v Value) AsBool() (bool, bool) { b, ok := v.x.(bool); return b, ok }

// AsUint returns an integer value of any width that is not negative.
func (v Value) AsUint() (uint64, bool) {
	switch x := v.x.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	}
	if i, ok := v.signed(); ok && i >= 0 {
		return uint64(i), true
	}
	return 0, false
}

// AsInt returns an integer value of any width that fits in int64.
func (v Value) AsInt() (int64, bool) {
	if i, ok := v.signed(); ok {
		return i, true
	}
	if u, ok := v.AsUint(); ok && u <= math.MaxInt64 {
		return int64(u), true
	}
	return 0, false
}

func (v Value) signed() (int64, bool) {
	switch x := v.x.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// AsFloat returns a float32 or float64 value, or an integer converted to
// float64 (large 64-bit integers round).
func (v Value) AsFloat() (float64, bool) {
	switch x := v.x.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	if i, ok := v.signed(); ok {
		return float64(i), true
	}
	if u, ok := v.AsUint(); ok {
		return float64(u), true
	}
	return 0, false
}

// AsStrings returns an array of strings. The slice is shared, not copied, so
// calling it repeatedly is free.
func (v Value) AsStrings() ([]string, bool) {
	s, ok := v.arrayData().([]string)
	return s, ok
}

// AsFloat32s returns an array of float32 (shared) or of float64 (converted).
func (v Value) AsFloat32s() ([]float32, bool) {
	switch s := v.arrayData().(type) {
	case []float32:
		return s, true
	case []float64:
		out := make([]float32, len(s))
		for i, x := range s {
			out[i] = float32(x)
		}
		return out, true
	}
	return nil, false
}

// AsInt32s returns an array of int32 (shared) or of any other integer type,
// converted; it fails if an element does not fit in int32.
func (v Value) AsInt32s() ([]int32, bool) {
	switch s := v.arrayData().(type) {
	case []int32:
		return s, true
	case []uint8:
		return convertInts(s)
	case []int8:
		return convertInts(s)
	case []uint16:
		return convertInts(s)
	case []int16:
		return convertInts(s)
	case []uint32:
		return convertInts(s)
	case []uint64:
		return convertInts(s)
	case []int64:
		return convertInts(s)
	}
	return nil, false
}

func convertInts[T uint8 | int8 | uint16 | int16 | uint32 | uint64 | int64](s []T) ([]int32, bool) {
	out := make([]int32, len(s))
	for i, x := range s {
		if int64(x) < math.MinInt32 || int64(x) > math.MaxInt32 {
			return nil, false
		}
		out[i] = int32(x)
	}
	return out, true
}

// AsArray returns the elements of any array as Values (allocating); meant for
// generic walkers such as an inspect command, not for hot paths.
func (v Value) AsArray() ([]Value, bool) {
	a, ok := v.x.(*array)
	if !ok {
		return nil, false
	}
	if vs, ok := a.data.([]Value); ok {
		return vs, true
	}
	n := sliceLen(a.data)
	out := make([]Value, n)
	for i := range out {
		out[i] = Value{typ: a.elem, x: sliceAt(a.data, i)}
	}
	return out, true
}

func (v Value) arrayData() any {
	if a, ok := v.x.(*array); ok {
		return a.data
	}
	return nil
}

// Summary formats v for people (inspect output): strings quoted, arrays
// shown with their element type, length and at most max leading elements.
func (v Value) Summary(max int) string {
	a, ok := v.x.(*array)
	if !ok {
		if s, ok := v.x.(string); ok {
			return fmt.Sprintf("%q", s)
		}
		return fmt.Sprint(v.x)
	}
	n := sliceLen(a.data)
	s := fmt.Sprintf("[%s×%d]", a.elem, n)
	for i := 0; i < n && i < max; i++ {
		sep := " "
		if i == 0 {
			sep = " ["
		}
		e := sliceAt(a.data, i)
		if ev, ok := e.(Value); ok {
			s += sep + ev.Summary(max)
		} else {
			s += sep + Value{typ: a.elem, x: e}.Summary(max)
		}
	}
	if n > 0 && max > 0 {
		if n > max {
			s += " …"
		}
		s += "]"
	}
	return s
}
