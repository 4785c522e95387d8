package gguf

import (
	"fmt"
	"math"
)

// array writes an array body: element type, count, elements.
func (e *encoder) array(a *array, depth int) error {
	if depth > MaxArrayDepth {
		return fmt.Errorf("arrays nested deeper than %d", MaxArrayDepth)
	}
	if t, ok := elemTypeOf(a.data); !ok || t != a.elem {
		return fmt.Errorf("array tagged %s holds %T", a.elem, a.data)
	}
	e.u32(uint32(a.elem))
	e.u64(uint64(sliceLen(a.data)))
	switch s := a.data.(type) {
	case []uint8:
		e.bytes(s)
	case []int8:
		each(s, func(x int8) { e.u8(uint8(x)) })
	case []uint16:
		each(s, e.u16)
	case []int16:
		each(s, func(x int16) { e.u16(uint16(x)) })
	case []uint32:
		each(s, e.u32)
	case []int32:
		each(s, func(x int32) { e.u32(uint32(x)) })
	case []float32:
		each(s, func(x float32) { e.u32(math.Float32bits(x)) })
	case []bool:
		each(s, func(x bool) { e.u8(b2u(x)) })
	case []string:
		each(s, e.str)
	case []uint64:
		each(s, e.u64)
	case []int64:
		each(s, func(x int64) { e.u64(uint64(x)) })
	case []float64:
		each(s, func(x float64) { e.u64(math.Float64bits(x)) })
	case []Value:
		return e.nested(s, depth)
	}
	return nil
}

// nested writes the elements of an array of arrays: each is an array body
// without a type tag of its own.
func (e *encoder) nested(vs []Value, depth int) error {
	for i, v := range vs {
		a, ok := v.x.(*array)
		if !ok || v.typ != ValueArray {
			return fmt.Errorf("element %d of an array of arrays is a %s", i, v.typ)
		}
		if err := e.array(a, depth+1); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

func each[T any](s []T, put func(T)) {
	for _, x := range s {
		put(x)
	}
}
