// Package diffusion decodes with diffusion language models: it turns the
// per-position predictions of an engine.Denoiser into text, block by
// block, without knowing the network behind it.
//
// Two families of decoders share one Run:
//
//   - llama-diffusion-cli's, for masked-diffusion models (Dream, LLaDA):
//     its five algorithms (origin, entropy, margin, random, confidence),
//     its timestep and block schedules and block layout, its sampler
//     chain (top-k, top-p, temperature, dist) and both of its mt19937
//     streams, so a seed reproduces its runs token for token; plus the
//     deterministic reference-greedy mode of the LLaDA and Dream
//     references (argmax candidates ranked by probability, margin or
//     negated entropy).
//   - entropy-bounded unmasking (Ben-Hamu et al., arXiv 2505.24857): on a
//     masked model, each step unmasks the lowest-entropy positions whose
//     cumulative entropy stays within a bound; on a uniform-noise model
//     (DiffusionGemma), the reference decoder of its transformers code,
//     with a temperature schedule, renoising and the stable-and-confident
//     stop.
//
// A Run holds one sequence's state; Batch advances several runs with one
// Denoise per step (each with its own RNG streams, so a run's result does
// not depend on the others). Logits are consumed row by row as the
// Denoiser produces them (in chunks of rows): the statistics a step needs
// (argmax, softmax probabilities, entropy, a multinomial draw) come from
// streaming passes over one row, and no probability matrix is formed.
package diffusion
