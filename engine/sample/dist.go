package sample

// dist is llama_sampler_dist: a max-shifted float32 softmax in the current
// candidate order, summed in float64, and one uniform double u; the pick is
// the first candidate whose running (unnormalised) sum reaches u·total. A
// single candidate is returned without drawing. The returned index is into
// c; P is left unnormalised unless normalize is set.
func dist(c []Candidate, sorted bool, rng *mt19937, normalize bool) int {
	if len(c) == 1 {
		c[0].P = 1
		return 0
	}
	total := fillExp(c, sorted)
	target := total * rng.float64()
	pick := len(c) - 1 // unreachable fallback, as in llama.cpp
	var run float64
	for i := range c {
		run += float64(c[i].P)
		if run >= target {
			pick = i
			break
		}
	}
	if normalize {
		normalizeP(c, total)
	}
	return pick
}

// fillExp stores exp(logit − max) in P and returns the float64 sum.
func fillExp(c []Candidate, sorted bool) float64 {
	maxL := c[0].Logit
	if !sorted {
		for _, x := range c[1:] {
			maxL = max(maxL, x.Logit)
		}
	}
	var total float64
	for i := range c {
		p := expf(c[i].Logit - maxL)
		c[i].P = p
		total += float64(p)
	}
	return total
}

// normalizeP divides each P by total in float64, as llama.cpp's dist does.
func normalizeP(c []Candidate, total float64) {
	for i := range c {
		c[i].P = float32(float64(c[i].P) / total)
	}
}

// drawP is the dist draw over given probabilities (no softmax): the first
// candidate whose float64 running sum of P reaches u·ΣP.
func drawP(c []Candidate, rng *mt19937) int {
	if len(c) <= 1 {
		return 0
	}
	var total float64
	for _, x := range c {
		total += float64(x.P)
	}
	target := total * rng.float64()
	var run float64
	for i, x := range c {
		run += float64(x.P)
		if run >= target {
			return i
		}
	}
	return len(c) - 1
}
