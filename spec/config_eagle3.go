package spec

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// Eagle3Params configure EAGLE-3 drafting (draft-eagle3) with mainline
// llama.cpp's flags and defaults.
type Eagle3Params struct {
	// Model is the eagle3 drafter (an engine.FeatureDrafterModel), Target
	// the model it drafts for; TargetVocab and DraftVocab are their
	// vocabularies (the drafter's file carries its target's), compared
	// before anything runs.
	Model, Target           engine.Model
	TargetVocab, DraftVocab Vocab
	NMax                    int     // --spec-draft-n-max (3)
	NMin                    int     // --spec-draft-n-min (0)
	PMin                    float32 // --spec-draft-p-min (0: never stop early)
	// BranchBudget > 0 drafts trees as EAGLE-3's reference does, of at
	// most NMax + BranchBudget nodes (--spec-branch-budget; 0: chains,
	// as mainline); TopK is the candidates per expansion
	// (--spec-draft-top-k, at least 2 for a tree).
	BranchBudget, TopK int
	// Session sizes the drafter's KV cache and scratch: NCtx and NSeq as
	// the target session's (every slot drafts), NBatch, threads and the
	// cache types (-ctkd/-ctvd).
	Session engine.SessionOptions
}

// DefaultEagle3 returns mainline's defaults.
func DefaultEagle3() Eagle3Params { return Eagle3Params{NMax: 3} }

// validate checks the ranges.
func (e *Eagle3Params) validate() error {
	switch {
	case e.NMax < 0 || e.NMin < 0 || e.BranchBudget < 0:
		return fmt.Errorf("spec: EAGLE-3 draft lengths and --spec-branch-budget must be ≥ 0")
	case e.TopK < 0 || e.TopK > 64:
		return fmt.Errorf("spec: --spec-draft-top-k must be in 1..64")
	case !(e.PMin >= 0) || e.PMin > 1:
		return fmt.Errorf("spec: --spec-draft-p-min must be in [0, 1]")
	}
	return nil
}
