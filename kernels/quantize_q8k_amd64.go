//go:build !purego

package kernels

// quantizeRowQ8_KAVX2 quantizes len(src)/QK_K super-blocks of src to q8_K
// in dst (quantize_q8k_amd64.s), byte for byte as quantizeRowQ8_KGeneric does
// for finite input: same maximum (first on ties), same float32 scale
// arithmetic, same ties-to-even rounding, and the same bytes where a
// subnormal maximum makes iscale infinite. NaN input gives unspecified
// quants but never reads or writes outside the row.
//
//go:noescape
func quantizeRowQ8_KAVX2(dst []byte, src []float32)
