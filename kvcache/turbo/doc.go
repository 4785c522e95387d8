// Package turbo implements the TurboQuant ("turbo2/3/4") and trellis-coded
// ("turbo2_tcq/3_tcq") KV-cache element types of BeeLlama
// (github.com/Anbeeld/beellama.cpp), byte-compatible with its 128-value block
// layouts and type ids, as a CPU reference: encode, decode, and the
// attention-side helpers that score keys and accumulate values without
// materialising float rows. The specification is
// ../shared/docs/reference/kv-turboquant.md ("the doc" below); section
// numbers refer to it.
//
// # Format
//
// A head vector is zero-padded to a multiple of 128 (PaddedLen) and each
// 128-value group becomes one block: an fp16 "corrected" norm N, then
// indices. The group is normalised, rotated by a fixed randomised 128-point
// Walsh-Hadamard transform F (sign vectors s1, s2; rotate.go), and each
// rotated coordinate is replaced by a level from a small table (scalar
// types, §3) or by the codebook entry of a trellis state chosen by a Viterbi
// search (TCQ types, §4). N = ||x|| / ||levels||, so the decoded rotated
// group has the input's norm. Blocks store the rotated domain; Decode
// un-rotates, DecodeRotated does not. Type.BlockBytes documents the bytes.
//
// # Attention
//
// F is orthogonal, so q·k = (Fq)·(Fk) and Σ p_i v_i = F^T(Σ p_i F v_i):
// RotateQuery once per head, DotKey per key, AccumulateValue per value,
// UnrotateOutput once per head (attn.go explains the algebra).
//
// # Kernels
//
// Everything has a pure-Go reference (attn_generic.go, scalar.go, tcq.go);
// DotKey and AccumulateValue are only that, the CPU reference of the
// rotated-domain algebra.
//
// The engine's attention path has assembly. ExpandRows (expand.go) expands
// many rows at once for grouped-query attention, bit-identical to
// DecodeRotated, with AVX-512 or AVX2 kernels for all five types
// (expand_amd64.s) and NEON ones on arm64 (expand_arm64.s); expand_test.go
// pins every level to the Go reference bit for bit. ScoreRows4 (score.go)
// scores four query heads against each key straight from its block,
// within tolScore of decode-then-dot, and AccumulateRows4 (accum.go) adds
// their weighted values with the bits of expanding and summing;
// FusedScores and FusedValues say where they run.
//
// The encode side has assembly too, bit-identical to the Go references:
// the rotation (RotateQuery, UnrotateOutput and every encoded group use it;
// rotate_amd64.s with AVX2, rotate_arm64.s with NEON) and the TCQ trellis
// search (viterbi_avx2_amd64.s, viterbi_avx512_amd64.s, viterbi_arm64.s);
// rotate_*_test.go and viterbi_*_test.go pin every level bit for bit. The
// one difference allowed is which NaN payload comes out where two different
// NaNs meet in an addition, which the encoded bytes never depend on.
//
// Each of these families (expand, score, accumulate, rotate, viterbi)
// registers with the kernels registry (levels.go), which moves it with the
// selected kernels.Level: the family runs its implementation of that level
// or of the nearest level below it (levels_<arch>.go lists which levels
// each has), so WAGGLE_KERNELS=avx2 runs no AVX-512 code here either, and
// WAGGLE_KERNELS=generic or the purego tag the Go references.
//
// # Decisions where the doc is [inferred] or silent
//
//   - Float arithmetic: the encoders use float32 with every product rounded
//     before it is added (no FMA), so they give the same bytes on every Go
//     target. Whether nvcc fuses these sums is unknown (§8); if it does, a
//     GPU-written block can differ from ours in rare last-ulp near-ties (an
//     element one level over, or another Viterbi path of almost equal cost).
//     Both decode correctly; only byte-identical state files would notice.
//     Summation orders follow the doc: sequential for the scalar norms,
//     BeeLlama's tree for the TCQ norms (codec.go). Tested by the byte-exact
//     blocks in exact_test.go.
//   - Threshold ties take the higher index (strict "<", stated) and a NaN
//     coordinate takes the top index (our choice: the "first i with v < th[i]"
//     reading of the CUDA comparison chain). TestLevelIndexTies.
//   - The TCQ pad byte and the 2 trailing stream bits are written as 0
//     (the doc infers the GPU leaves zeroed memory there) and ignored when
//     decoding, so a nonzero pad decodes like a zero one. TestTCQZeroVector,
//     TestTCQPadIgnored.
//   - The final Viterbi state on exact cost ties follows the doc's CUDA
//     reduction order, not "lowest index" (argminCUDA). TestArgminCUDATieBreak.
//   - The TCQ decode-time V alpha (§4.6) is attention semantics, not storage:
//     Decode, DotKey and AccumulateValue never apply it; TCQValueAlpha
//     returns BeeLlama's default for callers to fold into p.
//   - Encoder alphas (TURBO4_ALPHA, TURBO_TCQ_*ALPHA) are their defaults, 1;
//     InnerQ is off (identity scales), as the doc recommends for
//     compatibility; runtime codebook overrides (TURBO_TCQ_CB*) are not
//     supported, so the TCQ fingerprint of a state file is 0.
//   - Head dims below 128 (64, 80, 96) use BeeLlama's zero-padded 128-value
//     block, not TheTom's 64-point rotation.
//   - Non-finite input is not rejected: an Inf or NaN makes the norm Inf or
//     NaN, as on the GPU, and decodes to Inf/NaN values; nothing panics.
//     Norms above 65504 saturate to fp16 Inf, as __float2half does.
//
// # Budgets
//
// Round-trip relative MSE on Gaussian rows is within 10% of the doc's
// independent re-implementation (§7) and of Gaussian Lloyd-Max theory, and
// above the Shannon bound 2^(-2·bits); roundtrip_test.go states each budget.
//
// The TCQ codebooks in tables.go are spiritbuun's (buun-llama-cpp, MIT):
// credit spiritbuun.
package turbo
