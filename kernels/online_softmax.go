package kernels

import "math"

// OnlineSoftMax is one step of the online (flash-attention) softmax over a
// chunk of raw attention scores p, as used by attention that walks the
// cached positions chunk by chunk and never holds a whole row of scores.
// With m the running maximum of the scaled scores seen before (-Inf before
// the first chunk), it sets, in this order:
//
//	p[i]  = scale·p[i]                 (one float32 product, as Scale)
//	mNew  = max(m, max_i p[i])         (exact, so every implementation agrees,
//	                                    up to the sign of a zero maximum)
//	p[i]  = expf(p[i] − mNew)          (0 for a -Inf score: a masked row)
//	*m    = mNew
//
// and returns sum = Σ p[i] accumulated in float64 (as SoftMax sums), and
// rescale = expf(mOld − mNew), the factor by which the caller multiplies
// the sums and weighted values of the earlier chunks (1 exactly when the
// maximum did not move, 0 when m was -Inf and the chunk holds a finite
// score). When every score so far is -Inf, mNew is -Inf, p becomes all 0,
// sum is 0 and rescale 1, so a fully masked chunk changes nothing.
//
// The generic expf is math.Exp rounded to float32; the AVX2 and NEON
// implementations use SoftMax's polynomial (about 1.5 ulp) and a
// different order of the float64 sum, within tolSoftMax of the generic
// one per element and tolDotImpl on the sum. rescale is computed here,
// once per chunk, by math.Exp for every implementation.
//
// Preconditions: scale > 0 and finite; p holds no NaN and no +Inf; *m is
// -Inf or finite. An empty p returns (0, 1) and leaves *m alone.
func OnlineSoftMax(p []float32, scale float32, m *float32) (sum float64, rescale float32) {
	if len(p) == 0 {
		return 0, 1
	}
	mOld := *m
	mNew, sum := active.onlineSoftMax(p, scale, mOld)
	*m = mNew
	if mNew == mOld {
		return sum, 1
	}
	return sum, float32(math.Exp(float64(mOld - mNew)))
}

// onlineSoftMaxGeneric is the reference of OnlineSoftMax's table entry: it
// scales x, returns the new maximum max(m, x…) and replaces x with the
// exponentials, returning also their float64 sum.
func onlineSoftMaxGeneric(x []float32, s, m float32) (float32, float64) {
	m = scaleMaxTail(x, s, m)
	return m, expSumTail(x, m)
}

// scaleMaxTail sets x[i] *= s and returns max(m, x…) with the scalar
// steps; the vector wrappers use it for the values past their last whole
// vector.
func scaleMaxTail(x []float32, s, m float32) float32 {
	for i := range x {
		x[i] *= s
		if x[i] > m {
			m = x[i]
		}
	}
	return m
}

// expSumTail sets x[i] = expf(x[i]-m) with the correctly rounded scalar
// expf and returns their float64 sum; m = -Inf (no finite score) zeroes x.
// The vector wrappers use it for the values past their last whole vector.
func expSumTail(x []float32, m float32) float64 {
	if math.IsInf(float64(m), -1) {
		clear(x)
		return 0
	}
	var sum float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - m)))
		x[i] = e
		sum += float64(e)
	}
	return sum
}
