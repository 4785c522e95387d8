//go:build !purego

package kernels

// AVX2 block expansions (dequantize_amd64.s), bit-identical to the Go loops.
//
//go:noescape
func dequantizeQ8_0AVX2(dst *float32, src *byte, blocks int)

//go:noescape
func dequantizeQ4_0AVX2(dst *float32, src *byte, blocks int)

// registerDequantAMD64 fills the avx2 dequantize entries (the levels above
// inherit them).
func registerDequantAMD64(t *levelTables) {
	avx2 := &t[AVX2]
	avx2.dequantize[Q8_0] = blockDequant(dequantizeQ8_0AVX2)
	avx2.dequantize[Q4_0] = blockDequant(dequantizeQ4_0AVX2)
}

// blockDequant adapts a 32-value block kernel to dequantizeFunc (callers
// pass whole blocks; DequantizeRow checks the lengths).
func blockDequant(k func(dst *float32, src *byte, blocks int)) dequantizeFunc {
	return func(dst []float32, src []byte) {
		if n := len(dst) / 32; n > 0 {
			k(&dst[0], &src[0], n)
		}
	}
}
