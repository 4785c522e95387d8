package kvcache

import (
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/kernels"
)

// Type is the element type of cached keys or values, named as llama.cpp's
// --cache-type-k/-v values. Today f32 and f16; the quantized and turbo types
// join in a later change.
type Type int

const (
	F32 Type = iota
	F16
)

var typeNames = [...]string{F32: "f32", F16: "f16"}

// String returns the llama.cpp spelling of the type.
func (t Type) String() string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("kvtype(%d)", int(t))
}

// DType returns the kernels type used to encode and dot rows of this type.
func (t Type) DType() kernels.DType {
	switch t {
	case F16:
		return kernels.F16
	default:
		return kernels.F32
	}
}

// RowBytes returns the bytes one row of n values takes.
func (t Type) RowBytes(n int) (int, error) {
	if t < 0 || int(t) >= len(typeNames) {
		return 0, fmt.Errorf("unknown cache type %d", int(t))
	}
	return t.DType().RowBytes(n), nil
}

// ParseType reads a --cache-type-k/-v value.
func ParseType(s string) (Type, error) {
	for i, n := range typeNames {
		if strings.EqualFold(s, n) {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("unknown KV cache type %q (supported: %s)", s, strings.Join(typeNames[:], ", "))
}
