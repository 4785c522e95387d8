package diffusion

import (
	"cmp"
	"math"
	"slices"
)

// candidate is one token of the sampler chain (llama_token_data).
type candidate struct {
	id    int32
	logit float32
	p     float32
}

// chain is the sampler llama-diffusion-cli builds for every canvas
// position: top_k(k) if k > 0, then top_p(p, min_keep 1) if p < 1, then
// temperature T if T > 0, then dist(seed). Temperature comes after the
// truncations, and no temperature stage at all (T <= 0) means dist draws
// from the softmax at T = 1, not greedily; top_k 1 is the greedy chain.
// The stages compute what libllama's do, in float32 where it does, so a
// seed reproduces its draws. Ties in logit are ordered by lower id
// (llama.cpp's sorts are not stable; any order matches it there).
type chain struct {
	topK  int
	topP  float32
	temp  float32
	skip  int32   // a token id never proposed (-1: none)
	rng   mt19937 // dist's own generator, seeded with the seed
	cands []candidate
	cur   []candidate // the survivors of the last sample
	sel   int         // index of the drawn token in cur
}

func newChain(topK int, topP, temp float32, seed uint32, nVocab int, skip int32) *chain {
	c := &chain{topK: topK, topP: topP, temp: temp, skip: skip, cands: make([]candidate, nVocab)}
	c.rng.seed(seed)
	return c
}

// sample runs the chain over one logits row and returns the drawn token;
// c.cur and c.sel then hold the survivors and the pick, with p the
// normalised probability of each survivor (as dist leaves them).
func (c *chain) sample(logits []float32) int32 {
	cs := c.cands[:len(logits)]
	for i, l := range logits {
		cs[i] = candidate{id: int32(i), logit: l}
	}
	if c.skip >= 0 && int(c.skip) < len(cs) {
		cs[c.skip].logit = float32(math.Inf(-1))
	}
	sorted := false
	if c.topK > 0 {
		k := min(c.topK, len(cs))
		sortTop(cs, k)
		cs, sorted = cs[:k], true
	}
	if c.topP < 1 {
		cs, sorted = topP(cs, sorted, c.topP), true
	}
	if c.temp > 0 {
		for i := range cs {
			cs[i].logit /= c.temp
		}
	}
	c.cur, c.sel = cs, dist(cs, sorted, &c.rng)
	return cs[c.sel].id
}

// topP is llama_sampler_top_p with min_keep 1: a float32 softmax in the
// current order, then the shortest descending prefix whose float32
// cumulative probability reaches p.
func topP(cs []candidate, sorted bool, p float32) []candidate {
	softmax(cs, sorted)
	if !sorted {
		sortTop(cs, len(cs))
	}
	var cum float32
	for i := range cs {
		cum += cs[i].p
		if cum >= p {
			return cs[:i+1]
		}
	}
	return cs
}

// softmax is llama_sampler_softmax_impl without sorting: p = exp(l − max)
// summed and divided in float32.
func softmax(cs []candidate, sorted bool) {
	maxL := maxLogit(cs, sorted)
	var sum float32
	for i := range cs {
		cs[i].p = expf(cs[i].logit - maxL)
		sum += cs[i].p
	}
	for i := range cs {
		cs[i].p /= sum
	}
}

func maxLogit(cs []candidate, sorted bool) float32 {
	m := cs[0].logit
	if !sorted {
		for _, c := range cs[1:] {
			m = max(m, c.logit)
		}
	}
	return m
}

// dist is llama_sampler_dist: float32 exp(l − max), summed in float64,
// one uniform double u, and the first candidate whose running sum reaches
// u·sum; every p is then normalised. A single candidate is taken without
// a draw.
func dist(cs []candidate, sorted bool, rng *mt19937) int {
	if len(cs) == 1 {
		cs[0].p = 1
		return 0
	}
	maxL := maxLogit(cs, sorted)
	var sum float64
	for i := range cs {
		cs[i].p = expf(cs[i].logit - maxL)
		sum += float64(cs[i].p)
	}
	target := sum * rng.float64()
	pick, run := len(cs)-1, 0.0
	found := false
	for i := range cs {
		if !found {
			run += float64(cs[i].p)
			if run >= target {
				pick, found = i, true
			}
		}
		cs[i].p = float32(float64(cs[i].p) / sum)
	}
	return pick
}

// confidence scores the last sample for llama-diffusion-cli's algorithms:
// the drawn token's probability (Confidence, Origin), the negated
// Σ p·ln(p + 1e-10) over the survivors in float32 (Entropy: the highest
// entropy scores highest), or p[0] − p[1] (Margin; meaningful only on a
// sorted list).
func (c *chain) confidence(alg Algorithm) float32 {
	switch alg {
	case Entropy:
		var e float32
		for _, x := range c.cur {
			e += x.p * logf(x.p+1e-10)
		}
		return -e
	case Margin:
		if len(c.cur) > 1 {
			return c.cur[0].p - c.cur[1].p
		}
		return c.cur[0].p
	default:
		return c.cur[c.sel].p
	}
}

// before orders candidates by descending logit, ties by lower id.
func before(a, b candidate) int {
	if a.logit != b.logit {
		if a.logit > b.logit {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.id, b.id)
}

// sortTop moves the k best candidates to the front in descending order.
func sortTop(cs []candidate, k int) {
	if k >= len(cs) || k > len(cs)/8 {
		slices.SortFunc(cs, before)
		return
	}
	// Select: keep the k best seen so far at the front, then sort them.
	// A candidate below the current k-th best is rejected in O(1), which
	// is what almost every candidate of a real logits row is.
	slices.SortFunc(cs[:k], before)
	for i := k; i < len(cs); i++ {
		if before(cs[i], cs[k-1]) >= 0 {
			continue
		}
		j, _ := slices.BinarySearchFunc(cs[:k], cs[i], before)
		x := cs[i]
		cs[i] = cs[k-1]
		copy(cs[j+1:k], cs[j:k-1])
		cs[j] = x
	}
}

func expf(x float32) float32 { return float32(math.Exp(float64(x))) }
func logf(x float32) float32 { return float32(math.Log(float64(x))) }
