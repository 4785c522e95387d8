package golden

import "slices"

// ExactPrefix is how many leading positions of every case of a hybrid
// (qwen35) golden must match to 1e-4 even for quantized files: the goldens
// README's rounding flips appear suddenly and persist, and on those
// fixtures none comes before position 8, so a wiring mistake cannot hide
// behind the loose quantized bounds. (On the llama-family fixtures flips
// do come earlier.)
const ExactPrefix = 8

// ExactPrefixTolerance bounds |Δlogit| over the first ExactPrefix positions.
const ExactPrefixTolerance = 1e-4

// Stats pools the per-position comparison of all cases of one golden file,
// as the goldens README measures them ("max / median over the positions").
type Stats struct {
	Diffs []float64 // max |Δlogit| per position
	Flips int       // positions with a clear margin whose argmax differs
	Early float64   // worst |Δ| over the first ExactPrefix positions of each case
}

// Add compares the logits of every position of case c (row i: logits(i)).
func (st *Stats) Add(c *Case, logits func(i int) []float32, tol float64) {
	for i := range c.Positions {
		d := ComparePosition(logits(i), &c.Positions[i], tol)
		st.Diffs = append(st.Diffs, d.MaxAbs)
		if i < ExactPrefix {
			st.Early = max(st.Early, d.MaxAbs)
		}
		if d.Clear && !d.Top1OK {
			st.Flips++
		}
	}
}

// Worst returns the largest per-position difference (0 for none).
func (st *Stats) Worst() float64 {
	if len(st.Diffs) == 0 {
		return 0
	}
	return slices.Max(st.Diffs)
}

// Median returns the median per-position difference.
func (st *Stats) Median() float64 { return Median(st.Diffs) }
