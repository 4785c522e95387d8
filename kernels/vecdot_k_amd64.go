//go:build !purego

package kernels

// kquantKernels names the assembly kernels of one K-quant type at one
// instruction-set level.
type kquantKernels struct {
	t         DType
	one       vecDotFunc
	two, four dotColsFunc
}

// register fills tab's VecDot and VecDotN entries for k.t.
func (k kquantKernels) register(tab *kernelTable) {
	tab.vecDot[k.t] = k.one
	tab.vecDotN[k.t] = func(n int, w, x []byte, xStride int, out []float32) {
		kquantDotN(k.one, k.two, k.four, n, w, x, xStride, out)
	}
}

// registerKQuantsAMD64 adds the amd64 assembly for the Q2_K..Q6_K dots
// against q8_K activations (one column, and two or four columns sharing each
// unpacked weight super-block, kquant_dot_amd64.s) and for the q8_K
// quantizer (kquant_q8k_amd64.s). avx2 gets the AVX2 kernels, avx512vnni
// the VPDPWSSD variants; avx512 inherits the AVX2 ones (plain AVX-512 BW
// adds nothing to these kernels). The quantizer is AVX2 for every level.
func registerKQuantsAMD64(t *levelTables) {
	avx2, avx512 := &t[AVX2], &t[AVX512VNNI]
	for _, k := range []kquantKernels{
		{Q2_K, vecDotQ2_KAVX2, vecDot2Q2_KAVX2, vecDot4Q2_KAVX2},
		{Q3_K, vecDotQ3_KAVX2, vecDot2Q3_KAVX2, vecDot4Q3_KAVX2},
		{Q4_K, vecDotQ4_KAVX2, vecDot2Q4_KAVX2, vecDot4Q4_KAVX2},
		{Q5_K, vecDotQ5_KAVX2, vecDot2Q5_KAVX2, vecDot4Q5_KAVX2},
		{Q6_K, vecDotQ6_KAVX2, vecDot2Q6_KAVX2, vecDot4Q6_KAVX2},
	} {
		k.register(avx2)
	}
	avx2.quantize[Q8_K] = quantizeRowQ8_KAVX2
	for _, k := range []kquantKernels{
		{Q2_K, vecDotQ2_KAVX512, vecDot2Q2_KAVX512, vecDot4Q2_KAVX512},
		{Q3_K, vecDotQ3_KAVX512, vecDot2Q3_KAVX512, vecDot4Q3_KAVX512},
		{Q4_K, vecDotQ4_KAVX512, vecDot2Q4_KAVX512, vecDot4Q4_KAVX512},
		{Q5_K, vecDotQ5_KAVX512, vecDot2Q5_KAVX512, vecDot4Q5_KAVX512},
		{Q6_K, vecDotQ6_KAVX512, vecDot2Q6_KAVX512, vecDot4Q6_KAVX512},
	} {
		k.register(avx512)
	}
}
