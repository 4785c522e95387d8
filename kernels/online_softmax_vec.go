//go:build !purego && (amd64 || arm64)

package kernels

import "math"

// onlineSoftMaxVec is onlineSoftMaxGeneric with the scaling, the maximum
// and the exponentials of the whole multiples of 8 values in the
// architecture's vector passes (scaleMax8, expSum8); the values past them
// take the scalar path.
func onlineSoftMaxVec(x []float32, s, m float32) (float32, float64) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		if v := scaleMax8(&x[0], n8, s); v > m {
			m = v
		}
	}
	m = scaleMaxTail(x[n8:], s, m)
	if n8 == 0 || math.IsInf(float64(m), -1) {
		return m, expSumTail(x, m)
	}
	sum := expSum8(&x[0], n8, m)
	return m, sum + expSumTail(x[n8:], m)
}
