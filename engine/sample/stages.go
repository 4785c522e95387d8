package sample

import (
	"fmt"
	"strings"
)

// Stage is one configurable step of the chain, named as in llama.cpp's
// common_sampler_type. Params.Samplers lists them in the order they run;
// logit bias always runs first and the draw (or adaptive-p) last.
type Stage uint8

// The stages, with llama.cpp's canonical names.
const (
	StagePenalties   Stage = iota + 1 // "penalties": repeat, frequency and presence penalties
	StageDRY                          // "dry": DRY repetition penalty
	StageTopNSigma                    // "top_n_sigma"
	StageTopK                         // "top_k"
	StageTypicalP                     // "typ_p"
	StageTopP                         // "top_p"
	StageMinP                         // "min_p"
	StageXTC                          // "xtc": exclude top choices
	StageTemperature                  // "temperature": plain or dynamic temperature
	StageInfill                       // "infill": not implemented; New rejects it
	StageAdaptiveP                    // "adaptive_p": replaces the final draw
)

// maxSamplers bounds the length of Params.Samplers (llama.cpp has eleven
// distinct stages; a stage may repeat).
const maxSamplers = 32

// stageInfo is a stage's canonical name and its letter in --sampling-seq.
var stageInfo = [...]struct {
	name   string
	letter byte
}{
	StagePenalties:   {"penalties", 'e'},
	StageDRY:         {"dry", 'd'},
	StageTopNSigma:   {"top_n_sigma", 's'},
	StageTopK:        {"top_k", 'k'},
	StageTypicalP:    {"typ_p", 'y'},
	StageTopP:        {"top_p", 'p'},
	StageMinP:        {"min_p", 'm'},
	StageXTC:         {"xtc", 'x'},
	StageTemperature: {"temperature", 't'},
	StageInfill:      {"infill", 'i'},
	StageAdaptiveP:   {"adaptive_p", 'a'},
}

// altStageNames are the other spellings llama.cpp's --samplers accepts
// (common_sampler_types_from_names with allow_alt_names).
var altStageNames = map[string]Stage{
	"top-k": StageTopK, "top-p": StageTopP, "top-n-sigma": StageTopNSigma,
	"nucleus": StageTopP, "typical-p": StageTypicalP, "typical": StageTypicalP,
	"typ-p": StageTypicalP, "typ": StageTypicalP, "min-p": StageMinP,
	"temp": StageTemperature, "adaptive-p": StageAdaptiveP,
}

// DefaultSamplers returns llama.cpp's default order: penalties, dry,
// top_n_sigma, top_k, typ_p, top_p, min_p, xtc, temperature.
func DefaultSamplers() []Stage {
	return []Stage{StagePenalties, StageDRY, StageTopNSigma, StageTopK, StageTypicalP,
		StageTopP, StageMinP, StageXTC, StageTemperature}
}

// String returns the canonical name (the one llama-server reports).
func (s Stage) String() string {
	if s.valid() {
		return stageInfo[s].name
	}
	return fmt.Sprintf("stage(%d)", uint8(s))
}

// Letter returns the stage's --sampling-seq letter.
func (s Stage) Letter() byte {
	if s.valid() {
		return stageInfo[s].letter
	}
	return '?'
}

func (s Stage) valid() bool { return s >= StagePenalties && s <= StageAdaptiveP }

// ParseSamplerNames maps names to stages. The canonical names are always
// accepted; alt adds llama.cpp's alternative spellings ("top-k", "nucleus",
// "temp", ...), which its --samplers flag accepts and a request's
// "samplers" array does not. An unknown name is an error (llama.cpp logs it
// and skips it).
func ParseSamplerNames(names []string, alt bool) ([]Stage, error) {
	if len(names) > maxSamplers {
		return nil, paramErr("samplers", "at most %d samplers, got %d", maxSamplers, len(names))
	}
	out := make([]Stage, 0, len(names))
	for _, n := range names {
		st, ok := stageByName(n, alt)
		if !ok {
			return nil, paramErr("samplers", "unknown sampler %q (known: %s)", n, knownNames())
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseSamplingSeq maps --sampling-seq letters (e d s k y p m x t i a) to
// stages; an unknown letter is an error.
func ParseSamplingSeq(seq string) ([]Stage, error) {
	if len(seq) > maxSamplers {
		return nil, paramErr("samplers", "at most %d samplers, got %d", maxSamplers, len(seq))
	}
	out := make([]Stage, 0, len(seq))
	for i := 0; i < len(seq); i++ {
		st, ok := stageByLetter(seq[i])
		if !ok {
			return nil, paramErr("samplers", "unknown sampler letter %q in %q (known: edskypmxtia)", seq[i], seq)
		}
		out = append(out, st)
	}
	return out, nil
}

// SamplerNames returns the canonical names of stages.
func SamplerNames(stages []Stage) []string {
	out := make([]string, len(stages))
	for i, s := range stages {
		out[i] = s.String()
	}
	return out
}

func stageByName(n string, alt bool) (Stage, bool) {
	for s := StagePenalties; s <= StageAdaptiveP; s++ {
		if stageInfo[s].name == n {
			return s, true
		}
	}
	if alt {
		s, ok := altStageNames[n]
		return s, ok
	}
	return 0, false
}

func stageByLetter(c byte) (Stage, bool) {
	for s := StagePenalties; s <= StageAdaptiveP; s++ {
		if stageInfo[s].letter == c {
			return s, true
		}
	}
	return 0, false
}

func knownNames() string {
	var b strings.Builder
	for s := StagePenalties; s <= StageAdaptiveP; s++ {
		if s > StagePenalties {
			b.WriteString(", ")
		}
		b.WriteString(stageInfo[s].name)
	}
	return b.String()
}
