package diffusion

import "math"

// rowStats are the statistics of one logits row at an inverse temperature
// invT, from streaming passes over the row (no probability vector is
// stored): the argmax (ties to the lower id) and the two largest logits
// among the tokens other than skip (the mask token: a candidate that would
// leave the position masked), the softmax normaliser S = Σ exp((l −
// max)·invT) and the entropy of that softmax over the whole row, in
// float64.
type rowStats struct {
	argmax       int32
	max, second  float32 // the two largest candidate logits
	top          float32 // the row's largest logit (the softmax's shift)
	sum, entropy float64
}

// stats computes rowStats: one pass for the maximum, one for the sums.
// The entropy is H = ln S − (Σ z·e^z)/S with z = (l − max)·invT, which
// needs no second normalisation pass.
func stats(logits []float32, invT float64, skip int32) rowStats {
	st := rowStats{max: float32(math.Inf(-1)), second: float32(math.Inf(-1))}
	top := float32(math.Inf(-1)) // over the whole row, for the sums
	for i, l := range logits {
		top = max(top, l)
		switch {
		case int32(i) == skip:
		case l > st.max:
			st.second, st.max, st.argmax = st.max, l, int32(i)
		case l > st.second:
			st.second = l
		}
	}
	m := float64(top)
	var s, zs float64
	for _, l := range logits {
		z := (float64(l) - m) * invT
		e := math.Exp(z)
		s += e
		zs += z * e
	}
	st.sum, st.top = s, top
	st.entropy = math.Log(s) - zs/s
	return st
}

// pMax is the softmax probability of the argmax at inverse temperature
// invT (the stats' own).
func (st *rowStats) pMax(invT float64) float64 {
	return math.Exp((float64(st.max)-float64(st.top))*invT) / st.sum
}

// margin is the difference between the two largest probabilities of the
// candidates, at inverse temperature invT.
func (st *rowStats) margin(invT float64) float64 {
	top := float64(st.top)
	return (math.Exp((float64(st.max)-top)*invT) - math.Exp((float64(st.second)-top)*invT)) / st.sum
}

// refConfidence is the reference decoders' confidence of the argmax
// candidate at temperature 1: its probability (Confidence, the LLaDA
// low_confidence and Dream maskgit_plus rule), the top-two probability
// margin (Margin, Dream's topk_margin) or the negated entropy (Entropy,
// Dream's entropy rule: the lowest entropy unmasks first). Random and
// Origin do not rank by the logits.
func refConfidence(st *rowStats, alg Algorithm) float64 {
	switch alg {
	case Margin:
		return st.margin(1)
	case Entropy:
		return -st.entropy
	default:
		return st.pMax(1)
	}
}

// sampleInverse draws from softmax(l·invT) by inverting the cumulative sum
// of the unnormalised exponentials with one uniform u in [0, 1): the first
// token whose running sum exceeds u·S (the last token if rounding leaves
// none). st must be the row's stats at the same invT.
func sampleInverse(logits []float32, st *rowStats, invT float64, u float64) int32 {
	target := u * st.sum
	m := float64(st.top)
	var run float64
	for i, l := range logits {
		run += math.Exp((float64(l) - m) * invT)
		if run > target {
			return int32(i)
		}
	}
	return int32(len(logits) - 1)
}
