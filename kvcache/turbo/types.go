package turbo

import (
	"fmt"
	"strings"
)

// Type is a turbo KV-cache element type. Its value is BeeLlama's (and buun's)
// ggml type id, the number a KV state file stores for the layer; TheTom's
// fork numbers the same names differently, and reuses 45/46 for weight types,
// so an id is only meaningful together with the fork that wrote it.
type Type int

const (
	Turbo3    Type = 42 // GGML_TYPE_TURBO3_0: 3-bit Lloyd-Max, 50 bytes per 128 values
	Turbo4    Type = 43 // GGML_TYPE_TURBO4_0: 4-bit Lloyd-Max, 66 bytes per 128 values
	Turbo2    Type = 44 // GGML_TYPE_TURBO2_0: 2-bit Lloyd-Max, 34 bytes per 128 values
	Turbo3TCQ Type = 45 // GGML_TYPE_TURBO3_TCQ: 3-bit trellis, 52 bytes per 128 values
	Turbo2TCQ Type = 46 // GGML_TYPE_TURBO2_TCQ: 2-bit trellis, 36 bytes per 128 values
)

// Types lists every turbo type, in enum order.
var Types = []Type{Turbo3, Turbo4, Turbo2, Turbo3TCQ, Turbo2TCQ}

// BlockSize is the number of values in one block: one rotation group.
const BlockSize = 128

// normBytes is the size of the fp16 corrected norm that starts every block.
const normBytes = 2

// String returns the --cache-type-k/-v spelling ("turbo3", "turbo2_tcq", ...).
func (t Type) String() string {
	switch t {
	case Turbo2:
		return "turbo2"
	case Turbo3:
		return "turbo3"
	case Turbo4:
		return "turbo4"
	case Turbo2TCQ:
		return "turbo2_tcq"
	case Turbo3TCQ:
		return "turbo3_tcq"
	}
	return fmt.Sprintf("turbo(%d)", int(t))
}

// Valid reports whether t is one of the five turbo types.
func (t Type) Valid() bool { return t >= Turbo3 && t <= Turbo2TCQ }

// ParseType reads a --cache-type-k/-v value such as "turbo3_tcq".
func ParseType(s string) (Type, error) {
	for _, t := range Types {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("turbo: unknown type %q", s)
}

// Bits returns the index bits per value (2, 3 or 4); the block adds the
// norm, and for TCQ the 6-bit trellis prefix and padding, on top.
func (t Type) Bits() int {
	switch t {
	case Turbo2, Turbo2TCQ:
		return 2
	case Turbo3, Turbo3TCQ:
		return 3
	case Turbo4:
		return 4
	}
	return 0
}

// IsTCQ reports whether t is a trellis-coded type.
func (t Type) IsTCQ() bool { return t == Turbo2TCQ || t == Turbo3TCQ }

// BlockBytes returns the bytes one 128-value block takes, or 0 for an
// invalid type. Layouts (byte offsets), all little-endian, LSB-first:
//
//	turbo2      norm[0,2) qs[2,34)                    2-bit index j at qs[j/4] bit 2*(j%4)
//	turbo3      norm[0,2) qs[2,34) signs[34,50)       index bits 0-1 as turbo2, bit 2 at signs[j/8] bit j%8
//	turbo4      norm[0,2) qs[2,66)                    4-bit index j at qs[j/2], even j in the low nibble
//	turbo3_tcq  norm[0,2) qs[2,51) pad[51]            6-bit prefix + 128 3-bit symbols (390 bits)
//	turbo2_tcq  norm[0,2) qs[2,35) pad[35]            6-bit prefix + 128 2-bit symbols (262 bits)
func (t Type) BlockBytes() int {
	switch t {
	case Turbo2:
		return 34
	case Turbo3:
		return 50
	case Turbo4:
		return 66
	case Turbo3TCQ:
		return 52
	case Turbo2TCQ:
		return 36
	}
	return 0
}

// PaddedLen returns n rounded up to a multiple of BlockSize: BeeLlama
// zero-pads every head vector at its end to whole rotation groups (64, 80
// and 96 become 128; 192 becomes 256). Rotated queries and rotated-domain
// accumulators have this length.
func PaddedLen(n int) int { return (n + BlockSize - 1) / BlockSize * BlockSize }

// RowBytes returns the bytes a head vector of n values takes once padded to
// whole blocks, or 0 for an invalid type or n <= 0.
func (t Type) RowBytes(n int) int {
	if n <= 0 {
		return 0
	}
	return PaddedLen(n) / BlockSize * t.BlockBytes()
}

// BitsPerValue returns the storage cost per value of full blocks
// (BlockBytes*8/128: 2.125, 3.125, 4.125, 3.25 or 2.25).
func (t Type) BitsPerValue() float64 { return float64(t.BlockBytes()*8) / BlockSize }
