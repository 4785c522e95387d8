// Package sample turns a row of logits into the next token the way llama.cpp's
// common sampler does with its default chain:
//
//	penalties → top-n-σ → top-k → typical-p → top-p → min-p → temperature → dist
//
// (DRY and XTC sit between these stages in llama.cpp; both are disabled by its
// defaults and are not implemented here.) Every stage follows llama.cpp's
// float32 arithmetic, its "this stage is a no-op" thresholds and its candidate
// ordering, because the final draw scans the candidates in their current order
// against one uniform number: with the same logits, parameters and seed, the
// same token comes out.
//
// The random source is MT19937 (std::mt19937) and the uniform double is built
// the way libstdc++'s generate_canonical<double, 53> builds it, from two
// consecutive 32-bit outputs.
//
// Known, deliberate differences from llama.cpp, all confined to cases where
// llama.cpp's result is unspecified or undefined:
//   - Equal logits are ordered by ascending token id wherever llama.cpp sorts
//     (std::partial_sort and std::sort are not stable there), so ties go to
//     the lowest id.
//   - NaN logits are treated as -Inf (never chosen).
//   - typical-p skips zero probabilities when computing the entropy instead of
//     producing NaN from 0·log 0.
//   - The greedy fast path does not advance the RNG (llama.cpp's dist stage
//     still draws once); greedy output never depends on the RNG.
//   - Reset clears the penalty history but keeps the RNG running; Reseed
//     restarts it (llama_sampler_reset does both).
//   - Params.Validate rejects values llama.cpp would silently clamp or treat
//     as "disabled" (top_p > 1, top_k < -1, NaN, ...).
//
// testdata/llamacpp_chain.golden holds token sequences sampled by llama.cpp's
// own sampler code for twenty parameter sets (testdata/oracle/README.md says how it was made).
//
// A Constraint (a grammar) restricts the draw the way llama.cpp's
// common_sampler_sample applies its grammar sampler: the drawn token alone is
// checked, and only a rejected draw is repeated over the filtered candidates.
//
// A Sampler is not safe for concurrent use; give each sequence its own.
package sample
