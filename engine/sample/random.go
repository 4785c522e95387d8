package sample

// This file holds the stages that draw or adapt to their own draws: XTC,
// Mirostat 1 and 2, and the discrete draw they share with adaptive-p.

// xtc is llama_sampler_xtc ("exclude top choices"): with probability prob
// (one uniform float from the stage's own RNG, drawn whenever at least two
// candidates are left) it removes every candidate at or above the
// probability threshold except the least likely of them, unless fewer than
// minKeep would remain. It sorts the candidates.
func (cs *cands) xtc(prob, threshold float32, minKeep int, rng *mt19937) {
	if len(cs.c) < 2 {
		return
	}
	if rng.float32() > prob {
		return
	}
	cs.sortSoftmax()
	last := 0
	for i := range cs.c {
		if cs.c[i].P < threshold {
			break
		}
		last = i
	}
	if len(cs.c)-last >= minKeep && last > 0 {
		cs.c = cs.c[last:]
	}
}

// sortSoftmax is llama_sampler_softmax_impl(cur_p, true): sort, then fill P.
func (cs *cands) sortSoftmax() {
	if !cs.sorted {
		cs.sortAll()
	}
	cs.softmax()
}

// mirostatM is the number of most likely tokens Mirostat 1 fits its Zipf
// exponent on (llama.cpp's common sampler passes 100).
const mirostatM = 100

// mirostatV1 is llama_sampler_mirostat: estimate the Zipf exponent s from
// the top mirostatM probabilities, keep the k tokens that make the expected
// surprise mu, draw, and move mu toward the target by the observed surprise.
func (s *Sampler) mirostatV1() int32 {
	cs := &s.cs
	cs.sortSoftmax()
	var sumTB, sumTT float32
	for i := 0; i < mirostatM-1 && i < len(cs.c)-1; i++ {
		t := logf(float32(i+2) / float32(i+1))
		b := logf(cs.c[i].P / cs.c[i+1].P)
		sumTB += float32(t * b)
		sumTT += float32(t * t)
	}
	sHat := sumTB / sumTT
	eps := sHat - 1
	k := powf(float32(eps*powf(2, s.mu))/(1-powf(float32(s.nVocab), -eps)), 1/sHat)
	cs.topK(max(cvttss2si(k), 1))
	cs.softmax()
	return s.mirostatDraw()
}

// mirostatV2 is llama_sampler_mirostat_v2: keep the most likely tokens up
// to the first whose surprise exceeds mu (at least one), draw, update mu.
func (s *Sampler) mirostatV2() int32 {
	cs := &s.cs
	cs.sortSoftmax()
	n := 0
	for n < len(cs.c) && !(-log2f(cs.c[n].P) > s.mu) {
		n++
	}
	cs.c = cs.c[:max(n, 1)]
	cs.softmax()
	return s.mirostatDraw()
}

// mirostatDraw draws from the surviving candidates and updates mu.
func (s *Sampler) mirostatDraw() int32 {
	c := s.cs.c
	i := discreteDraw(c, &s.rng)
	e := -log2f(c[i].P) - s.p.MirostatTau
	s.mu -= float32(s.p.MirostatEta * e)
	return c[i].ID
}

// discreteDraw is std::discrete_distribution<int> over the P values, as
// libstdc++ builds it: weights widened to double, normalised by their sum,
// cumulated, the last cumulative value forced to 1, and the first index
// whose cumulative value reaches one uniform double. Fewer than two
// candidates draw nothing and give index 0.
func discreteDraw(c []Candidate, rng *mt19937) int {
	if len(c) < 2 {
		return 0
	}
	var sum float64
	for _, x := range c {
		sum += float64(x.P)
	}
	u := rng.float64()
	var cum float64
	for i := 0; i < len(c)-1; i++ {
		cum += float64(c[i].P) / sum
		if cum >= u {
			return i
		}
	}
	return len(c) - 1
}

// cvttss2si converts like x86's truncating float-to-int32 instruction,
// which llama.cpp's int(k) compiles to: NaN and out-of-range values give
// math.MinInt32.
func cvttss2si(x float32) int {
	if x != x || x >= 2147483648 || x < -2147483648 {
		return -2147483648
	}
	return int(x)
}
