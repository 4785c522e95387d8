package golden

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
)

// Eagle3 is one goldens-eagle3/<name>.json: mainline llama.cpp's EAGLE-3
// speculative decoding of one prompt (see that folder's README): the
// prefill's fused features and, per draft/verify cycle, every draft
// decode's top-20 logits over the target vocabulary and pre-norm state.
type Eagle3 struct {
	Prompt       string  `json:"prompt"`
	PromptTokens []int32 `json:"prompt_tokens"`
	NDraftMax    int     `json:"n_draft_max"`
	NPredict     int     `json:"n_predict"`
	PrefillFC    struct {
		NRows   int       `json:"n_rows"`
		Row0    []float32 `json:"row0_first16"`
		RowLast []float32 `json:"row_last_first16"`
	} `json:"prefill_fc_out"`
	Cycles    []Eagle3Cycle `json:"cycles"`
	Generated []int32       `json:"generated"`
}

// Eagle3Cycle is one draft/verify cycle.
type Eagle3Cycle struct {
	Cycle     int          `json:"cycle"`
	NPast     int          `json:"n_past"`  // position of IDLast
	IDLast    int32        `json:"id_last"` // the token the draft continues
	Draft     []int32      `json:"draft"`   // the drafted ids verified (may be cut by the -n budget)
	NAccepted int          `json:"n_accepted"`
	TargetIDs []int32      `json:"target_ids"` // accepted drafts, then the target's own token
	Steps     []Eagle3Step `json:"steps"`
}

// Eagle3Step is one draft decode: step 0 pairs IDLast with the pending
// feature at NPast-1, step s ≥ 1 the previous draft token with the
// previous step's state at NPast-1+s.
type Eagle3Step struct {
	Step    int          `json:"step"`
	Top20   [][2]float64 `json:"top20"` // [target id, logit], by logit then id
	Prenorm []float32    `json:"prenorm_first16"`
}

// LoadEagle3 reads an EAGLE-3 golden file.
func LoadEagle3(path string) (*Eagle3, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g Eagle3
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(g.PromptTokens) < 2 || len(g.Cycles) == 0 {
		return nil, fmt.Errorf("%s: no prompt or no cycles", path)
	}
	return &g, nil
}

// Top20 returns the 20 highest (id, logit) pairs of logits, by logit
// descending then id ascending, skipping -Inf: the golden's order.
func Top20(logits []float32) [][2]float64 {
	idx := make([]int, 0, len(logits))
	for i, v := range logits {
		if !math.IsInf(float64(v), -1) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		if logits[idx[a]] != logits[idx[b]] {
			return logits[idx[a]] > logits[idx[b]]
		}
		return idx[a] < idx[b]
	})
	out := make([][2]float64, 0, 20)
	for _, i := range idx[:min(20, len(idx))] {
		out = append(out, [2]float64{float64(i), float64(logits[i])})
	}
	return out
}

// CompareTop20 checks got against want: the same ids in the same order
// wherever neighbouring logits differ by more than tol (a near-tie may
// swap), and every logit within tol. It returns the largest logit
// difference and a description of the first mismatch ("" when none).
func CompareTop20(got, want [][2]float64, tol float64) (float64, string) {
	if len(got) != len(want) {
		return 0, fmt.Sprintf("%d entries, want %d", len(got), len(want))
	}
	worst := 0.0
	byID := map[float64]float64{}
	for _, g := range got {
		byID[g[0]] = g[1]
	}
	for i, w := range want {
		if got[i][0] != w[0] {
			tie := (i > 0 && math.Abs(want[i-1][1]-w[1]) <= tol) || (i+1 < len(want) && math.Abs(want[i+1][1]-w[1]) <= tol)
			if !tie {
				return worst, fmt.Sprintf("rank %d is id %v, want %v", i, got[i][0], w[0])
			}
		}
		g, ok := byID[w[0]]
		if !ok {
			if i == len(want)-1 { // the 20th may fall out on a near-tie
				continue
			}
			return worst, fmt.Sprintf("id %v missing from the top 20", w[0])
		}
		worst = math.Max(worst, math.Abs(g-w[1]))
	}
	if worst > tol {
		return worst, fmt.Sprintf("logit difference %.3g above %.3g", worst, tol)
	}
	return worst, ""
}
