package kernels

import "fmt"

// attnValuesFunc sets dst[d] = Σ_j p[j]·V_j[d] for d < len(dst) over the
// rows j < len(p) of v, row j starting at byte j*vStride, in the row's type.
// See AttnValues for the order and rounding.
type attnValuesFunc func(dst, p []float32, v []byte, vStride int)

// attnScoresFunc is AttnScores after the checks (k and q long enough). An
// implementation's entry must give exactly the bits of its vecDot entry
// per key; where it is nil AttnScores loops over vecDot.
type attnScoresFunc func(dst []float32, k []byte, kStride int, q []byte, n int)

// AttnScores sets dst[j] = VecDot(t, n, k[j*kStride:], q) for every j <
// len(dst): the dot of one query (n values in t.VecDotType(), see
// QuantizeRow) with len(dst) keys of type t laid out kStride bytes apart,
// as in a KV cache row of several heads. Each dst[j] has exactly the bits
// of that VecDot call; the arguments are checked once instead of per key.
//
// Preconditions (violations panic): those of VecDot for one key, kStride
// >= t.RowBytes(n), and len(k) >= (len(dst)-1)*kStride + t.RowBytes(n).
func AttnScores(t DType, dst []float32, k []byte, kStride int, q []byte, n int) {
	if len(dst) == 0 {
		return
	}
	wn, xn := checkVecDot("AttnScores", t, n, -1, q)
	checkStrided("AttnScores", t, len(dst), wn, kStride, len(k))
	q = q[:xn]
	if g := active.attnScores[t]; g != nil {
		g(dst, k, kStride, q, n)
		return
	}
	f := active.vecDot[t]
	for j := range dst {
		dst[j] = f(n, k[j*kStride:j*kStride+wn], q)
	}
}

// AttnValues sets dst[d] = Σ_j p[j]·V_j[d] for d < len(dst), where V_j is
// the row of len(dst) values of type t (F32 or F16) at v[j*vStride:], for
// j < len(p): the weighted sum of the value rows of one attention head.
// Per output element the sum runs over j in order, starting from zero, and
// every product is rounded to float32 before it is added:
//
//	for d := range dst {
//		acc := float32(0)
//		for j := range p {
//			acc += float32(p[j] * V_j[d])
//		}
//		dst[d] = acc
//	}
//
// so the result does not depend on the implementation or on how the rows
// were batched. (The AVX2 F16 kernel fuses the multiply-add; that gives
// the same bits when p holds f16 values, as it does after the caller
// rounds the probabilities to the f16 cache type the way ggml does, since
// the product of two f16 values is exact in float32.)
//
// Preconditions (violations panic): t is F32 or F16, vStride >=
// t.RowBytes(len(dst)), len(v) >= (len(p)-1)*vStride + t.RowBytes(len(dst)).
// dst must not overlap p or v.
func AttnValues(t DType, dst, p []float32, v []byte, vStride int) {
	if t != F32 && t != F16 {
		panic(fmt.Sprintf("kernels: AttnValues not implemented for %v", t))
	}
	if len(p) > 0 {
		checkStrided("AttnValues", t, len(p), t.RowBytes(len(dst)), vStride, len(v))
	}
	active.attnValues[t](dst, p, v, vStride)
}

// checkStrided panics unless rows rows of rb bytes, stride bytes apart,
// fit in have bytes.
func checkStrided(op string, t DType, rows, rb, stride, have int) {
	if stride < rb {
		panic(fmt.Sprintf("kernels: %s %v: stride %d is below the row size %d", op, t, stride, rb))
	}
	if need := (rows-1)*stride + rb; have < need {
		panic(fmt.Sprintf("kernels: %s %v: %d rows of %d bytes, %d apart, need %d bytes, have %d", op, t, rows, rb, stride, need, have))
	}
}

// attnValuesGeneric holds the reference AttnValues kernels.
var attnValuesGeneric = [dtypeLimit]attnValuesFunc{
	F32: attnValuesF32Generic,
	F16: attnValuesF16Generic,
}

func attnValuesF32Generic(dst, p []float32, v []byte, vStride int) {
	clear(dst)
	for j, pj := range p {
		row := v[j*vStride : j*vStride+4*len(dst)]
		for d := range dst {
			dst[d] += float32(pj * f32At(row[4*d:]))
		}
	}
}

func attnValuesF16Generic(dst, p []float32, v []byte, vStride int) {
	clear(dst)
	for j, pj := range p {
		row := v[j*vStride : j*vStride+2*len(dst)]
		for d := range dst {
			dst[d] += float32(pj * f16At(row[2*d:]))
		}
	}
}
