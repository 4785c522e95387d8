package golden

import (
	"encoding/json"
	"fmt"
	"os"
)

// DFlash is one goldens-dflash/<p>.json: BeeLlama's DFlash drafter run on
// the synthetic qwen3 target (see that folder's README).
type DFlash struct {
	Config struct {
		Target       string  `json:"target"`
		Drafter      string  `json:"drafter"`
		NVocab       int     `json:"n_vocab"`
		BlockSize    int     `json:"block_size"`
		MaskTokenID  int32   `json:"mask_token_id"`
		Taps         []int   `json:"taps"`
		NMax         int     `json:"n_max"`
		CrossCtx     int     `json:"cross_ctx"`
		DraftTemp    float64 `json:"draft_temp"`
		PMin         float64 `json:"p_min"`
		TreeTopK     int     `json:"tree_top_k"`
		BranchBudget int     `json:"branch_budget"`
		TargetUBatch int     `json:"target_n_ubatch"`
	} `json:"config"`
	Prompt     []int32      `json:"prompt"`
	PromptRows [][]float32  `json:"prompt_rows"`
	Steps      []DFlashStep `json:"steps"`
}

// DFlashStep is one speculative cycle of a DFlash golden.
type DFlashStep struct {
	Step          int            `json:"step"`
	NPast         int            `json:"n_past"`
	Anchor        int32          `json:"anchor"`
	CrossLen      int            `json:"cross_len"`
	NDraft        int            `json:"n_draft"`
	Draft         []int32        `json:"draft"`
	FlatRowsTop20 [][][2]float64 `json:"flat_rows_top20"`
	BlockRowsTop  [][][2]float64 `json:"block_rows_top20"`
	TreeBudget    int            `json:"tree_budget"`
	TreeRawLogit  DFlashTree     `json:"tree_raw_logit"`
	TreeLogSoft   DFlashTree     `json:"tree_log_softmax"`
	TargetGreedy  []int32        `json:"target_greedy"`
	Accepted      int            `json:"accepted"`
	AppendedRows  [][]float32    `json:"appended_rows"`
}

// DFlashTree is a DDTree built from one step's full block.
type DFlashTree struct {
	MainLen int          `json:"main_len"`
	Nodes   []DFlashNode `json:"nodes"`
}

// DFlashNode is one tree node: 1-based index, parent (0: the root), depth,
// token and the value of the op at that depth and rank.
type DFlashNode struct {
	I      int     `json:"i"`
	Parent int     `json:"parent"`
	Depth  int     `json:"depth"`
	Token  int32   `json:"token"`
	Value  float64 `json:"value"`
}

// LoadDFlash reads a goldens-dflash file.
func LoadDFlash(path string) (*DFlash, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g DFlash
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(g.Steps) == 0 || len(g.PromptRows) != len(g.Prompt) {
		return nil, fmt.Errorf("%s: %d steps, %d prompt rows for %d prompt tokens", path, len(g.Steps), len(g.PromptRows), len(g.Prompt))
	}
	return &g, nil
}
