package main

import (
	"fmt"

	"github.com/waggle-llm/waggle/server"
)

// loopGuardFlags are BeeLlama's --reasoning-loop-* options (serve only):
// the defaults of the reasoning loop guard, which requests may override.
type loopGuardFlags struct {
	LoopGuard         string `name:"reasoning-loop-guard" help:"What to do when generation loops: force-close (close a looping <think> block, stop a looping answer), stop, or off." default:"force-close" env:"WAGGLE_REASONING_LOOP_GUARD,LLAMA_ARG_REASONING_LOOP_GUARD"`
	LoopMinTokens     int    `name:"reasoning-loop-min-tokens" help:"Reasoning tokens before the first loop check." default:"1024" env:"LLAMA_ARG_REASONING_LOOP_MIN_TOKENS"`
	LoopWindow        int    `name:"reasoning-loop-window" help:"Tokens of each region the loop checks look at." default:"2048" env:"LLAMA_ARG_REASONING_LOOP_WINDOW"`
	LoopMaxPeriod     int    `name:"reasoning-loop-max-period" help:"Longest repeating period checked." default:"512" env:"LLAMA_ARG_REASONING_LOOP_MAX_PERIOD"`
	LoopMinCoverage   int    `name:"reasoning-loop-min-coverage" help:"Repeated tokens needed to call it a loop." default:"768" env:"LLAMA_ARG_REASONING_LOOP_MIN_COVERAGE"`
	LoopCheckInterval int    `name:"reasoning-loop-check-interval" help:"Check every this many tokens." default:"32" env:"LLAMA_ARG_REASONING_LOOP_CHECK_INTERVAL"`
	LoopInterventions int    `name:"reasoning-loop-interventions" help:"Force-closes before the guard stops instead." default:"1" env:"LLAMA_ARG_REASONING_LOOP_INTERVENTIONS"`
}

func (f *loopGuardFlags) params() (server.LoopGuardParams, error) {
	m, err := server.ParseLoopGuardMode(f.LoopGuard)
	if err != nil {
		return server.LoopGuardParams{}, fmt.Errorf("--reasoning-loop-guard: %w", err)
	}
	p := server.LoopGuardParams{Mode: m, MinTokens: f.LoopMinTokens, Window: f.LoopWindow, MaxPeriod: f.LoopMaxPeriod,
		MinCoverage: f.LoopMinCoverage, CheckInterval: f.LoopCheckInterval, Interventions: f.LoopInterventions}
	if field, err := p.Validate(); err != nil {
		return p, fmt.Errorf("--%s: %w", flagName(field), err)
	}
	return p, nil
}

// flagName turns a request field name into its flag name.
func flagName(field string) string {
	b := []byte(field)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}
