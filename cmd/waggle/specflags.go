package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/spec"
	_ "github.com/waggle-llm/waggle/spec/copyspec"
	_ "github.com/waggle-llm/waggle/spec/dflash"
	_ "github.com/waggle-llm/waggle/spec/draft"
	"github.com/waggle-llm/waggle/spec/eagle3"
	_ "github.com/waggle-llm/waggle/spec/ngram"
	_ "github.com/waggle-llm/waggle/spec/ngramcache"
	_ "github.com/waggle-llm/waggle/spec/recycle"
	_ "github.com/waggle-llm/waggle/spec/suffix"
)

// specFlags are the speculative-decoding options, with llama.cpp's names
// and defaults (BeeLlama's for --spec-dm-*). Embed them in a command and
// call speculator after opening the target.
type specFlags struct {
	SpecType        string   `name:"spec-type" help:"Speculative strategies, comma-separated: none, ngram-simple, ngram-map-k, ngram-map-k4v, ngram-mod, ngram-cache, copyspec, suffix, recycle, draft-simple, draft-eagle3 (eagle3), dflash (default: none, or the type of --spec-draft-model; \"none\" turns that off too)." env:"LLAMA_ARG_SPEC_TYPE"`
	SpecDraftModel  string   `name:"spec-draft-model" aliases:"model-draft" help:"Draft model GGUF (-md): a model of the target's vocabulary (enables draft-simple), an EAGLE-3 drafter, eagle3 (enables draft-eagle3), or a DFlash drafter, dflash-draft (enables dflash)." type:"path" env:"LLAMA_ARG_SPEC_DRAFT_MODEL"`
	DraftNMax       *int     `name:"spec-draft-n-max" help:"Longest draft of the draft model (default 16; draft-eagle3: 3; dflash: at most its block size - 1)." env:"LLAMA_ARG_SPEC_DRAFT_N_MAX"`
	DraftNMin       int      `name:"spec-draft-n-min" help:"Shortest draft-model draft worth verifying." default:"0" env:"LLAMA_ARG_SPEC_DRAFT_N_MIN"`
	DraftPMin       *float32 `name:"spec-draft-p-min" aliases:"draft-p-min" help:"Stop drafting below this probability (draft-simple: default 0.75; draft-eagle3 and dflash: default 0, off)."`
	CacheTypeKDraft string   `name:"cache-type-k-draft" help:"KV cache type for the draft model's keys (draft-simple, draft-eagle3; default: the target's)."`
	CacheTypeVDraft string   `name:"cache-type-v-draft" help:"KV cache type for the draft model's values (default: the target's)."`
	DraftTopK       int      `name:"spec-draft-top-k" aliases:"draft-topk" help:"dflash, draft-eagle3: candidates per depth of a tree (raised to 2 when --spec-branch-budget > 0)." default:"1"`
	BranchBudget    int      `name:"spec-branch-budget" help:"dflash, draft-eagle3: tree nodes beyond the main draft path (0: flat verification)." default:"0"`
	TreeBudget      int      `name:"tree-budget" help:"Legacy total DDTree node budget: sets --spec-branch-budget to max(0, N - --spec-draft-n-max) unless that is given (-1: unset)." default:"-1"`
	DraftTemp       string   `name:"spec-draft-temp" help:"dflash drafter temperature: 0 (greedy), T > 0 (sampled drafts, verified exactly), or auto (the default --temp)." default:"0"`
	DFlashCrossCtx  int      `name:"spec-dflash-cross-ctx" help:"dflash: target rows of context the drafter attends to." default:"512"`
	DFlashMaxSlots  int      `name:"spec-dflash-max-slots" help:"dflash: slots 0…N-1 draft, the others decode plainly (0: every slot)." default:"0"`
	DFlashWeights   string   `name:"spec-dflash-tree-weights" help:"dflash greedy DDTree weights: logprob (log-softmax of the drafter's logits) or logit (raw logits, as BeeLlama's greedy op returns them)." enum:"logprob,logit" default:"logprob"`
	DraftMax        int      `name:"draft-max" aliases:"draft,draft-n" help:"Longest draft of ngram-cache, copyspec, suffix, recycle." default:"16"`
	DraftMin        int      `name:"draft-min" aliases:"draft-n-min" help:"Shortest draft worth verifying (all strategies)." default:"0"`

	SimpleN    int `name:"spec-ngram-simple-size-n" default:"12" help:"ngram-simple key length."`
	SimpleM    int `name:"spec-ngram-simple-size-m" default:"48" help:"ngram-simple longest draft."`
	SimpleHits int `name:"spec-ngram-simple-min-hits" default:"1" help:"ngram-simple minimum hits (unused, as in llama.cpp)."`
	MapKN      int `name:"spec-ngram-map-k-size-n" default:"12" help:"ngram-map-k key length."`
	MapKM      int `name:"spec-ngram-map-k-size-m" default:"48" help:"ngram-map-k longest draft."`
	MapKHits   int `name:"spec-ngram-map-k-min-hits" default:"1" help:"ngram-map-k: earlier occurrences of the key before drafting."`
	K4VN       int `name:"spec-ngram-map-k4v-size-n" default:"12" help:"ngram-map-k4v key length."`
	K4VM       int `name:"spec-ngram-map-k4v-size-m" default:"48" help:"ngram-map-k4v longest draft."`
	K4VHits    int `name:"spec-ngram-map-k4v-min-hits" default:"1" help:"ngram-map-k4v: earlier occurrences of the key before drafting."`
	ModMatch   int `name:"spec-ngram-mod-n-match" default:"24" help:"ngram-mod key length."`
	ModMin     int `name:"spec-ngram-mod-n-min" default:"48" help:"ngram-mod shortest draft."`
	ModMax     int `name:"spec-ngram-mod-n-max" default:"64" help:"ngram-mod longest draft."`

	LookupStatic  string `name:"lookup-cache-static" help:"Static n-gram cache file (-lcs) for ngram-cache." type:"path"`
	LookupDynamic string `name:"lookup-cache-dynamic" help:"Dynamic n-gram cache file (-lcd) for ngram-cache; updated and saved at exit." type:"path"`

	DMAdaptive         bool    `name:"spec-dm-adaptive" negatable:"" default:"true" help:"Adapt the draft depth per slot (--no-spec-dm-adaptive: fixed)."`
	DMController       string  `name:"spec-dm-controller" default:"profit" enum:"profit,fringe" help:"Depth controller: profit or fringe."`
	DMProbeInterval    int     `name:"spec-dm-probe-interval" default:"16" help:"Cycles while off before a probe."`
	DMProbeFraction    float64 `name:"spec-dm-probe-fraction" default:"0.25" help:"Probe depth as a fraction of the base depth."`
	DMExploreInterval  int     `name:"spec-dm-explore-interval" default:"12" help:"Cycles between exploration drafts."`
	DMOffDwell         int     `name:"spec-dm-off-dwell" default:"8" help:"Losing cycles before switching speculation off."`
	DMFringeMin        float64 `name:"spec-dm-fringe-min" default:"0.30" help:"fringe: tail acceptance below which to switch off."`
	DMFringeMax        float64 `name:"spec-dm-fringe-max" default:"0.50" help:"fringe: tail acceptance for full depth."`
	DMMinReach         int     `name:"spec-dm-min-reach" default:"3" help:"fringe: samples at new positions before promotion."`
	DMProfitMin        float64 `name:"spec-dm-profit-min" default:"0.05" help:"profit: required gain over no speculation."`
	DMRaiseMargin      float64 `name:"spec-dm-profit-raise-margin" default:"0.05" help:"profit: margin to raise the depth."`
	DMLowerMargin      float64 `name:"spec-dm-profit-lower-margin" default:"0.05" help:"profit: margin to lower the depth."`
	DMEWMAAlpha        float64 `name:"spec-dm-profit-ewma-alpha" default:"0.15" help:"profit: EWMA weight."`
	DMMinSamples       int     `name:"spec-dm-profit-min-samples" default:"3" help:"profit: samples before a depth counts."`
	DMWarmup           int     `name:"spec-dm-profit-warmup" default:"0" help:"profit: initial full-depth cycles (0: min-samples)."`
	DMBaselineInterval int     `name:"spec-dm-profit-baseline-interval" default:"1024" help:"profit: cycles between baseline re-probes (0: never)."`

	draft *engine.Loaded // the draft model, loaded by prepare
}

// config builds the spec configuration for target; draft is the loaded
// draft model or nil. A draft model without a matching type in --spec-type
// enables one, as llama.cpp does: dflash for a dflash-draft file,
// draft-simple otherwise. defaultTemp resolves --spec-draft-temp auto.
func (f *specFlags) config(target, draft *engine.Loaded, sess engine.Session, defaultTemp float32) (*spec.Config, error) {
	types, err := f.types(draft)
	if err != nil {
		return nil, err
	}
	c := spec.DefaultConfig()
	c.Types, c.NMax, c.NMin = types, f.DraftMax, f.DraftMin
	c.NgramSimple = spec.NgramParams{SizeN: f.SimpleN, SizeM: f.SimpleM, MinHits: f.SimpleHits}
	c.NgramMapK = spec.NgramParams{SizeN: f.MapKN, SizeM: f.MapKM, MinHits: f.MapKHits}
	c.NgramMapK4V = spec.NgramParams{SizeN: f.K4VN, SizeM: f.K4VM, MinHits: f.K4VHits}
	c.NgramMod = spec.ModParams{NMatch: f.ModMatch, NMin: f.ModMin, NMax: f.ModMax}
	c.LookupStatic, c.LookupDynamic = f.LookupStatic, f.LookupDynamic
	pMin := float32(0.75)
	if f.DraftPMin != nil {
		pMin = *f.DraftPMin
	}
	dso, err := f.draftSession(sess)
	if err != nil {
		return nil, err
	}
	c.Draft = spec.DraftParams{NMax: f.nMax(16), NMin: f.DraftNMin, PMin: pMin, Session: dso}
	if draft != nil {
		c.Draft.Model, c.Draft.Target, c.Draft.Draft = draft.Model, target.Tokenizer, draft.Tokenizer
	}
	c.Eagle3 = f.eagle3Params(target, draft, dso)
	if c.DFlash, err = f.dflashParams(target, draft, sess, defaultTemp); err != nil {
		return nil, err
	}
	c.Adaptive = spec.AdaptiveParams{
		Enabled: f.DMAdaptive, Controller: f.DMController,
		ProbeInterval: f.DMProbeInterval, ProbeFraction: f.DMProbeFraction, ExploreInterval: f.DMExploreInterval,
		OffDwell: f.DMOffDwell, FringeMin: f.DMFringeMin, FringeMax: f.DMFringeMax, MinReach: f.DMMinReach,
		ProfitMin: f.DMProfitMin, RaiseMargin: f.DMRaiseMargin, LowerMargin: f.DMLowerMargin,
		EWMAAlpha: f.DMEWMAAlpha, MinSamples: f.DMMinSamples, Warmup: f.DMWarmup, BaselineInterval: f.DMBaselineInterval,
	}
	return &c, c.Validate()
}

// types resolves --spec-type with the draft model's auto-detection.
func (f *specFlags) types(draft *engine.Loaded) ([]string, error) {
	types, err := spec.ParseTypes(f.SpecType)
	if err != nil || draft == nil || strings.Contains(","+f.SpecType+",", ",none,") {
		return types, err
	}
	want := "draft-simple"
	switch {
	case isDFlash(draft):
		want = "dflash"
	case isEagle3(draft):
		want = "draft-eagle3"
	}
	if !specContains(types, want) {
		types, _ = spec.ParseTypes(strings.Join(append(types, want), ","))
	}
	return types, nil
}

// isDFlash reports whether l is a DFlash drafter.
func isDFlash(l *engine.Loaded) bool {
	if l == nil {
		return false
	}
	_, ok := l.Model.(engine.BlockDrafterModel)
	return ok
}

// dflashParams fills the DFlash settings, converting the legacy
// --tree-budget and resolving --spec-draft-temp.
func (f *specFlags) dflashParams(target, draft *engine.Loaded, sess engine.Session, defaultTemp float32) (spec.DFlashParams, error) {
	p := spec.DFlashParams{NMax: f.nMax(16), NMin: f.DraftNMin, TopK: f.DraftTopK, BranchBudget: f.branchBudget(),
		CrossCtx: f.DFlashCrossCtx, MaxSlots: f.DFlashMaxSlots, LogitWeights: f.DFlashWeights == "logit",
		NSeq: sess.Options().NSeq, Threads: sess.Options().Threads, Target: target.Model, Seed: 1}
	if f.DraftPMin != nil {
		p.PMin = *f.DraftPMin
	}
	if draft != nil && isDFlash(draft) {
		p.Model = draft.Model
	}
	switch t := strings.TrimSpace(f.DraftTemp); t {
	case "auto":
		p.Temp = max(defaultTemp, 0)
	default:
		v, err := strconv.ParseFloat(t, 32)
		if err != nil || v < 0 || v > 100 {
			return p, fmt.Errorf("--spec-draft-temp must be 0, a temperature in (0, 100] or auto, got %q", f.DraftTemp)
		}
		p.Temp = float32(v)
	}
	return p, nil
}

// branchBudget is --spec-branch-budget, or the legacy --tree-budget
// converted (BeeLlama: max(0, tree budget - draft max)) when only that is
// given.
func (f *specFlags) branchBudget() int {
	if f.TreeBudget >= 0 {
		if f.BranchBudget != 0 {
			fmt.Fprintln(stderr, "waggle: both --spec-branch-budget and legacy --tree-budget given; ignoring --tree-budget")
			return f.BranchBudget
		}
		return max(0, f.TreeBudget-f.nMax(16))
	}
	return f.BranchBudget
}

// prepare loads the draft model (if any) before the target session is
// made, and returns the target taps DFlash reads (nil otherwise) and the
// rollback depth a hybrid target needs for the largest tree (0: its
// default).
func (f *specFlags) prepare() (taps []engine.Tap, depth int, err error) {
	if f.SpecDraftModel != "" && f.draft == nil {
		if f.draft, err = engine.LoadFile(f.SpecDraftModel); err != nil {
			return nil, 0, fmt.Errorf("--spec-draft-model: %w", err)
		}
	}
	types, err := f.types(f.draft)
	if err != nil {
		return nil, 0, err
	}
	if specContains(types, "draft-eagle3") {
		return f.prepareEagle3()
	}
	if !specContains(types, "dflash") {
		return nil, 0, nil
	}
	if f.draft == nil || !isDFlash(f.draft) {
		return nil, 0, fmt.Errorf("--spec-type dflash needs a DFlash drafter (--spec-draft-model with a dflash-draft GGUF)")
	}
	bm := f.draft.Model.(engine.BlockDrafterModel)
	k := max(f.DraftTopK, 2)
	nodes := min(f.nMax(16)+f.branchBudget(), f.nMax(16)*k, bm.Block().BlockSize*k)
	return bm.Block().Taps, max(qwen35.DefaultDepth, nodes+1), nil
}

// closeDraft releases the draft model.
func (f *specFlags) closeDraft() error {
	if f.draft == nil {
		return nil
	}
	err := f.draft.Close()
	f.draft = nil
	return err
}

// speculator builds the Speculator for sess (after prepare), or nil when
// no speculation was asked for. close saves and releases what the
// strategies hold and closes the draft model.
func (f *specFlags) speculator(target *engine.Loaded, sess engine.Session, defaultTemp float32) (sp *spec.Speculator, close func() error, err error) {
	if _, _, err := f.prepare(); err != nil {
		f.closeDraft()
		return nil, nil, err
	}
	cfg, err := f.config(target, f.draft, sess, defaultTemp)
	if err != nil || len(cfg.Types) == 0 {
		f.closeDraft()
		return nil, func() error { return nil }, err
	}
	chain, err := spec.NewChain(cfg)
	if err != nil {
		f.closeDraft()
		return nil, nil, err
	}
	return spec.New(sess, chain, cfg), func() error {
		err := chain.Close()
		if e := f.closeDraft(); err == nil {
			err = e
		}
		return err
	}, nil
}

func specContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nMax is --spec-draft-n-max, or def when it was not given (the default
// differs by strategy: 3 for draft-eagle3, as mainline's, 16 otherwise).
func (f *specFlags) nMax(def int) int {
	if f.DraftNMax != nil {
		return *f.DraftNMax
	}
	return def
}

// draftSession is the target session's options with the draft model's
// cache types (--cache-type-k-draft, --cache-type-v-draft) when given.
func (f *specFlags) draftSession(sess engine.Session) (engine.SessionOptions, error) {
	o := sess.Options()
	o.Taps, o.CaptureLayers = nil, nil
	for _, c := range []struct {
		flag, v string
		dst     *kvcache.Type
	}{{"--cache-type-k-draft", f.CacheTypeKDraft, &o.TypeK}, {"--cache-type-v-draft", f.CacheTypeVDraft, &o.TypeV}} {
		if c.v == "" {
			continue
		}
		t, err := kvcache.ParseType(c.v)
		if err != nil {
			return o, fmt.Errorf("%s: %w", c.flag, err)
		}
		*c.dst = t
	}
	return o, nil
}

// isEagle3 reports whether l is an EAGLE-3 drafter.
func isEagle3(l *engine.Loaded) bool {
	if l == nil {
		return false
	}
	_, ok := l.Model.(engine.FeatureDrafterModel)
	return ok
}

// eagle3Params fills the draft-eagle3 settings (mainline's defaults:
// depth 3, no p-min).
func (f *specFlags) eagle3Params(target, draft *engine.Loaded, dso engine.SessionOptions) spec.Eagle3Params {
	p := spec.DefaultEagle3()
	p.NMax, p.NMin, p.Target, p.Session = f.nMax(p.NMax), f.DraftNMin, target.Model, dso
	p.TopK, p.BranchBudget = f.DraftTopK, f.eagle3Branches()
	if f.DraftPMin != nil {
		p.PMin = *f.DraftPMin
	}
	if isEagle3(draft) {
		p.Model, p.TargetVocab, p.DraftVocab = draft.Model, target.Tokenizer, draft.Tokenizer
	}
	return p
}

// prepareEagle3 returns the taps draft-eagle3 reads (the inputs of the
// drafter's layers) and the rollback depth a hybrid target needs for its
// verify batches.
func (f *specFlags) prepareEagle3() ([]engine.Tap, int, error) {
	if !isEagle3(f.draft) {
		return nil, 0, fmt.Errorf("--spec-type draft-eagle3 needs an EAGLE-3 drafter (--spec-draft-model with an eagle3 GGUF)")
	}
	fm := f.draft.Model.(engine.FeatureDrafterModel)
	n, k := f.nMax(3), max(f.DraftTopK, 2)
	nodes := n
	if b := f.eagle3Branches(); b > 0 {
		nodes = min(n+b, k+(n-1)*k*k)
	}
	return eagle3.Taps(fm.Features().Layers), max(qwen35.DefaultDepth, nodes+1), nil
}

// eagle3Branches is --spec-branch-budget for draft-eagle3, or the legacy
// --tree-budget converted with its depth (max(0, T - n_max)).
func (f *specFlags) eagle3Branches() int {
	if f.TreeBudget >= 0 && f.BranchBudget == 0 {
		return max(0, f.TreeBudget-f.nMax(3))
	}
	return f.BranchBudget
}
