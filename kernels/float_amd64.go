//go:build !purego

package kernels

// registerFloatOpsAMD64 adds the AVX2+FMA+F16C assembly for F32/F16/BF16
// dots (single and four-column), Dot, Add, Mul, Scale, SwiGLU, RMSNorm,
// SoftMax, OnlineSoftMax and the F16/BF16 row conversions to the avx2 row;
// the levels above inherit them. 512-bit variants are not written yet: a decode-time
// dot streams its weight row from memory, which the 256-bit loops already
// keep up with, and whether 512-bit FMAs pay (they are split in two on AMD
// Zen 4 and may lower the clock on Intel) is to be measured per kernel
// before one is added. The AVX-512 BF16 instructions
// (VDPBF16PS, VCVTNE2PS2BF16) are deliberately not used: they treat
// subnormal inputs as zero and flush subnormal results, which neither the
// generic kernels nor ggml's AVX2/AVX-512F paths do.
func registerFloatOpsAMD64(t *levelTables) {
	avx2 := &t[AVX2]
	avx2.vecDot[F32] = vecDotF32AMD64
	avx2.vecDot[F16] = vecDotF16AMD64
	avx2.vecDot[BF16] = vecDotBF16AMD64
	avx2.vecDotN[F32] = vecDotNF32AMD64
	avx2.vecDotN[F16] = vecDotNF16AMD64
	avx2.vecDotN[BF16] = vecDotNBF16AMD64
	avx2.quantize[F16] = quantizeRowF16AMD64
	avx2.quantize[BF16] = quantizeRowBF16AMD64
	avx2.dequantize[F16] = dequantizeRowF16AMD64
	avx2.dequantize[BF16] = dequantizeRowBF16AMD64
	avx2.dot = dotAMD64
	avx2.add = addAMD64
	avx2.mul = mulAMD64
	avx2.scale = scaleAMD64
	avx2.swiGLU = swiGLUAMD64
	avx2.rmsNorm = rmsNormAMD64
	avx2.softMax = softMaxAMD64
	avx2.onlineSoftMax = onlineSoftMaxVec
}
