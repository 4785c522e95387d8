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
	case e.NMax < 0 || e.NMin < 0:
		return fmt.Errorf("spec: EAGLE-3 draft lengths must be ≥ 0")
	case !(e.PMin >= 0) || e.PMin > 1:
		return fmt.Errorf("spec: --spec-draft-p-min must be in [0, 1]")
	}
	return nil
}
