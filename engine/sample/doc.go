// Package sample turns a row of logits into the next token the way llama.cpp's
// common sampler does:
//
//	logit bias → stages in the configured order → dist
//
// with llama.cpp's default order
//
//	penalties → DRY → top-n-σ → top-k → typical-p → top-p → min-p → XTC → temperature
//
// Params.Samplers changes the order (a stage may repeat); adaptive-p in the
// order replaces the final dist draw; Mirostat 1 or 2 replaces everything after
// the logit bias with temperature → Mirostat. Every stage follows llama.cpp's
// float32 arithmetic, its "this stage is a no-op" thresholds and its candidate
// ordering, because the final draw scans the candidates in their current order
// against one uniform number: with the same logits, parameters and seed, the
// same token comes out.
//
// The random source is MT19937 (std::mt19937), one per random stage as in
// llama.cpp (the draw's, and one per XTC stage), all seeded with the same seed.
// Uniform numbers are built the way libstdc++ builds them: a double from two
// consecutive 32-bit outputs (generate_canonical<double, 53>), a float from one;
// Mirostat and adaptive-p draw through std::discrete_distribution's
// cumulative-double scan.
//
// DRY's sequence breakers are strings matched against the vocabulary as
// llama.cpp does it (NewBreakers): a token containing a breaker breaks on its
// own, a token ending with a breaker's prefix breaks when followed by the
// tokenization of the rest.
//
// Known, deliberate differences from llama.cpp, all confined to cases where
// llama.cpp's result is unspecified or undefined, or to bad input:
//   - Equal logits are ordered by ascending token id wherever llama.cpp sorts
//     (std::partial_sort and std::sort are not stable there), so ties go to
//     the lowest id.
//   - NaN logits are treated as -Inf (never chosen).
//   - typical-p skips zero probabilities when computing the entropy instead of
//     producing NaN from 0·log 0.
//   - The greedy fast path does not advance the RNG (llama.cpp's dist stage
//     still draws once); greedy output never depends on the RNG.
//   - Reset clears the histories and Mirostat's and adaptive-p's state but
//     keeps the RNGs running; Reseed restarts them (llama_sampler_reset does
//     both).
//   - The penalty and DRY windows are capped at NCtx when it is set (a longer
//     history needs a context shift); llama.cpp caps DRY at the training
//     context and the penalties not at all.
//   - Params.Validate rejects values llama.cpp would silently clamp or treat
//     as "disabled" (top_p > 1, top_k < -1, NaN, dry_base < 1 with DRY on,
//     Mirostat 3, an unknown or the infill stage, ...). Accept ignores ids
//     outside the vocabulary.
//
// testdata/*.golden hold token sequences sampled by llama.cpp's own sampler
// code for more than a hundred parameter sets (testdata/oracle/README.md says
// how they were made).
//
// A Constraint (a grammar) restricts the draw the way llama.cpp's
// common_sampler_sample applies its grammar sampler: the drawn token alone is
// checked, and only a rejected draw is repeated over the filtered candidates.
//
// A Sampler is not safe for concurrent use; give each sequence its own.
package sample
