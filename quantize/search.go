package quantize

import "math"

// Helpers of the K-quant weight quantizers: make_qx_quants, make_q3_quants
// and make_qkx2_quants of ggml-quants.c, with no importance weights. They
// search a scale (and a min) for one sub-block. The arithmetic is float32 in
// ggml's order, each product wrapped in float32() so no target fuses it; the
// bytes then match llama-quantize's on the files checked in
// row_file_test.go.

// groupMaxEps is ggml's GROUP_MAX_EPS: a sub-block whose largest magnitude is
// below it is treated as all zero.
const groupMaxEps = 1e-15

// clampInt returns v limited to [lo, hi].
func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// makeQxQuants is make_qx_quants(n, nmax, x, L, rmseType, NULL) for
// rmseType 1 (weights x²), the only mode the reference quantizers use: it
// returns the scale and writes L[i] in [0, 2*nmax) (value = scale*(L-nmax)).
// An all-zero block returns 0 with L all 0.
func makeQxQuants(nmax int, x []float32, L []int8) float32 {
	vmax := signedMax(x)
	if float32(math.Abs(float64(vmax))) < groupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	fn := float32(nmax)
	iscale := -fn / vmax
	sumlx, suml2 := qxSums(nmax, x, iscale)
	for i, v := range x {
		L[i] = int8(nmax + clampInt(nearestInt(float32(iscale*v)), -nmax, nmax-1))
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := float32(scale * sumlx)
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fn + float32(0.1*float32(is))) / vmax
		sumlx, suml2 = qxSums(nmax, x, iscale)
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i, v := range x {
				L[i] = int8(nmax + clampInt(nearestInt(float32(iscale*v)), -nmax, nmax-1))
			}
			scale = sumlx / suml2
			best = float32(scale * sumlx)
		}
	}
	return scale
}

// qxSums returns sum(w*x*l) and sum(w*l*l) with w = x² and l the clamped
// nearest integer of iscale*x, accumulated in index order as ggml does.
func qxSums(nmax int, x []float32, iscale float32) (sumlx, suml2 float32) {
	for _, v := range x {
		l := float32(clampInt(nearestInt(float32(iscale*v)), -nmax, nmax-1))
		w := float32(v * v)
		sumlx += float32(float32(w*v) * l)
		suml2 += float32(float32(w*l) * l)
	}
	return sumlx, suml2
}

// makeQ3Quants is make_q3_quants(n, nmax, x, L, true): a first rounding at
// -nmax/max, then up to five passes that move single values to the level
// that most improves the weighted (w = x²) fit. L[i] ends in [0, 2*nmax).
func makeQ3Quants(nmax int, x []float32, L []int8) float32 {
	vmax := signedMax(x)
	if float32(math.Abs(float64(vmax))) < groupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	iscale := -float32(nmax) / vmax
	var sumlx, suml2 float32
	for i, v := range x {
		l := clampInt(nearestInt(float32(iscale*v)), -nmax, nmax-1)
		L[i] = int8(l)
		w := float32(v * v)
		sumlx += float32(float32(w*v) * float32(l))
		suml2 += float32(float32(w*float32(l)) * float32(l))
	}
	for itry := 0; itry < 5; itry++ {
		changed := 0
		for i, v := range x {
			w := float32(v * v)
			li := float32(L[i])
			slx := sumlx - float32(float32(w*v)*li)
			if slx <= 0 {
				continue
			}
			sl2 := suml2 - float32(float32(w*li)*li)
			nl := clampInt(nearestInt(float32(v*sl2)/slx), -nmax, nmax-1)
			if nl == int(L[i]) {
				continue
			}
			fl := float32(nl)
			slx += float32(float32(w*v) * fl)
			sl2 += float32(float32(w*fl) * fl)
			if sl2 > 0 && float32(float32(slx*slx)*suml2) > float32(float32(sumlx*sumlx)*sl2) {
				L[i], sumlx, suml2 = int8(nl), slx, sl2
				changed++
			}
		}
		if changed == 0 {
			break
		}
	}
	for i := range x {
		L[i] += int8(nmax)
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

// qkx2Params are the search settings of one make_qkx2_quants call.
type qkx2Params struct {
	nmax          int
	rmin, rdelta  float32
	nstep         int
	meanAbsoluteE bool // use_mad: |error| instead of error²
}

// makeQKX2Quants is make_qkx2_quants: fit x ≈ scale*L - min with L in
// [0, nmax] and min >= 0, trying nstep+1 candidate scales around
// nmax/(max-min) and keeping the one with the least weighted error. It
// returns scale and min (ggml's *the_min); laux is scratch of len(x).
func makeQKX2Quants(p qkx2Params, x, weights []float32, L, laux []uint8) (scale, theMin float32) {
	lo, hi := x[0], x[0]
	sumW := weights[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < len(x); i++ {
		lo, hi = min(lo, x[i]), max(hi, x[i])
		sumW += weights[i]
		sumX += float32(weights[i] * x[i])
	}
	lo = min(lo, 0)
	if hi == lo {
		clear(L[:len(x)])
		return 0, -lo
	}
	fn := float32(p.nmax)
	iscale := fn / (hi - lo)
	scale = 1 / iscale
	qkx2Round(p.nmax, x, iscale, lo, L)
	bestErr := qkx2Error(p.meanAbsoluteE, x, weights, L, scale, lo)
	if p.nstep < 1 {
		return scale, -lo
	}
	for is := 0; is <= p.nstep; is++ {
		iscale = (float32(p.rmin+float32(p.rdelta*float32(is))) + fn) / (hi - lo)
		qkx2Round(p.nmax, x, iscale, lo, laux)
		var sumL, sumL2, sumXL float32
		for i, v := range x {
			w, l := weights[i], float32(laux[i])
			sumL += float32(w * l)
			sumL2 += float32(float32(w*l) * l)
			sumXL += float32(float32(w*l) * v)
		}
		D := float32(sumW*sumL2) - float32(sumL*sumL)
		if D <= 0 {
			continue
		}
		thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
		thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
		if thisMin > 0 {
			thisMin = 0
			thisScale = sumXL / sumL2
		}
		if e := qkx2Error(p.meanAbsoluteE, x, weights, laux, thisScale, thisMin); e < bestErr {
			copy(L, laux[:len(x)])
			bestErr, scale, lo = e, thisScale, thisMin
		}
	}
	return scale, -lo
}

// qkx2Round sets L[i] = clamp(nearest(iscale*(x[i]-lo)), 0, nmax).
func qkx2Round(nmax int, x []float32, iscale, lo float32, L []uint8) {
	for i, v := range x {
		L[i] = uint8(clampInt(nearestInt(float32(iscale*(v-lo))), 0, nmax))
	}
}

// qkx2Error returns the weighted error sum(w * err(scale*L + lo - x)), err
// being |.| or squared, summed in index order.
func qkx2Error(mad bool, x, weights []float32, L []uint8, scale, lo float32) float32 {
	var e float32
	for i, v := range x {
		diff := float32(float32(scale*float32(L[i]))+lo) - v
		if mad {
			diff = float32(math.Abs(float64(diff)))
		} else {
			diff = float32(diff * diff)
		}
		e += float32(weights[i] * diff)
	}
	return e
}
