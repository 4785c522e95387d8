//go:build !purego

package kernels

// registerFloatOpsARM64 adds the NEON assembly for the F32, F16 and BF16
// dots, Dot, Add, Mul, Scale and the F16 and BF16 row conversions to the
// neon table (neondot inherits them), with four-column F32/F16/BF16
// VecDotN kernels whose columns take the one-column dot's exact steps.
// The BF16 kernels widen with ZIP (exact) rather than the ARMv8.6 BF16
// instructions (BFDOT, BFCVT), which round products and flush subnormals
// differently from the generic kernels and which few cores have.
func registerFloatOpsARM64(t *levelTables) {
	neon := &t[NEON]
	neon.vecDot[F32] = vecDotF32NEON
	neon.vecDot[F16] = vecDotF16NEON
	neon.vecDot[BF16] = vecDotBF16NEON
	neon.vecDotN[F32] = vecDotNF32NEON
	neon.vecDotN[F16] = vecDotNF16NEON
	neon.vecDotN[BF16] = vecDotNBF16NEON
	neon.dot = dotNEON
	neon.add = addNEON
	neon.mul = mulNEON
	neon.scale = scaleNEON
	neon.quantize[F16] = quantizeRowF16NEON
	neon.dequantize[F16] = dequantizeRowF16NEON
	neon.quantize[BF16] = quantizeRowBF16NEON
	neon.dequantize[BF16] = dequantizeRowBF16NEON
}

// registerActivationsARM64 adds the NEON SwiGLU, SoftMax, OnlineSoftMax
// (online_softmax_arm64.go) and RMSNorm (float_vec_arm64.go) to the neon
// table; neondot inherits them.
func registerActivationsARM64(t *levelTables) {
	neon := &t[NEON]
	neon.swiGLU = swiGLUNEON
	neon.softMax = softMaxNEON
	neon.onlineSoftMax = onlineSoftMaxVec
	neon.rmsNorm = rmsNormNEON
}
