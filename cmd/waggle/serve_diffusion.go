package main

import (
	"github.com/waggle-llm/waggle/engine/diffusion"
	"github.com/waggle-llm/waggle/server"
)

// diffusionServeFlags are `waggle serve`'s settings for a diffusion model
// (dream, llada, llada-moe); requests override them with the fields of the
// same names (docs/diffusion.md). Other models ignore them.
type diffusionServeFlags struct {
	DiffusionSteps     int     `name:"diffusion-steps" help:"Diffusion models: denoising steps of an answer, shared among its blocks (0: one per position)." default:"0"`
	DiffusionAlgorithm string  `name:"diffusion-algorithm" help:"Diffusion models: origin, entropy, margin, random, confidence (0-4, llama-diffusion-cli's numbers) or entropy-bound (5)." default:"confidence"`
	DiffusionBlock     int     `name:"diffusion-block-length" help:"Diffusion models: block length of the block schedule; each committed block is streamed." default:"32"`
	DiffusionEps       float32 `name:"diffusion-eps" help:"Diffusion models: > 0 selects the timestep schedule (one block) instead of blocks." default:"0"`
	DiffusionBound     float32 `name:"diffusion-entropy-bound" help:"Diffusion models: the entropy-bound algorithm's bound (0: the GGUF's, else 0.1)." default:"0"`
	DiffusionCache     bool    `name:"diffusion-cache-prefix" help:"Diffusion models: compute the prefix keys and values once per block (approximate for Dream and LLaDA, whose prompt sees the canvas)."`
	DiffusionMaxTokens int     `name:"diffusion-max-tokens" help:"Diffusion models: answer length of a request without max_tokens." default:"256"`
}

func (f *diffusionServeFlags) options() (server.DiffusionOptions, error) {
	alg, err := diffusion.ParseAlgorithm(f.DiffusionAlgorithm)
	if err != nil {
		return server.DiffusionOptions{}, err
	}
	return server.DiffusionOptions{
		Algorithm: &alg, Steps: f.DiffusionSteps, BlockLength: f.DiffusionBlock, Eps: f.DiffusionEps,
		EntropyBound: f.DiffusionBound, CachePrefix: f.DiffusionCache, MaxTokens: f.DiffusionMaxTokens,
	}, nil
}
