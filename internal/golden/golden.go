// Package golden reads the llama.cpp logits goldens and greedy references in
// ../shared/models and compares an engine's output with them, with the
// tolerances of ../shared/models/goldens/README.md. Parity tests of every
// architecture use it.
package golden

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/waggle-llm/waggle/kernels"
)

// File is one goldens/<model>.json.
type File struct {
	Model  string `json:"model"`
	NVocab int    `json:"n_vocab"`
	Cases  []Case `json:"cases"`
}

// Case is one prompt of a golden file.
type Case struct {
	Prompt     string     `json:"prompt"`
	AddBOS     bool       `json:"add_bos"`
	Tokens     []int32    `json:"tokens"`
	NPrompt    int        `json:"n_prompt"`
	Stop       string     `json:"stop"`
	Positions  []Position `json:"positions"`
	GenText    string     `json:"generated_text"`
	NGenerated int        `json:"n_generated"`
}

// Position holds llama.cpp's logits at one position: the top-20 [id, logit]
// pairs, the maximum and the log-sum-exp over the vocabulary.
type Position struct {
	I   int          `json:"i"`
	Top [][2]float64 `json:"top"`
	Max float64      `json:"max"`
	LSE float64      `json:"lse"`
}

// Margin returns the gap between the first and second logit.
func (p *Position) Margin() float64 {
	if len(p.Top) < 2 {
		return math.Inf(1)
	}
	return p.Top[0][1] - p.Top[1][1]
}

// Load reads a golden file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// Diff is the comparison of one position.
type Diff struct {
	MaxAbs  float64 // max |Δ| over the golden's top ids, max and lse
	Top1OK  bool    // our argmax equals the golden's
	Clear   bool    // the golden's top-1/top-2 margin exceeds twice the tolerance
	WorstID int     // id with the largest |Δ| (-1 for max/lse)
}

// ComparePosition compares our logits row with a golden position.
func ComparePosition(logits []float32, g *Position, tol float64) Diff {
	d := Diff{WorstID: -1, Clear: g.Margin() > 2*tol}
	for _, pair := range g.Top {
		id := int(pair[0])
		if id < 0 || id >= len(logits) {
			d.MaxAbs, d.WorstID = math.Inf(1), id
			return d
		}
		if e := math.Abs(float64(logits[id]) - pair[1]); e > d.MaxAbs || math.IsNaN(e) {
			d.MaxAbs, d.WorstID = e, id
		}
	}
	mx, lse := MaxLSE(logits)
	d.MaxAbs = math.Max(d.MaxAbs, math.Max(math.Abs(mx-g.Max), math.Abs(lse-g.LSE)))
	d.Top1OK = len(g.Top) > 0 && kernels.ArgMax(logits) == int(g.Top[0][0])
	return d
}

// MaxLSE returns the maximum and the log-sum-exp (in float64) of a row.
func MaxLSE(x []float32) (mx, lse float64) {
	mx = math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - mx)
	}
	return mx, mx + math.Log(s)
}

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
