package golden

import (
	"encoding/json"
	"fmt"
	"os"
)

// GreedyRef is one entry of reference-greedy.json: 64 greedy tokens made by
// an older llama.cpp with an F16 KV cache.
type GreedyRef struct {
	Model        string         `json:"model"`
	Prompt       string         `json:"prompt"`
	AddBOS       bool           `json:"add_bos"`
	PromptIDs    []int32        `json:"prompt_ids"`
	GeneratedIDs []int32        `json:"generated_ids"`
	Text         string         `json:"generated_text"`
	Stop         string         `json:"stop"`
	Top5         [][][2]float64 `json:"top5_per_step"`
}

// StepMargin returns the reference top-1/top-2 gap at generated step s.
func (g *GreedyRef) StepMargin(s int) float64 {
	if s >= len(g.Top5) || len(g.Top5[s]) < 2 {
		return 0
	}
	return g.Top5[s][0][1] - g.Top5[s][1][1]
}

// greedyFile is the layout of reference-greedy.json.
type greedyFile struct {
	Models []struct {
		File string      `json:"file"`
		Runs []GreedyRef `json:"runs"`
	} `json:"models"`
}

// LoadGreedy reads reference-greedy.json into one entry per (model, prompt).
func LoadGreedy(path string) ([]GreedyRef, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f greedyFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []GreedyRef
	for _, m := range f.Models {
		for _, r := range m.Runs {
			r.Model = m.File
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no runs", path)
	}
	return out, nil
}
