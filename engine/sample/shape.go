package sample

import (
	"cmp"
	"math"
	"slices"
)

// softmax fills P with a max-shifted softmax in float32, summing in the
// current order (llama_sampler_softmax_impl without sorting).
func (cs *cands) softmax() {
	maxL := cs.c[0].Logit
	if !cs.sorted {
		for _, c := range cs.c[1:] {
			maxL = max(maxL, c.Logit)
		}
	}
	var sum float32
	for i := range cs.c {
		p := expf(cs.c[i].Logit - maxL)
		cs.c[i].P = p
		sum += p
	}
	for i := range cs.c {
		cs.c[i].P /= sum
	}
}

// temperature divides the logits by t; t <= 0 keeps the first highest logit
// in the current order and sets the others to -Inf (llama_sampler_temp_impl).
func (cs *cands) temperature(t float32) {
	if t > 0 {
		for i := range cs.c {
			cs.c[i].Logit /= t
		}
		return
	}
	best := 0
	for i := 1; i < len(cs.c); i++ {
		if cs.c[i].Logit > cs.c[best].Logit {
			cs.c[best].Logit = negInf
			best = i
		} else {
			cs.c[i].Logit = negInf
		}
	}
}

// dynatemp picks a temperature in [max(0, t-r), t+r] from the normalised
// entropy raised to exp, then applies it (llama_sampler_temp_ext, r > 0).
// It sorts the candidates.
func (cs *cands) dynatemp(t, r, exp float32) {
	if len(cs.c) <= 1 {
		return
	}
	lo, hi := max(0, t-r), t+r
	maxEntropy := -logf(1 / float32(len(cs.c)))
	if !cs.sorted {
		cs.sortAll()
	}
	cs.softmax()
	var entropy float32
	for _, c := range cs.c {
		if c.P > 0 {
			entropy -= float32(c.P * logf(c.P))
		}
	}
	norm := entropy / maxEntropy
	cs.temperature(lo + float32((hi-lo)*powf(norm, exp)))
}

// typicalScore pairs a candidate index with |−log p − H|.
type typicalScore struct {
	score float32
	idx   int32
}

// typical keeps the locally typical set: candidates ordered by how far their
// information content is from the entropy, cut once the float32 mass exceeds
// p (llama_sampler_typical). The result is in that order, not by logit.
// scores and out are scratch buffers of at least len(cs.c).
func (cs *cands) typical(p float32, minKeep int, scores []typicalScore, out []Candidate) {
	if p >= 1 {
		return
	}
	if !cs.sorted {
		cs.sortAll()
	}
	cs.softmax()
	var entropy float32
	for _, c := range cs.c {
		if c.P > 0 { // llama.cpp: 0·log 0 gives NaN here
			entropy += float32(-c.P * logf(c.P))
		}
	}
	scores = scores[:len(cs.c)]
	for i, c := range cs.c {
		scores[i] = typicalScore{abs32(-logf(c.P) - entropy), int32(i)}
	}
	slices.SortFunc(scores, func(a, b typicalScore) int {
		if a.score != b.score {
			return cmp.Compare(a.score, b.score)
		}
		return cmp.Compare(a.idx, b.idx)
	})
	var cum float32
	last := len(scores)
	for i, s := range scores {
		cum += cs.c[s.idx].P
		if cum > p && (minKeep == 0 || i >= minKeep-1) {
			last = i + 1
			break
		}
	}
	out = out[:last]
	for i, s := range scores[:last] {
		out[i] = cs.c[s.idx]
	}
	cs.c = cs.c[:copy(cs.c, out)]
	cs.sorted, cs.ident = false, false
}

// topNSigma sets to -Inf every logit below max − n·σ, where the mean and σ
// are over the finite logits, then sorts (llama_sampler_top_n_sigma). It
// keeps the array length.
func (cs *cands) topNSigma(n float32) {
	if n <= 0 || len(cs.c) <= 1 {
		return
	}
	maxL := cs.c[0].Logit
	var sum float32
	valid := 0
	for _, c := range cs.c {
		if c.Logit != negInf {
			maxL = max(maxL, c.Logit)
			sum += c.Logit
			valid++
		}
	}
	var mean, sd float32
	if valid > 0 {
		mean = sum / float32(valid)
		var acc float32
		for _, c := range cs.c {
			if c.Logit != negInf {
				d := float64(c.Logit - mean)
				acc = float32(float64(acc) + float64(d*d)) // no fused multiply-add
			}
		}
		sd = float32(math.Sqrt(float64(acc / float32(valid))))
	}
	limit := maxL - float32(n*sd)
	for i := range cs.c {
		if cs.c[i].Logit < limit {
			cs.c[i].Logit = negInf
		}
	}
	cs.sortAll()
	cs.softmax()
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
