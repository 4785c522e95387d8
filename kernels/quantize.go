package kernels

import (
	"encoding/binary"
	"fmt"
)

// QuantizeRow packs the len(src) values of src into dst as type t, bit for bit
// like ggml: the activation formats Q8_0 and Q8_1 as llama.cpp's x86 build
// rounds activations (see q8Scale), Q8_K as quantize_row_q8_K_ref, the weight
// formats Q4_0, Q4_1, Q5_0, Q5_1 and Q2_K..Q6_K as their quantize_row_*_ref
// in ggml-quants.c (what llama-quantize runs without an importance matrix),
// and the fp16 (GGML_FP32_TO_FP16), bf16 (ggml_compute_fp32_to_bf16) and f32
// row converters. Only t.CanQuantize() types are implemented. To write Q8_0
// weights use QuantizeWeightRow, which rounds like llama-quantize.
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
	Q2_K:   quantizeRowQ2_KGeneric,
	Q3_K:   quantizeRowQ3_KGeneric,
	Q4_K:   quantizeRowQ4_KGeneric,
	Q5_K:   quantizeRowQ5_KGeneric,
	Q6_K:   quantizeRowQ6_KGeneric,
}

// QuantizeWeightRow packs src into dst as type t the way llama-quantize
// writes model weights (no importance matrix): like QuantizeRow, except that
// Q8_0 follows quantize_row_q8_0_ref (scale 1/d, ties away from zero) rather
// than the activation rounding QuantizeRow uses for Q8_0. Weight files made
// with it are byte-identical to llama-quantize's for every type checked in
// quantize_w_file_test.go. Preconditions are those of QuantizeRow; t must
// satisfy CanQuantizeWeight. Quantizing is not on a hot path: this always
// runs the generic code.
func QuantizeWeightRow(t DType, dst []byte, src []float32) {
	if t == Q8_0 {
		need := t.RowBytes(len(src))
		if len(dst) < need {
			panic(fmt.Sprintf("kernels: QuantizeWeightRow %v: %d values need %d bytes, have %d", t, len(src), need, len(dst)))
		}
		quantizeRowQ8_0WeightGeneric(dst[:need], src)
		return
	}
	if !t.CanQuantizeWeight() {
		panic(fmt.Sprintf("kernels: QuantizeWeightRow not implemented for %v", t))
	}
	QuantizeRow(t, dst, src)
}

// CanQuantizeWeight reports whether QuantizeWeightRow implements t: F32, F16,
// BF16 and the weight formats Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K (not
// the activation-only formats Q8_1 and Q8_K, which no model file holds).
func (t DType) CanQuantizeWeight() bool {
	return t.CanQuantize() && t != Q8_1 && t != Q8_K
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
