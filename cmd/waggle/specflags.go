package main

import (
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
	_ "github.com/waggle-llm/waggle/spec/copyspec"
	_ "github.com/waggle-llm/waggle/spec/draft"
	_ "github.com/waggle-llm/waggle/spec/ngram"
	_ "github.com/waggle-llm/waggle/spec/ngramcache"
	_ "github.com/waggle-llm/waggle/spec/recycle"
	_ "github.com/waggle-llm/waggle/spec/suffix"
)

// specFlags are the speculative-decoding options, with llama.cpp's names
// and defaults (BeeLlama's for --spec-dm-*). Embed them in a command and
// call speculator after opening the target.
type specFlags struct {
	SpecType       string  `name:"spec-type" help:"Speculative strategies, comma-separated: none, ngram-simple, ngram-map-k, ngram-map-k4v, ngram-mod, ngram-cache, copyspec, suffix, recycle, draft-simple." default:"none" env:"LLAMA_ARG_SPEC_TYPE"`
	SpecDraftModel string  `name:"spec-draft-model" help:"Draft model GGUF (-md); enables draft-simple." type:"path" env:"LLAMA_ARG_SPEC_DRAFT_MODEL"`
	DraftNMax      int     `name:"spec-draft-n-max" help:"Longest draft of the draft model." default:"16" env:"LLAMA_ARG_SPEC_DRAFT_N_MAX"`
	DraftNMin      int     `name:"spec-draft-n-min" help:"Shortest draft-model draft worth verifying." default:"0" env:"LLAMA_ARG_SPEC_DRAFT_N_MIN"`
	DraftPMin      float32 `name:"spec-draft-p-min" aliases:"draft-p-min" help:"Stop drafting when the draft model's top probability is below this." default:"0.75"`
	DraftMax       int     `name:"draft-max" aliases:"draft,draft-n" help:"Longest draft of ngram-cache, copyspec, suffix, recycle." default:"16"`
	DraftMin       int     `name:"draft-min" aliases:"draft-n-min" help:"Shortest draft worth verifying (all strategies)." default:"0"`

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
}

// config builds the spec configuration for target; draft is the loaded
// draft model or nil. A draft model without draft-simple in --spec-type
// enables it, as llama.cpp does.
func (f *specFlags) config(target, draft *engine.Loaded, sess engine.Session) (*spec.Config, error) {
	types, err := spec.ParseTypes(f.SpecType)
	if err != nil {
		return nil, err
	}
	if draft != nil && !strings.Contains(","+f.SpecType+",", ",none,") {
		if !specContains(types, "draft-simple") {
			types, _ = spec.ParseTypes(strings.Join(append(types, "draft-simple"), ","))
		}
	}
	c := spec.DefaultConfig()
	c.Types, c.NMax, c.NMin = types, f.DraftMax, f.DraftMin
	c.NgramSimple = spec.NgramParams{SizeN: f.SimpleN, SizeM: f.SimpleM, MinHits: f.SimpleHits}
	c.NgramMapK = spec.NgramParams{SizeN: f.MapKN, SizeM: f.MapKM, MinHits: f.MapKHits}
	c.NgramMapK4V = spec.NgramParams{SizeN: f.K4VN, SizeM: f.K4VM, MinHits: f.K4VHits}
	c.NgramMod = spec.ModParams{NMatch: f.ModMatch, NMin: f.ModMin, NMax: f.ModMax}
	c.LookupStatic, c.LookupDynamic = f.LookupStatic, f.LookupDynamic
	c.Draft = spec.DraftParams{NMax: f.DraftNMax, NMin: f.DraftNMin, PMin: f.DraftPMin, Session: sess.Options()}
	if draft != nil {
		c.Draft.Model, c.Draft.Target, c.Draft.Draft = draft.Model, target.Tokenizer, draft.Tokenizer
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

// speculator opens the draft model (if any) and builds the Speculator for
// sess. It returns nil when no speculation was asked for. close saves and
// releases what the strategies hold and closes the draft model.
func (f *specFlags) speculator(target *engine.Loaded, sess engine.Session) (sp *spec.Speculator, close func() error, err error) {
	var draft *engine.Loaded
	if f.SpecDraftModel != "" {
		if draft, err = engine.LoadFile(f.SpecDraftModel); err != nil {
			return nil, nil, fmt.Errorf("--spec-draft-model: %w", err)
		}
	}
	closeDraft := func() error {
		if draft != nil {
			return draft.Close()
		}
		return nil
	}
	cfg, err := f.config(target, draft, sess)
	if err != nil || len(cfg.Types) == 0 {
		closeDraft()
		return nil, func() error { return nil }, err
	}
	chain, err := spec.NewChain(cfg)
	if err != nil {
		closeDraft()
		return nil, nil, err
	}
	return spec.New(sess, chain, cfg), func() error {
		err := chain.Close()
		if e := closeDraft(); err == nil {
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
