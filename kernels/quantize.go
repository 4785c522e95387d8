package kernels

import (
	"encoding/binary"
	"fmt"
)

// QuantizeRow packs the len(src) values of src into dst as type t, bit for bit
// like ggml's reference quantizers: quantize_row_q8_0_ref, q8_1_ref, q8_K_ref
// and q4_0_ref in ggml-quants.c, and the fp16 (GGML_FP32_TO_FP16), bf16
// (ggml_compute_fp32_to_bf16) and f32 row converters. Only t.CanQuantize()
// types are implemented.
//
// Preconditions (violations panic): t.CanQuantize(), len(src) is a multiple
// of t.BlockSize(), len(dst) >= t.RowBytes(len(src)). Bytes of dst past
// RowBytes are left alone. src must be finite (as in ggml, a NaN or Inf in
// a block gives an unspecified block). dst and src must not overlap.
func QuantizeRow(t DType, dst []byte, src []float32) {
	if !t.CanQuantize() {
		panic(fmt.Sprintf("kernels: QuantizeRow not implemented for %v", t))
	}
	need := t.RowBytes(len(src))
	if len(dst) < need {
		panic(fmt.Sprintf("kernels: QuantizeRow %v: %d values need %d bytes, have %d", t, len(src), need, len(dst)))
	}
	active.quantize[t](dst[:need], src)
}

// quantizeGeneric holds the reference quantizer of every type QuantizeRow
// supports; a nil entry means "not implemented".
var quantizeGeneric = [dtypeLimit]quantizeFunc{
	F32:  quantizeRowF32Generic,
	F16:  quantizeRowF16Generic,
	BF16: quantizeRowBF16Generic,
	Q4_0: quantizeRowQ4_0Generic,
	Q8_0: quantizeRowQ8_0Generic,
	Q8_1: quantizeRowQ8_1Generic,
	Q8_K: quantizeRowQ8_KGeneric,
}

// quantizeRowF32Generic stores little-endian float32s.
func quantizeRowF32Generic(dst []byte, src []float32) {
	for i, v := range src {
		putF32(dst[4*i:], v)
	}
}

// quantizeRowF16Generic stores little-endian fp16s (ggml_fp32_to_fp16_row).
func quantizeRowF16Generic(dst []byte, src []float32) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(v))
	}
}

// quantizeRowBF16Generic stores little-endian bf16s (ggml_fp32_to_bf16_row_ref).
func quantizeRowBF16Generic(dst []byte, src []float32) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(v))
	}
}
