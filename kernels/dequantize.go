package kernels

import (
	"encoding/binary"
	"fmt"
)

// DequantizeRow expands len(dst) values of type t from src into dst, like
// ggml's to_float (dequantize_row_* in ggml-quants.c, the fp16/bf16/f32 row
// converters for the float types).
//
// Preconditions (violations panic): t is known (t.Known()), len(dst) is a
// multiple of t.BlockSize(), and len(src) >= t.RowBytes(len(dst)). Extra
// bytes in src are ignored. dst and src must not overlap.
func DequantizeRow(t DType, dst []float32, src []byte) {
	if !t.Known() {
		panic(fmt.Sprintf("kernels: DequantizeRow of unknown type %v", t))
	}
	need := t.RowBytes(len(dst))
	if len(src) < need {
		panic(fmt.Sprintf("kernels: DequantizeRow %v: %d values need %d bytes, have %d", t, len(dst), need, len(src)))
	}
	active.dequantize[t](dst, src[:need])
}

// dequantizeGeneric holds the reference dequantizer of every known type.
var dequantizeGeneric = [dtypeLimit]dequantizeFunc{
	F32:    dequantizeRowF32Generic,
	F16:    dequantizeRowF16Generic,
	BF16:   dequantizeRowBF16Generic,
	Q4_0:   dequantizeRowQ4_0Generic,
	Q4_1:   dequantizeRowQ4_1Generic,
	Q5_0:   dequantizeRowQ5_0Generic,
	Q5_1:   dequantizeRowQ5_1Generic,
	IQ4_NL: dequantizeRowIQ4NLGeneric,
	Q8_0:   dequantizeRowQ8_0Generic,
	Q8_1:   dequantizeRowQ8_1Generic,
	Q2_K:   dequantizeRowQ2_KGeneric,
	Q3_K:   dequantizeRowQ3_KGeneric,
	Q4_K:   dequantizeRowQ4_KGeneric,
	Q5_K:   dequantizeRowQ5_KGeneric,
	Q6_K:   dequantizeRowQ6_KGeneric,
	Q8_K:   dequantizeRowQ8_KGeneric,
}

// dequantizeRowF32Generic reads little-endian float32s.
func dequantizeRowF32Generic(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = f32At(src[4*i:])
	}
}

// dequantizeRowF16Generic converts little-endian fp16s (ggml_fp16_to_fp32_row).
func dequantizeRowF16Generic(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// dequantizeRowBF16Generic converts little-endian bf16s (ggml_bf16_to_fp32_row).
func dequantizeRowBF16Generic(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = BF16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// DequantizeRows expands rows rows of n values each, read srcStride bytes
// apart from src, into dst (n values per row, back to back): DequantizeRow
// per row with the checks done once, for attention's strided value rows.
func DequantizeRows(t DType, dst []float32, src []byte, srcStride, n, rows int) {
	if rows <= 0 {
		return
	}
	if !t.Known() {
		panic(fmt.Sprintf("kernels: DequantizeRows of unknown type %v", t))
	}
	rb := t.RowBytes(n)
	checkStrided("DequantizeRows", t, rows, rb, srcStride, len(src))
	if len(dst) < rows*n {
		panic(fmt.Sprintf("kernels: DequantizeRows %v: %d rows of %d values need %d floats, have %d", t, rows, n, rows*n, len(dst)))
	}
	f := active.dequantize[t]
	for r := range rows {
		f(dst[r*n:(r+1)*n], src[r*srcStride:r*srcStride+rb])
	}
}
