package dflash

import (
	"math"
	"math/rand/v2"
)

// picker is DFlash's reduction of one drafter row to its K candidates
// (dflash-ddtree.md §4.1, the CUDA semantics): at temperature 0 the K
// highest logits (ties: lower id first) with their raw logits as values;
// at T > 0 a Gumbel-top-K draw, i.e. K tokens sampled without replacement
// from softmax(logits/T), with log softmax(logits/T) of each as values.
// logProb makes the T = 0 values log-probabilities (log softmax at T 1)
// instead of raw logits, which weights trees by what they mean.
type picker struct {
	k       int
	temp    float32
	logProb bool
	rng     *rand.Rand
	ids     []int32   // k chosen ids, best first
	vals    []float32 // their values
	score   []float32 // k ranking scores (scratch)
}

func newPicker(k int, temp float32, logProb bool, seed uint64) *picker {
	return &picker{k: k, temp: temp, logProb: logProb, rng: rand.New(rand.NewPCG(seed, 0xd1a5)),
		ids: make([]int32, k), vals: make([]float32, k), score: make([]float32, k)}
}

// pick fills p.ids and p.vals from one row of logits. When q is not nil
// and the temperature is positive, it also receives softmax(logits/T),
// the distribution the draw was made from.
func (p *picker) pick(logits, q []float32) {
	k := min(p.k, len(logits))
	n := 0 // candidates held, sorted by score descending
	for j, l := range logits {
		s := l
		if p.temp > 0 {
			s = l/p.temp + gumbel(p.rng)
		}
		if n == k && !(s > p.score[k-1]) {
			continue
		}
		i := min(n, k-1)
		for i > 0 && s > p.score[i-1] {
			p.score[i], p.ids[i] = p.score[i-1], p.ids[i-1]
			i--
		}
		p.score[i], p.ids[i] = s, int32(j)
		n = min(n+1, k)
	}
	switch {
	case p.temp > 0:
		lse := logSumExp(logits, p.temp)
		for i := range k {
			p.vals[i] = logits[p.ids[i]]/p.temp - lse
		}
		if q != nil {
			for j, l := range logits {
				q[j] = float32(math.Exp(float64(l/p.temp - lse)))
			}
		}
	case p.logProb:
		lse := logSumExp(logits, 1)
		for i := range k {
			p.vals[i] = logits[p.ids[i]] - lse
		}
	default:
		for i := range k {
			p.vals[i] = logits[p.ids[i]]
		}
	}
}

// gumbel draws −ln(−ln u), u uniform in (0, 1).
func gumbel(rng *rand.Rand) float32 {
	u := (float64(rng.Uint32()>>8) + 0.5) / (1 << 24)
	return float32(-math.Log(-math.Log(u)))
}

// logSumExp returns log Σ exp(l/t) over the row, in float64.
func logSumExp(logits []float32, t float32) float32 {
	m := float32(math.Inf(-1))
	for _, l := range logits {
		m = max(m, l/t)
	}
	var s float64
	for _, l := range logits {
		s += math.Exp(float64(l/t - m))
	}
	return m + float32(math.Log(s))
}
