package spec

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// NgramParams configures ngram-simple, ngram-map-k and ngram-map-k4v
// (llama.cpp's --spec-ngram-<kind>-size-n/-size-m/-min-hits).
type NgramParams struct {
	SizeN   int // key length, 1..1024 (default 12)
	SizeM   int // longest draft, 1..1024 (default 48)
	MinHits int // key occurrences before drafting, ≥ 1 (default 1)
}

// ModParams configures ngram-mod (--spec-ngram-mod-n-match/-n-min/-n-max).
type ModParams struct {
	NMatch int // key length, 1..1024 (default 24)
	NMin   int // shorter drafts are discarded, 0..1024 (default 48)
	NMax   int // longest draft, 0..1024 (default 64)
}

// DraftParams configures the draft model (draft-simple).
type DraftParams struct {
	// Model is the draft network; Target and Draft are the two
	// vocabularies, compared token by token before anything runs.
	Model         engine.Model
	Target, Draft Vocab
	NMax          int     // --spec-draft-n-max (default 16)
	NMin          int     // --spec-draft-n-min (default 0)
	PMin          float32 // --spec-draft-p-min (default 0.75)
	// Session sizes the draft model's own session; NCtx and NSeq should
	// match the target's.
	Session engine.SessionOptions
}

// DFlashParams configure DFlash drafting (dflash) with BeeLlama's flags.
type DFlashParams struct {
	// Model is the dflash-draft drafter (an engine.BlockDrafterModel),
	// Target the model it drafts for (it borrows its embeddings and head).
	Model, Target engine.Model
	NMax          int     // --spec-draft-n-max (16; at most block size - 1)
	NMin          int     // --spec-draft-n-min (0)
	PMin          float32 // --spec-draft-p-min for DFlash (0: off)
	// TopK is --spec-draft-top-k: candidates per depth of a tree (1;
	// forced to 1 without branches, raised to 2 with them).
	TopK int
	// BranchBudget is --spec-branch-budget: tree nodes beyond the main
	// path (0: flat drafts).
	BranchBudget int
	// Temp is --spec-draft-temp, resolved: 0 drafts greedily, T > 0
	// samples at T (verification then uses the drafter's distribution).
	Temp float32
	// LogitWeights weights greedy trees by raw logits, as BeeLlama's
	// greedy op returns them, instead of log-probabilities.
	LogitWeights bool
	CrossCtx     int // --spec-dflash-cross-ctx (512)
	// MaxSlots is --spec-dflash-max-slots: sequences 0…MaxSlots-1 draft
	// (0: every sequence).
	MaxSlots int
	// NSeq is the target session's sequence count; Threads its threads.
	NSeq, Threads int
	Seed          uint64 // the drafter's sampling stream
}

// Config is everything the registered strategies may need; it is what the
// command line (cmd/waggle specflags.go) and the server fill.
type Config struct {
	Types []string // chosen strategy names (ParseTypes)
	// NMax and NMin bound the drafts of strategies that have no size
	// parameter of their own (ngram-cache, copyspec, suffix, recycle):
	// --draft-max (16) and --draft-min (0).
	NMax, NMin  int
	NgramSimple NgramParams
	NgramMapK   NgramParams
	NgramMapK4V NgramParams
	NgramMod    ModParams
	// LookupStatic and LookupDynamic are llama.cpp lookup-cache files
	// (-lcs, -lcd). The dynamic one is updated with what was generated and
	// saved back when the chain is closed, as llama-lookup does.
	LookupStatic, LookupDynamic string
	Draft                       DraftParams
	DFlash                      DFlashParams
	Eagle3                      Eagle3Params
	Adaptive                    AdaptiveParams
}

// DefaultConfig returns llama.cpp's defaults (and BeeLlama's for the
// adaptive controller).
func DefaultConfig() Config {
	ng := NgramParams{SizeN: 12, SizeM: 48, MinHits: 1}
	return Config{
		NMax: 16, NMin: 0,
		NgramSimple: ng, NgramMapK: ng, NgramMapK4V: ng,
		NgramMod: ModParams{NMatch: 24, NMin: 48, NMax: 64},
		Draft:    DraftParams{NMax: 16, NMin: 0, PMin: 0.75},
		DFlash:   DFlashParams{NMax: 16, TopK: 1, CrossCtx: 512, NSeq: 1, Seed: 1},
		Eagle3:   DefaultEagle3(),
		Adaptive: DefaultAdaptive(),
	}
}

// Validate checks ranges as llama.cpp's argument parser does.
func (c *Config) Validate() error {
	for _, p := range []struct {
		name string
		v    NgramParams
	}{{"simple", c.NgramSimple}, {"map-k", c.NgramMapK}, {"map-k4v", c.NgramMapK4V}} {
		if !in(p.v.SizeN, 1, 1024) || !in(p.v.SizeM, 1, 1024) || p.v.MinHits < 1 {
			return fmt.Errorf("spec: --spec-ngram-%s-*: size-n and size-m must be in 1..1024 and min-hits ≥ 1", p.name)
		}
	}
	m := c.NgramMod
	if !in(m.NMatch, 1, 1024) || !in(m.NMin, 0, 1024) || !in(m.NMax, 0, 1024) {
		return fmt.Errorf("spec: --spec-ngram-mod-n-match must be in 1..1024, -n-min and -n-max in 0..1024")
	}
	if c.NMax < 0 || c.NMin < 0 || c.Draft.NMax < 0 || c.Draft.NMin < 0 {
		return fmt.Errorf("spec: draft lengths must be ≥ 0")
	}
	if c.Draft.PMin < 0 || c.Draft.PMin > 1 {
		return fmt.Errorf("spec: --spec-draft-p-min must be in [0, 1]")
	}
	if err := c.DFlash.validate(); err != nil {
		return err
	}
	if err := c.Eagle3.validate(); err != nil {
		return err
	}
	return c.Adaptive.Validate()
}

func in(v, lo, hi int) bool { return v >= lo && v <= hi }

// validate checks the DFlash ranges (BeeLlama's argument parser's).
func (d *DFlashParams) validate() error {
	switch {
	case d.NMax < 0 || d.NMin < 0 || d.BranchBudget < 0 || d.MaxSlots < 0:
		return fmt.Errorf("spec: DFlash draft lengths, --spec-branch-budget and --spec-dflash-max-slots must be ≥ 0")
	case d.TopK < 1 || d.TopK > 64:
		return fmt.Errorf("spec: --spec-draft-top-k must be in 1..64")
	case d.PMin < 0 || d.PMin > 1:
		return fmt.Errorf("spec: --spec-draft-p-min must be in [0, 1]")
	case !(d.Temp >= 0) || d.Temp > 100:
		return fmt.Errorf("spec: --spec-draft-temp must be in [0, 100]")
	case d.CrossCtx < 1 || d.CrossCtx > 1<<16:
		return fmt.Errorf("spec: --spec-dflash-cross-ctx must be in 1..65536")
	}
	return nil
}
