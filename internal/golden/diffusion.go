package golden

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// DiffusionFile is one goldens-diffusion/<model>.json: non-causal logits
// of [prompt | canvas] inputs and step-by-step traces of
// llama-diffusion-cli and of the deterministic reference-greedy decoder
// (format: ../shared/models/goldens-diffusion/README.md).
type DiffusionFile struct {
	Model       string          `json:"model"`
	NVocab      int             `json:"n_vocab"`
	MaskID      int32           `json:"mask_id"`
	ShiftLogits bool            `json:"shift_logits"`
	Prompt      string          `json:"prompt"`
	Cases       []DiffusionCase `json:"logits_cases"`
	Traces      []Trace         `json:"traces"`
}

// DiffusionCase is one non-causal forward with logits for every position.
type DiffusionCase struct {
	Name            string     `json:"name"`
	PromptMode      string     `json:"prompt_mode"` // raw or chat
	FormattedPrompt string     `json:"formatted_prompt"`
	NPrompt         int        `json:"n_prompt"`
	MaxLen          int        `json:"max_len"`
	InputIDs        []int32    `json:"input_ids"`
	Positions       []Position `json:"positions"`
}

// Trace is one recorded denoising run.
type Trace struct {
	Mode          string      `json:"mode"` // ref or cli
	Algorithm     int         `json:"algorithm"`
	Steps         int         `json:"steps"`
	Schedule      string      `json:"schedule"` // eps or block
	ScheduleParam float64     `json:"schedule_param"`
	NPrompt       int         `json:"n_prompt"`
	PromptIDs     []int32     `json:"prompt_ids"`
	PerStep       []TraceStep `json:"per_step"`
	FinalCanvas   []int32     `json:"final_canvas"`
	TextHex       string      `json:"text_hex"`
	// CLI traces only.
	Seed       uint32  `json:"seed"`
	TopK       int     `json:"top_k"`
	TopP       float32 `json:"top_p"`
	Temp       float32 `json:"temp"`
	CLICommand string  `json:"cli_command"`
	CLITextHex string  `json:"cli_text_hex"`
}

// TraceStep is what one denoising step did: the masks in scope before it,
// the schedule's transfer count, and the (position, token) pairs written
// in the order they were written.
type TraceStep struct {
	Step     int        `json:"step"`
	Block    int        `json:"block"`
	Masked   int        `json:"masked"`
	Transfer int        `json:"transfer"`
	Wrote    [][2]int32 `json:"wrote"`
}

// Text returns the trace's detokenized canvas.
func (t *Trace) Text() (string, error) {
	b, err := hex.DecodeString(t.TextHex)
	return string(b), err
}

// Name labels a trace in test output.
func (t *Trace) Name() string {
	if t.Mode == "cli" {
		return fmt.Sprintf("cli_alg%d_k%d_p%g_t%g", t.Algorithm, t.TopK, t.TopP, t.Temp)
	}
	return fmt.Sprintf("ref_alg%d", t.Algorithm)
}

// LoadDiffusion reads a diffusion golden file.
func LoadDiffusion(path string) (*DiffusionFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f DiffusionFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}
