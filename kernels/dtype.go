package kernels

import "fmt"

// DType is a GGML tensor type id, numerically identical to ggml's enum
// ggml_type (and therefore to the GGUF tensor type field).
type DType uint32

// The GGML types this package knows. The values are fixed by the GGUF format.
const (
	F32    DType = 0
	F16    DType = 1
	Q4_0   DType = 2
	Q4_1   DType = 3
	Q5_0   DType = 6
	Q5_1   DType = 7
	Q8_0   DType = 8
	Q8_1   DType = 9
	Q2_K   DType = 10
	Q3_K   DType = 11
	Q4_K   DType = 12
	Q5_K   DType = 13
	Q6_K   DType = 14
	Q8_K   DType = 15
	IQ4_NL DType = 20
	BF16   DType = 30
)

// QK_K is the number of values in one K-quant super-block.
const QK_K = 256

// dtypeLimit bounds the DType values that index the per-type kernel tables.
const dtypeLimit = 31

type dtypeInfo struct {
	name       string
	blockSize  int   // values per block
	blockBytes int   // bytes per block
	vecDotType DType // type VecDot expects for the activations
	weight     bool  // DequantizeRow and VecDot are implemented
}

// dtypes is indexed by DType; entries with an empty name are unknown types.
// Block sizes and bytes follow ggml-common.h (static_asserts there).
var dtypes = [dtypeLimit]dtypeInfo{
	F32:    {"f32", 1, 4, F32, true},
	F16:    {"f16", 1, 2, F16, true},
	BF16:   {"bf16", 1, 2, BF16, true},
	Q4_0:   {"q4_0", 32, 2 + 16, Q8_0, true},
	Q4_1:   {"q4_1", 32, 2 + 2 + 16, Q8_1, true},
	Q5_0:   {"q5_0", 32, 2 + 4 + 16, Q8_0, true},
	Q5_1:   {"q5_1", 32, 2 + 2 + 4 + 16, Q8_1, true},
	Q8_0:   {"q8_0", 32, 2 + 32, Q8_0, true},
	Q8_1:   {"q8_1", 32, 2 + 2 + 32, Q8_1, false},
	Q2_K:   {"q2_K", QK_K, QK_K/16 + QK_K/4 + 2 + 2, Q8_K, true},
	Q3_K:   {"q3_K", QK_K, QK_K/8 + QK_K/4 + 12 + 2, Q8_K, true},
	Q4_K:   {"q4_K", QK_K, 2 + 2 + 12 + QK_K/2, Q8_K, true},
	Q5_K:   {"q5_K", QK_K, 2 + 2 + 12 + QK_K/8 + QK_K/2, Q8_K, true},
	Q6_K:   {"q6_K", QK_K, QK_K/2 + QK_K/4 + QK_K/16 + 2, Q8_K, true},
	Q8_K:   {"q8_K", QK_K, 4 + QK_K + 2*QK_K/16, Q8_K, false},
	IQ4_NL: {"iq4_nl", 32, 2 + 16, Q8_0, true},
}

func (t DType) info() *dtypeInfo {
	if t < dtypeLimit && dtypes[t].name != "" {
		return &dtypes[t]
	}
	return nil
}

// String returns ggml's name for the type ("q4_K", "bf16", …), or
// "DType(n)" for a type this package does not know.
func (t DType) String() string {
	if in := t.info(); in != nil {
		return in.name
	}
	return fmt.Sprintf("DType(%d)", uint32(t))
}

// Known reports whether the package knows the block layout of t, that is
// whether BlockSize, BlockBytes and RowBytes are defined for it.
func (t DType) Known() bool { return t.info() != nil }

// Supported reports whether t can be used as a weight type: DequantizeRow and
// VecDot (and so MatVec) are implemented for it. Q8_1 and Q8_K are
// activation-only formats (ggml has no vec_dot for them); DequantizeRow and
// QuantizeRow accept them but Supported reports false.
func (t DType) Supported() bool {
	in := t.info()
	return in != nil && in.weight
}

// CanQuantize reports whether QuantizeRow implements t: the activation
// formats F32, F16, BF16, Q8_0, Q8_1, Q8_K, and the KV cache formats Q4_0,
// Q4_1, Q5_0, Q5_1 and IQ4_NL.
func (t DType) CanQuantize() bool {
	return t < dtypeLimit && quantizeGeneric[t] != nil
}

// BlockSize returns the number of values per block: 1 for F32, F16 and BF16,
// 32 for the legacy quants, QK_K (256) for the K-quants, 0 if t is unknown.
func (t DType) BlockSize() int {
	if in := t.info(); in != nil {
		return in.blockSize
	}
	return 0
}

// BlockBytes returns the size of one block in bytes (0 if t is unknown).
func (t DType) BlockBytes() int {
	if in := t.info(); in != nil {
		return in.blockBytes
	}
	return 0
}

// RowBytes returns the bytes taken by n values of type t. It panics if t is
// unknown or n is negative or not a multiple of t.BlockSize().
func (t DType) RowBytes(n int) int {
	in := t.info()
	if in == nil {
		panic(fmt.Sprintf("kernels: RowBytes of unknown type %v", t))
	}
	if n < 0 || n%in.blockSize != 0 {
		panic(fmt.Sprintf("kernels: %d values of %v is not a whole number of %d-value blocks", n, t, in.blockSize))
	}
	return n / in.blockSize * in.blockBytes
}

// VecDotType returns ggml's vec_dot_type for t (type_traits_cpu in
// ggml-cpu.c): the type the activations must be quantized to before VecDot.
// F32, F16 and BF16 map to themselves; Q4_0, Q5_0 and Q8_0 to Q8_0; Q4_1,
// Q5_1 and Q8_1 to Q8_1; Q2_K…Q6_K and Q8_K to Q8_K. Unknown types return t.
func (t DType) VecDotType() DType {
	if in := t.info(); in != nil {
		return in.vecDotType
	}
	return t
}
