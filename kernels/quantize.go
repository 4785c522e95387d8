package kernels

import (
	"encoding/binary"
	"fmt"
)

// QuantizeRow packs the len(src) values of src into dst as type t, bit for bit
// like ggml: the activation formats Q8_0 and Q8_1 as llama.cpp's x86 build
// rounds activations (see q8Scale), Q8_K as quantize_row_q8_K_ref, the KV
// cache formats Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL as their
// quantize_row_*_ref in ggml-quants.c, and the fp16 (GGML_FP32_TO_FP16),
// bf16 (ggml_compute_fp32_to_bf16) and f32 row converters: what inference
// quantizes. Only t.CanQuantize() types are implemented. Model weights are
// written by package quantize (the K-quants, and Q8_0 with llama-quantize's
// rounding).
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
	F32:    quantizeRowF32Generic,
	F16:    quantizeRowF16Generic,
	BF16:   quantizeRowBF16Generic,
	Q4_0:   quantizeRowQ4_0Generic,
	Q8_0:   quantizeRowQ8_0Generic,
	Q8_1:   quantizeRowQ8_1Generic,
	Q8_K:   quantizeRowQ8_KGeneric,
	Q4_1:   quantizeRowQ4_1Generic,
	Q5_0:   quantizeRowQ5_0Generic,
	Q5_1:   quantizeRowQ5_1Generic,
	IQ4_NL: quantizeRowIQ4NLGeneric,
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
