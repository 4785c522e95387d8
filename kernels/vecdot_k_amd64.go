//go:build !purego

package kernels

// AVX2 K-quant dot kernels (vecdot_k_amd64.s). Each vecDot<T>AVX2 is a
// vecDotFunc: the dot of n weights of type T (n a multiple of QK_K = 256)
// with n q8_K activations, as vecDot<T>Q8_KGeneric computes it; integer
// block sums are identical, only the float32 accumulation order differs
// (tolVecDotImpl). The activations must be a row written by the q8_K
// quantizer: the kernels take the weights' offsets and mins from its bsums.
// w and x hold at least the row; nothing after it is read.

//go:noescape
func vecDotQ4_KAVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ6_KAVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ5_KAVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ3_KAVX2(n int, w, x []byte) float32

//go:noescape
func vecDotQ2_KAVX2(n int, w, x []byte) float32

// vecDot2<T>AVX2 and vecDot4<T>AVX2 compute out[c] = vecDot<T>AVX2 of the nb
// super-blocks at w with the q8_K row at x + c*xStride, for c < 2 (vecDot2)
// or c < nc (vecDot4, nc = 3 or 4), unpacking each weight super-block once
// for all columns. Every column must hold nb q8_K blocks; out must hold 2 or
// nc floats.

//go:noescape
func vecDot2Q4_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q4_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot2Q6_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q6_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot2Q5_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q5_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot2Q3_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q3_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot2Q2_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q2_KAVX2(nb int, w, x *byte, xStride int, out *float32, nc int)

// The VNNI kernels are the AVX2 ones with VPDPWSSD (AVX512_VNNI on 256-bit
// vectors) in the inner step; same results bit for bit.

//go:noescape
func vecDotQ2_KVNNI(n int, w, x []byte) float32

//go:noescape
func vecDot2Q2_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q2_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDotQ3_KVNNI(n int, w, x []byte) float32

//go:noescape
func vecDot2Q3_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q3_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDotQ4_KVNNI(n int, w, x []byte) float32

//go:noescape
func vecDot2Q4_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q4_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDotQ5_KVNNI(n int, w, x []byte) float32

//go:noescape
func vecDot2Q5_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q5_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDotQ6_KVNNI(n int, w, x []byte) float32

//go:noescape
func vecDot2Q6_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

//go:noescape
func vecDot4Q6_KVNNI(nb int, w, x *byte, xStride int, out *float32, nc int)

// dotColsFunc is the type of the vecDot2/vecDot4 kernels.
type dotColsFunc func(nb int, w, x *byte, xStride int, out *float32, nc int)

// kquantDotN is the vecDotNFunc of a K-quant type built from its one-, two-
// and four-column kernels: one column calls one, two columns two, three and
// four columns four. It allocates nothing: the kernels get plain pointers.
func kquantDotN(one vecDotFunc, two, four dotColsFunc, n int, w, x []byte, xStride int, out []float32) {
	switch nc := len(out); {
	case nc == 1 || n == 0:
		for c := range out {
			out[c] = one(n, w, x[c*xStride:])
		}
	case nc == 2:
		two(n/QK_K, &w[0], &x[0], xStride, &out[0], nc)
	default:
		four(n/QK_K, &w[0], &x[0], xStride, &out[0], nc)
	}
}

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
// unpacked weight super-block, vecdot_k_amd64.s) and for the q8_K
// quantizer (quantize_q8k_amd64.s). avx2 gets the AVX2 kernels, avx512vnni
// the VPDPWSSD variants; avx512 inherits the AVX2 ones (plain AVX-512 BW
// adds nothing to these kernels). The quantizer is AVX2 for every level.
func registerKQuantsAMD64(t *levelTables) {
	avx2, vnni := &t[AVX2], &t[AVX512VNNI]
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
		{Q2_K, vecDotQ2_KVNNI, vecDot2Q2_KVNNI, vecDot4Q2_KVNNI},
		{Q3_K, vecDotQ3_KVNNI, vecDot2Q3_KVNNI, vecDot4Q3_KVNNI},
		{Q4_K, vecDotQ4_KVNNI, vecDot2Q4_KVNNI, vecDot4Q4_KVNNI},
		{Q5_K, vecDotQ5_KVNNI, vecDot2Q5_KVNNI, vecDot4Q5_KVNNI},
		{Q6_K, vecDotQ6_KVNNI, vecDot2Q6_KVNNI, vecDot4Q6_KVNNI},
	} {
		k.register(vnni)
	}
}
